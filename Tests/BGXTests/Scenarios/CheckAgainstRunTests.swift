import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx check` held against the run: every kill or refusal a scenario's run
/// shows, for a reason the check can see before it runs, must have been said
/// by the check about that app. A scenario the check finds nothing in then
/// runs without any of them.
@Suite("bgx check against the run: what kills or refuses the app was found before it ran")
struct CheckAgainstRunTests {
    /// Each reason the check can see, and the word its finding carries.
    static let killsCheckSees: [String: String] = [
        "noLaunchHandler": "noLaunchHandler",
        "registrationAfterLaunch": "registrationAfterLaunch",
        "launchHandlerRegisteredTwice": "launchHandlerRegisteredTwice",
        "taskNotCompleted": "taskNotCompleted",
        "backgroundTaskTimeout": "backgroundTaskTimeout",
        "completionHandlerTimeout": "completionHandlerTimeout",
        "voipCallNotReported": "0xbaadca11",
    ]

    static let files: [String] = {
        let folder = repositoryRoot.appendingPathComponent("docs/examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return scenarioFiles + names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder.appendingPathComponent($0).path }
    }()

    /// What the run did that the check should have said, as lines; empty when it said all.
    static func unforeseen(_ scenario: Scenario) throws -> [String] {
        let findings = ScenarioCheck.findings(scenario).findings.map(\.description)
        let run = try ScenarioRun(scenario)
        run.run()
        var missed: [String] = []
        let renderer = run.device.renderer
        for event in run.device.trace where event.kindName == "terminate" || event.kindName == "task.reject" {
            guard let app = event.app else { continue }
            let bundle = run.device.engine.bundleIdentifier(app)
            let fields = Dictionary(renderer.fields(of: event).map { ($0.0, Self.text($0.1)) }, uniquingKeysWith: { a, _ in a })
            let word: String
            if event.kindName == "terminate" {
                guard let reason = fields["reason"], let w = killsCheckSees[reason] else { continue }
                word = w
            } else {
                // The manifest's refusals; a continued-processing request made from the background is not one.
                let reason = fields["reason"] ?? ""
                guard fields["error"] == "notPermitted",
                      reason.contains("BGTaskSchedulerPermittedIdentifiers") || reason.contains("UIBackgroundModes") else { continue }
                word = "notPermitted"
            }
            let said = findings.contains { $0.contains(bundle) && $0.contains(word) }
            if !said {
                missed.append("\(run.device.engine.momentText(event.time)) \(bundle) \(event.kindName) "
                              + (fields["reason"] ?? fields["error"] ?? ""))
            }
        }
        return missed
    }

    static func text(_ field: TraceField) -> String {
        switch field {
        case let .string(s): s
        case let .bool(b): b ? "true" : "false"
        case let .number(n): "\(n)"
        }
    }

    @Test("every checkable kill or refusal of a scenario's run was found by bgx check", arguments: files)
    func checkForesawTheRun(path: String) throws {
        let scenario = try ScenarioParser.parse(contentsOf: path)
        let missed = try Self.unforeseen(scenario)
        #expect(missed.isEmpty, "\(path): the run did what bgx check did not say: \(missed)")
    }

    @Test("the demo's run holds too")
    func demo() throws {
        let scenario = try ScenarioParser(file: Demo.file).parse(Demo.scenario)
        #expect(try Self.unforeseen(scenario).isEmpty)
    }

    @Test("a kill the check cannot foresee is caught by this test (it can fail)")
    func testCanFail() throws {
        // A registered task whose handler never completes: without LaunchHandlerCheck this run's kill goes unsaid.
        let scenario = try ScenarioParser(file: "t.yaml").parse("""
        duration: 1h
        apps:
          - bundle: com.example.pods
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.pods.refresh]
            on:
              didFinishLaunching:
                - register: com.example.pods.refresh
              didEnterBackground:
                - submit: {identifier: com.example.pods.refresh, type: appRefresh}
              expire com.example.pods.refresh:
                - work: 1s
        timeline:
          - {at: 1m, user: launch com.example.pods}
          - {at: 2m, user: home}
          - {at: 10m, debug: {simulateLaunch: com.example.pods.refresh}}
        """)
        let run = try ScenarioRun(scenario)
        run.run()
        #expect(run.device.trace.contains { $0.kindName == "terminate" })
        #expect(try Self.unforeseen(scenario).isEmpty)
        let findings = ScenarioCheck.findings(scenario).findings
        #expect(findings.contains { $0.message.contains("taskNotCompleted") })
    }
}
