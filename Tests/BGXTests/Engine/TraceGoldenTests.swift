import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Refactoring guard: the demo's trace and every scenario's trace, each as a
/// 64-bit FNV-1a hash of its JSON Lines, against `Golden/traces.txt`. A
/// change meant to keep behaviour (moving state between controllers) must
/// keep these bytes; a change meant to alter behaviour re-records them, and
/// the diff of that file says which runs moved:
///
///     BGX_RECORD_GOLDEN=1 swift test --filter TraceGoldenTests
@Suite("Trace golden hashes (behaviour kept byte for byte)")
struct TraceGoldenTests {
    static let goldenFile = repositoryRoot.appendingPathComponent("Tests/BGXTests/Golden/traces.txt")

    static func fnv1a(_ lines: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in lines {
            for byte in line.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            hash = (hash ^ 0x0a) &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    static func currentHashes() throws -> [(String, String)] {
        var runs: [(String, Scenario)] = [("demo", try ScenarioParser(file: Demo.file).parse(Demo.scenario))]
        for path in scenarioFiles {
            runs.append(((path as NSString).lastPathComponent, try ScenarioParser.parse(contentsOf: path)))
        }
        return try runs.map { name, scenario in
            let run = try ScenarioRun(scenario)
            run.run()
            return (name, "\(fnv1a(run.device.traceLines)) \(run.device.traceLines.count)")
        }
    }

    @Test("every run's trace is the recorded one, byte for byte")
    func tracesAreUnchanged() throws {
        let current = try Self.currentHashes()
        let text = current.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["BGX_RECORD_GOLDEN"] == "1" {
            try text.write(to: Self.goldenFile, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try String(contentsOf: Self.goldenFile, encoding: .utf8)
        var expected: [String: String] = [:]
        for line in recorded.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { expected[String(parts[0])] = String(parts[1]) }
        }
        for (name, hash) in current {
            #expect(expected[name] == hash, "\(name): trace changed (hash and line count \(hash), recorded \(expected[name] ?? "none"))")
        }
        #expect(expected.count == current.count, "Golden/traces.txt lists \(expected.count) runs, there are \(current.count)")
    }
}
