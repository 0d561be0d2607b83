import BGXCore
import BGXSimulation
import Foundation
import PropertyBased
import Testing

/// Bad input never crashes bgx: mutated scenario files either parse (and
/// run) or give a `ScenarioError` with a location inside the file.
@Suite("Scenario fuzzing")
struct ScenarioFuzzTests {
    static let seeds: [String] = scenarioFiles.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
    static let tokens = [":", "-", "[", "]", "{", "}", ",", "\"", "'", "\n", "  ", "#", "&a", "*a", "!!int ", "~",
                         "22:30", "1d 07:00", "-5s", "999999999999d", "1e400", "0s", "100%", "-1", "null",
                         "launch", "home", "work: ", "wait: ", "bundle: ", "on:", "expect:", "kind: ", "\u{0}", "é"]

    /// Applies `count` mutations chosen by `genes` to one seed file.
    static func mutate(_ text: String, genes: [UInt64]) -> String {
        var chars = Array(text)
        for gene in genes where !chars.isEmpty {
            let at = Int(gene % UInt64(chars.count))
            switch (gene >> 32) % 4 {
            case 0: chars.remove(at: at)
            case 1: chars.insert(contentsOf: tokens[Int((gene >> 40) % UInt64(tokens.count))], at: at)
            case 2:
                let end = min(chars.count, at + Int((gene >> 40) % 40))
                chars.removeSubrange(at..<end)
            default:
                let end = min(chars.count, at + Int((gene >> 40) % 60))
                chars.insert(contentsOf: Array(chars[at..<end]), at: at)
            }
        }
        return String(chars)
    }

    @Test("mutated scenarios parse and run, or fail with a located error — never a crash")
    func mutatedScenariosNeverCrash() async {
        #expect(!Self.seeds.isEmpty)
        await propertyCheck(count: 400, input: Gen.uint64(in: 0...UInt64.max), Gen.uint64(in: 0...UInt64.max).array(of: 1...6)) {
            which, genes in
            let text = Self.mutate(Self.seeds[Int(which % UInt64(Self.seeds.count))], genes: genes)
            let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
            do {
                let scenario = try ScenarioParser(file: "fuzz.yaml").parse(text)
                guard scenario.duration <= Time.days(3) else { return }
                let run = try ScenarioRun(scenario)
                run.run()
                #expect(run.results.count == scenario.expectations.count)
            } catch let error as ScenarioError {
                #expect(error.location.file == "fuzz.yaml")
                #expect((1...max(1, lineCount + 1)).contains(error.location.line), "\(error)")
                #expect(!error.message.isEmpty)
            } catch {
                Issue.record("not a ScenarioError: \(error)")
            }
        }
    }
}
