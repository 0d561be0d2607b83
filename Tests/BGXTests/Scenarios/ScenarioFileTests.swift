import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The repository's root: the nearest folder above this file that holds
/// Package.swift (so a test file may sit in any folder of its concern).
let repositoryRoot: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        let parent = folder.deletingLastPathComponent()
        precondition(parent.path != folder.path, "no Package.swift above \(#filePath)")
        folder = parent
    }
    return folder
}()

/// Every scenario in `Scenarios/`: the executable form of docs/rules.md.
let scenarioFiles: [String] = {
    let folder = repositoryRoot.appendingPathComponent("Scenarios")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder.appendingPathComponent($0).path }
}()

@Suite("Scenario files (Scenarios/*.yaml)")
struct ScenarioFileTests {
    @Test("the folder holds the rules' scenarios")
    func folderIsNotEmpty() {
        #expect(scenarioFiles.count >= 14)
    }

    @Test("each scenario's expectations hold, and it cites its rule in docs/rules.md", arguments: scenarioFiles)
    func scenarioPasses(_ path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("rules §"), "\(path) does not cite the rule (docs/rules.md) it shows")
        let scenario = try ScenarioParser.parse(contentsOf: path)
        #expect(!scenario.expectations.isEmpty, "\(path) has no expect: entries")
        let run = try ScenarioRun(scenario)
        run.run()
        for result in run.results {
            #expect(result.passed, "\(path):\(result.expectation.location.line): \(result.message)")
        }
    }

    @Test("the same scenario and seed give a byte-identical trace", arguments: scenarioFiles)
    func scenarioIsDeterministic(_ path: String) throws {
        let scenario = try ScenarioParser.parse(contentsOf: path)
        func trace() throws -> [String] {
            let run = try ScenarioRun(scenario)
            run.run()
            return run.device.traceLines
        }
        let first = try trace()
        #expect(!first.isEmpty)
        #expect(first == (try trace()))
    }

    @Test("an expectation that does not hold fails the run")
    func failingExpectationFails() throws {
        let yaml = """
        duration: 1h
        apps: [{bundle: com.example.a}]
        timeline: [{at: 1m, user: launch com.example.a}]
        expect:
          - {kind: launch, app: com.example.a, between: [2m, 3m]}
          - {kind: launch, app: com.example.a, count: 2}
          - {kind: launch, app: com.example.a, cause: user, count: 1}
        """
        let run = try ScenarioRun(try ScenarioParser(file: "t.yaml").parse(yaml))
        run.run()
        #expect(run.results.map(\.passed) == [false, false, true])
        #expect(!run.passed)
        #expect(run.results[0].message.contains("found none"))
    }

    @Test("the built-in demo parses, runs, and its expectations hold")
    func demoRuns() throws {
        let run = try ScenarioRun(try ScenarioParser(file: Demo.file).parse(Demo.scenario))
        run.run()
        #expect(run.results.count >= 5)
        #expect(run.passed, "\(run.results.filter { !$0.passed }.map(\.message))")
    }

    @Test("usage habits expand into a launch and a home each day")
    func usageExpands() throws {
        let yaml = """
        start: 2026-01-05T06:00:00
        duration: 3d
        apps: [{bundle: com.example.a}]
        usage: [{app: com.example.a, daily: ["08:00 5m"]}]
        expect:
          - {kind: user, action: launch, count: 3}
          - {kind: callback, name: didEnterBackground, between: [08:05, 08:05]}
          - {kind: callback, name: didEnterBackground, between: [2d 08:05, 2d 08:05]}
        """
        let run = try ScenarioRun(try ScenarioParser(file: "t.yaml").parse(yaml))
        run.run()
        #expect(run.passed, "\(run.results.filter { !$0.passed }.map(\.message))")
    }
}
