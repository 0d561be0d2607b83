import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Bad input never crashes bgx: it gets `error: FILE:LINE:COLUMN: message`.
@Suite("Scenario errors")
struct ScenarioErrorTests {
    func error(_ yaml: String) -> ScenarioError? {
        do {
            let scenario = try ScenarioParser(file: "bad.yaml").parse(yaml)
            _ = try ScenarioRun(scenario)
            return nil
        } catch let e as ScenarioError {
            return e
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test("malformed YAML points at the line")
    func malformedYAML() {
        let e = error("apps:\n  - bundle: a\n    on: [unclosed\n")
        #expect(e?.description.hasPrefix("error: bad.yaml:") == true)
        #expect(e?.message.contains("malformed YAML") == true)
    }

    @Test("an unknown key suggests the nearest known one")
    func unknownKeySuggests() {
        let e = error("duration: 1h\napps:\n  - bundle: com.example.a\n    backgroundMode: [audio]\n")
        #expect(e?.location == SourceLocation(file: "bad.yaml", line: 4, column: 5))
        #expect(e?.message == "unknown key in an app 'backgroundMode'; did you mean 'backgroundModes'?")
    }

    @Test("a bad duration is reported where it is written")
    func badDuration() {
        let e = error("duration: 1h\napps:\n  - bundle: a\n    on:\n      didEnterBackground:\n        - work: 5 parsecs\n")
        #expect(e?.location.line == 6)
        #expect(e?.message.contains("is not a duration") == true)
    }

    @Test("bad sizes, percentages and times are errors")
    func badValues() {
        #expect(error("device: {battery: 140%}\napps: [{bundle: a}]\n")?.message.contains("battery") == true)
        #expect(error("device: {memory: lots}\napps: [{bundle: a}]\n")?.message.contains("memory") == true)
        #expect(error("apps: [{bundle: a, memory: -5MB}]\n")?.message.contains("memory") == true)
        #expect(error("apps: [{bundle: a}]\ntimeline: [{at: 25:99, user: home}]\n")?.message.contains("not a time") == true)
        #expect(error("start: 2026-01-05T08:00:00\napps: [{bundle: a}]\ntimeline: [{at: 07:00, user: home}]\n")?
            .message.contains("before the scenario starts") == true)
    }

    @Test("an unknown app or mode is named, with a suggestion")
    func unknownAppOrMode() {
        let app = error("apps: [{bundle: com.example.feed}]\ntimeline: [{at: 1m, user: launch com.example.fed}]\n")
        #expect(app?.message == "unknown app 'com.example.fed'; did you mean 'com.example.feed'?")
        let mode = error("apps: [{bundle: a, backgroundModes: [fetsh]}]\n")
        #expect(mode?.message == "unknown background mode 'fetsh'; did you mean 'fetch'?")
    }

    @Test("times written without quotes are times, not YAML 1.1 base-60 numbers")
    func unquotedTimes() throws {
        let s = try ScenarioParser(file: "t.yaml").parse("apps: [{bundle: a}]\ntimeline: [{at: 22:30, user: lock}]\n")
        #expect(s.timeline.first?.at == Time.seconds(22 * 3600 + 30 * 60))
    }

    @Test("nothing of docs/scenarios.md's vocabulary is left 'not yet supported': the last of it (rules §9) is simulated")
    func nothingLeftUnsupported() {
        #expect(error("apps:\n  - bundle: a\n    on:\n      didEnterBackground:\n"
                      + "        - notify: {id: n, after: 1m, sound: chime.caf, badge: 1}\n"
                      + "timeline: [{at: 1m, user: tapNotification n}]\n") == nil)
    }

    @Test("an action without an argument may be bare or `true`")
    func bareActions() throws {
        let s = try ScenarioParser(file: "t.yaml").parse(
            "apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - exit\n      willResignActive:\n        - exit: true\n")
        #expect(s.apps[0].handlers[.didBecomeActive]?.first?.action == .exit)
        #expect(s.apps[0].handlers[.willResignActive]?.first?.action == .exit)
    }

    @Test("duplicate keys, duplicate apps and a missing apps list are errors")
    func structuralErrors() {
        let duplicate = error("duration: 1h\nduration: 2h\napps: [{bundle: a}]\n")
        #expect(duplicate?.message == "'duration' is given twice")
        #expect(error("apps: [{bundle: a}, {bundle: a}]\n")?.message == "app 'a' is listed twice")
        #expect(error("duration: 1h\n")?.message == "the scenario has no 'apps:' list")
        #expect(error("")?.message == "the scenario is empty")
    }
}
