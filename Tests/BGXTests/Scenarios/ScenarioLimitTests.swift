import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Inputs at scale: documented limits, each an `error: FILE:LINE:COLUMN`
/// (or `error: FILE: …` for the file as a whole), never libyaml's words or
/// a silent cut; and the scheduler's work grows with what happens, not
/// with every app at every event.
@Suite("Scenario limits")
struct ScenarioLimitTests {
    func error(_ yaml: String, limits: ScenarioLimits = .standard) -> ScenarioError? {
        do {
            _ = try ScenarioParser(file: "big.yaml", limits: limits).parse(yaml)
            return nil
        } catch let e as ScenarioError {
            return e
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("a missing file says 'no such file', not a line in it")
    func missingFile() {
        #expect(throws: ScenarioError.self) { try ScenarioParser.parse(contentsOf: "/nonexistent/s.yaml") }
        do {
            _ = try ScenarioParser.parse(contentsOf: "/nonexistent/s.yaml")
        } catch let e as ScenarioError {
            #expect(e.description == "error: /nonexistent/s.yaml: no such file")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("a directory, and a file over the size limit, are named as such")
    func directoryAndSize() throws {
        let dir = try temporaryDirectory()
        #expect(throws: ScenarioError(SourceLocation(file: dir.path, line: 0, column: 0), "is a directory, not a file")) {
            try ScenarioParser.parse(contentsOf: dir.path)
        }
        // A sparse file one byte over the limit: nothing is written, nothing read.
        let path = dir.appendingPathComponent("huge.yaml").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(ScenarioLimits.standard.fileBytes) + 1)
        try handle.close()
        do {
            _ = try ScenarioParser.parse(contentsOf: path)
            Issue.record("a file over the limit was read")
        } catch let e as ScenarioError {
            #expect(e.description == "error: \(path): the file is 64 MB; bgx reads files of at most 64 MB")
        }
    }

    @Test("too many apps, timeline entries or expectations point at the first one over the limit")
    func countLimits() {
        let small = ScenarioLimits(apps: 2, timelineEntries: 3)
        let apps = error("apps:\n  - bundle: a\n  - bundle: b\n  - bundle: c\n", limits: small)
        #expect(apps?.location == SourceLocation(file: "big.yaml", line: 4, column: 5))
        #expect(apps?.message == "too many apps: bgx runs at most 2 in one scenario")
        let timeline = error("apps: [{bundle: a}]\ntimeline:\n" + String(repeating: "  - {at: 1m, user: home}\n", count: 4),
                             limits: small)
        #expect(timeline?.location.line == 6)
        #expect(timeline?.message == "too many timeline entries: bgx reads at most 3")
        let expect = error("apps: [{bundle: a}]\nexpect:\n" + String(repeating: "  - {kind: launch}\n", count: 4),
                           limits: small)
        #expect(expect?.message == "too many expectations: bgx reads at most 3")
        // At the limit is fine.
        #expect(error("apps:\n  - bundle: a\n  - bundle: b\n", limits: small) == nil)
    }

    @Test("deep nesting is our limit in our words; libyaml's text never reaches the user")
    func nesting() {
        // Beyond libyaml's own limit (1000): its error, reworded.
        let veryDeep = error("apps: " + String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000) + "\n")
        #expect(veryDeep?.message == "the YAML nests deeper than 64 levels (a scenario needs about 8)")
        #expect(veryDeep?.description.contains("yaml_set_max_nest_level") == false)
        #expect(veryDeep?.location.line == 1)
        // Beyond ours, within libyaml's: the same words, at the collection that is too deep.
        let deep = error("duration: 1h\napps: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "\n")
        #expect(deep?.message == "the YAML nests deeper than 64 levels (a scenario needs about 8)")
        #expect(deep?.location == SourceLocation(file: "big.yaml", line: 2, column: 70))
        #expect(error("apps: [{bundle: a, on: {didEnterBackground: [{work: 1s}]}}]\n") == nil)
    }

    @Test("rules §12: a timeline entry after the scenario's end is an error, not silently ignored")
    func timelineAfterEnd() {
        let e = error("duration: 1h\napps: [{bundle: a}]\ntimeline:\n  - {at: 30m, user: launch a}\n  - {at: 2h, user: home}\n")
        #expect(e?.location == SourceLocation(file: "big.yaml", line: 5, column: 10))
        #expect(e?.message == "at: 2h is after the scenario ends at 0d 01:00 (duration 1h)")
        // At the end exactly is inside.
        #expect(error("duration: 1h\napps: [{bundle: a}]\ntimeline:\n  - {at: 1h, user: launch a}\n") == nil)
    }

    @Test("a duration out of range says what the range is")
    func durationRange() {
        let e = error("duration: 99999d\napps: [{bundle: a}]\n")
        #expect(e?.location == SourceLocation(file: "big.yaml", line: 1, column: 11))
        #expect(e?.message == "duration: '99999d' is out of range: a duration is at most 10000d")
        let work = error("apps: [{bundle: a, on: {didEnterBackground: [{work: 20000d}]}}]\n")
        #expect(work?.message.contains("is out of range: a duration is at most 10000d") == true)
        #expect(error("duration: 10000d\napps: [{bundle: a}]\n") == nil)
    }

    @Test("a key given twice points at it, in our words")
    func duplicateKey() {
        let e = error("duration: 1h\nduration: 2h\napps: [{bundle: a}]\n")
        #expect(e?.message == "'duration' is given twice")
        #expect(e?.location.line == 1)
    }

    /// A generated scenario: n apps, each launched once and sent home, each
    /// submitting a refresh as it goes.
    static func generated(apps n: Int) -> String {
        var yaml = "duration: 1d\napps:\n"
        for i in 0..<n {
            yaml += """
              - bundle: com.example.app\(i)
                backgroundModes: [fetch]
                permittedTaskIdentifiers: [com.example.app\(i).refresh]
                on:
                  didFinishLaunching: [{register: com.example.app\(i).refresh}]
                  didEnterBackground: [{submit: {identifier: com.example.app\(i).refresh, type: appRefresh}}]
                  task com.example.app\(i).refresh: [{complete: true}]

            """
        }
        yaml += "usage:\n"
        for i in 0..<n { yaml += "  - {app: com.example.app\(i), daily: [\"08:00 5m\"]}\n" }
        yaml += "timeline:\n"
        for i in 0..<n { yaml += "  - {at: \(60 + 7 * i)s, user: launch com.example.app\(i)}\n  - {at: \(90 + 7 * i)s, user: home}\n" }
        return yaml
    }

    @Test("rules §6: the scheduler judges what changed — its judgements grow linearly with apps, not with their square")
    func judgementsGrowLinearly() throws {
        func judgements(_ n: Int) throws -> Int {
            let run = try ScenarioRun(try ScenarioParser(file: "gen.yaml").parse(Self.generated(apps: n)), keepsTrace: false)
            run.run()
            return run.device.engine.schedulerJudgements
        }
        let small = try judgements(40), large = try judgements(160)
        // Four times the apps: about four times the judgements (a pass over every
        // pending request at every event would be about sixteen).
        #expect(small > 0)
        #expect(Double(large) / Double(small) < 6, "\(small) → \(large)")
    }
}

@Test("a malformed Info.plist points at the line where it breaks")
func malformedInfoPlist() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-plist-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    func error(_ body: String) throws -> ScenarioError? {
        let path = dir.appendingPathComponent("Info.plist").path
        try ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n" + body + "</dict>\n</plist>\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        do { _ = try InfoPlist.read(path); return nil } catch let e as ScenarioError { return e }
    }
    // XML that is not well formed: a closing tag that does not match, on line 5.
    let mismatched = try error("  <key>CFBundleIdentifier</key>\n  <string>com.example.a</string>\n  <key>UIBackgroundModes</key><array><string>audio</array>\n")
    #expect(mismatched?.location.line == 6)
    #expect(mismatched?.message.hasPrefix("not a property list: malformed XML") == true)
    // Well-formed XML that is not a plist: a value with no key before it, on line 6.
    let keyless = try error("  <key>CFBundleIdentifier</key>\n  <string>com.example.a</string>\n  <string>orphan</string>\n")
    #expect(keyless?.location.line == 6)
    #expect(keyless?.message == "not a property list: <string> in a <dict> without a <key> before it")
    // A number that is not one.
    let number = try error("  <key>CFBundleIdentifier</key>\n  <string>com.example.a</string>\n  <key>Count</key>\n  <integer>many</integer>\n")
    #expect(number?.location.line == 7)
    #expect(number?.message == "not a property list: <integer> holds 'many', not a whole number")
}
