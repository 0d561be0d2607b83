import BGXCore
import BGXSimulation
import BGXTestKit
import Foundation
import Testing

/// The rules no run may break (TraceInvariants), held from outside the engine
/// on every scenario, the docs' examples and the demo; and each rule shown
/// to catch the trace that breaks it.
@Suite("Trace invariants: what no run may ever do")
struct TraceInvariantTests {
    /// Every scenario file a user can run: Scenarios/ and the docs' single-device examples.
    static let files: [String] = {
        let examples = repositoryRoot.appendingPathComponent("docs/examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
        let docs = names.filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("fleet-") }.sorted()
            .map { examples.appendingPathComponent($0).path }
        return scenarioFiles + docs
    }()

    static func violations(of scenario: Scenario) throws -> [TraceInvariants.Violation] {
        let run = try ScenarioRun(scenario)
        run.run()
        return TraceInvariants.violations(in: run.device.traceLines)
    }

    @Test("every scenario's trace keeps every invariant", arguments: files)
    func scenarioKeepsInvariants(_ path: String) throws {
        let found = try Self.violations(of: ScenarioParser.parse(contentsOf: path))
        #expect(found.isEmpty, "\(path):\n\(found.prefix(10).map(\.description).joined(separator: "\n"))")
    }

    @Test("the demo's week keeps every invariant")
    func demoKeepsInvariants() throws {
        let found = try Self.violations(of: ScenarioParser(file: Demo.file).parse(Demo.scenario))
        #expect(found.isEmpty, "\(found.prefix(10).map(\.description).joined(separator: "\n"))")
    }

    @Test("a fleet's devices keep every invariant: the first 24 sampled people of each fleet example, for 2 days",
          arguments: ["fleet-news.yaml", "fleet-news-week.yaml"])
    func fleetDevicesKeepInvariants(_ name: String) throws {
        let path = repositoryRoot.appendingPathComponent("docs/examples/" + name).path
        let sampler = try DeviceSampler(ScenarioParser.parse(contentsOf: path), days: 2)
        for i in 0..<24 {
            let (scenario, _) = sampler.device(i)
            let found = try Self.violations(of: scenario)
            #expect(found.isEmpty, "\(name), device \(i):\n\(found.prefix(10).map(\.description).joined(separator: "\n"))")
        }
    }

    // Each rule, broken on purpose: the checker must see it.
    static let launch = [
        #"{"t": 0, "app": "a", "kind": "launch", "cause": "user"}"#,
        #"{"t": 0, "app": "a", "kind": "state", "from": "notRunning", "to": "inactive", "reason": "launch"}"#,
        #"{"t": 0, "app": "a", "kind": "callback", "name": "didFinishLaunching"}"#,
        #"{"t": 0, "app": "a", "kind": "state", "from": "inactive", "to": "background", "reason": "entered the background"}"#,
    ]
    static let suspend = #"{"t": 5, "app": "a", "kind": "state", "from": "background", "to": "suspended", "reason": "no assertions"}"#

    @Test("each rule catches the line that breaks it", arguments: [
        (TraceInvariants.Rule.timeRunsForward, launch + [#"{"t": -1, "kind": "user", "action": "home"}"#]),
        (.statesFollowOn, launch + [#"{"t": 1, "app": "a", "kind": "state", "from": "active", "to": "background", "reason": "x"}"#]),
        (.onlyRunningAppsRunCode, launch + [suspend, #"{"t": 6, "app": "a", "kind": "callback", "name": "didReceiveRemoteNotification"}"#]),
        (.killsEndTheProcess, launch + [#"{"t": 2, "app": "a", "kind": "terminate", "reason": "watchdog"}"#,
                                        #"{"t": 2, "app": "a", "kind": "callback", "name": "willTerminate"}"#]),
        (.everyDecisionHasAReason, launch + [#"{"t": 1, "app": "a", "kind": "task.defer", "identifier": "r"}"#]),
        (.everyDecisionHasAReason, launch + [#"{"t": 1, "app": "a", "kind": "push.drop", "reason": ""}"#]),
        (.backgroundTasksEndOnce, launch + [#"{"t": 1, "app": "a", "kind": "bgtask.begin", "id": 1, "name": "x"}"#,
                                            #"{"t": 2, "app": "a", "kind": "bgtask.end", "id": 1}"#,
                                            #"{"t": 3, "app": "a", "kind": "bgtask.end", "id": 1}"#]),
        (.requestsRunOnlyWhenPending, launch + [#"{"t": 1, "app": "a", "kind": "task.start", "identifier": "r", "reason": "x"}"#]),
        (.requestsRunOnlyWhenPending, launch + [#"{"t": 1, "app": "a", "kind": "task.complete", "identifier": "r", "success": true}"#]),
        (.budgetsAreNeverNegative, launch + [#"{"t": 1, "app": "a", "kind": "transfer.start", "bytesLeft": -1}"#]),
        (.budgetsAreNeverNegative, launch + [#"{"t": 1, "app": "a", "kind": "task.progress", "completed": 11, "total": 10}"#]),
        (.scoresAreFractions, launch + [#"{"t": 1, "app": "a", "kind": "task.defer", "reason": "x", "currentScore": 1.2}"#]),
        (.wellFormed, launch + ["{\"t\": 1, \"app\": \"a\""]),
    ])
    func ruleCatches(rule: TraceInvariants.Rule, lines: [String]) {
        let found = TraceInvariants.violations(in: lines)
        #expect(found.map(\.rule) == [rule], "\(found)")
        #expect(found.first?.line == lines.count, "\(found)")
    }

    @Test("the same lines, kept to the rules, give no violation")
    func rulesKeptGiveNone() {
        let lines = Self.launch + [
            #"{"t": 1, "app": "a", "kind": "bgtask.begin", "id": 1, "name": "x"}"#,
            #"{"t": 1, "app": "a", "kind": "task.submit", "identifier": "r", "type": "appRefresh", "replaced": false}"#,
            #"{"t": 2, "app": "a", "kind": "bgtask.end", "id": 1}"#,
            #"{"t": 2, "app": "a", "kind": "task.start", "identifier": "r", "reason": "score 1.0"}"#,
            #"{"t": 3, "app": "a", "kind": "task.complete", "identifier": "r", "success": true}"#,
            Self.suspend,
            #"{"t": 6, "app": "a", "kind": "terminate", "reason": "memoryPressure"}"#,
            #"{"t": 6, "app": "a", "kind": "state", "from": "suspended", "to": "notRunning", "reason": "terminated"}"#,
        ]
        #expect(TraceInvariants.violations(in: lines).isEmpty)
    }
}
