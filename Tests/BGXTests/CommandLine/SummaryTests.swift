import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The per-app summary says why not yet: what became of each BGTaskScheduler
/// request (submitted, started, held back and by which policy longest,
/// refused and why, expired) and of each push (delivered, held, dropped by
/// reason) — counted from the trace, so it says what the trace records.
@Suite("Summary: why not yet")
struct SummaryTests {
    static func run(_ path: String) throws -> ScenarioRun {
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
        run.run()
        return run
    }

    static func run(yaml: String) throws -> ScenarioRun {
        let run = try ScenarioRun(try ScenarioParser(file: "summary.yaml").parse(yaml))
        run.run()
        return run
    }

    /// Every submit refused: an app that lists no permitted identifier (rules §5:
    /// `submit` throws `notPermitted`).
    static let allRefused = """
    duration: 1h
    apps:
      - bundle: com.example.feed
        backgroundModes: [fetch]
        on:
          didFinishLaunching:
            - register: com.example.feed.refresh
          didEnterBackground:
            - submit: {identifier: com.example.feed.refresh, type: appRefresh}
    timeline:
      - {at: 1m, user: launch com.example.feed}
      - {at: 2m, user: home}
      - {at: 10m, user: launch com.example.feed}
      - {at: 12m, user: home}
    """

    @Test("rules §5: a run where every submit was refused says they were refused, with the error and why — not '0 run'")
    func everySubmitRefused() throws {
        let run = try Self.run(yaml: Self.allRefused)
        let summary = run.device.summary(of: try #require(run.device.app("com.example.feed")))
        #expect(summary.requests.submitted == 2)
        #expect(summary.requests.started == 0)
        #expect(summary.requests.refusedCount == 2)
        #expect(summary.requests.refused.map(\.error) == [.notPermitted])
        #expect(summary.text.contains("BGTasks:      2 submitted: 0 started, 2 refused, 0 expired"))
        #expect(summary.text.contains(
            "refused:      2× notPermitted: com.example.feed.refresh is not in BGTaskSchedulerPermittedIdentifiers"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(summary.json.utf8)) as? [String: Any])
        let tasks = try #require(json["scheduledTasks"] as? [String: Any])
        #expect((tasks["refused"] as? [String: Int]) == ["notPermitted": 2])
        #expect(tasks["submitted"] as? Int == 2)
        let refusals = try #require(tasks["refusals"] as? [[String: Any]])
        #expect(refusals.first?["reason"] as? String == "com.example.feed.refresh is not in BGTaskSchedulerPermittedIdentifiers")
    }

    @Test("rules §5: a processing task that waits for the charger names ChargerPluggedInPolicy as what held it longest (09:00 – 22:00)")
    func longestHoldIsTheCharger() throws {
        let run = try Self.run(repositoryRoot.appendingPathComponent("Scenarios/spec5-processing-waits-for-power.yaml").path)
        let summary = run.device.summary(of: try #require(run.device.app("com.example.photos")))
        let requests = summary.requests
        // Submitted at launch, and again from each expiration handler; every one waited.
        // Each run's 20-minute job outlasts its time, so each run is expired and
        // resubmitted; the last request is still pending when the person picks
        // the phone up at 22:30 (an earlier run's late continuation completes
        // nothing: StaleTaskCompletionTests).
        #expect(requests.submitted >= 2)
        #expect(requests.started == requests.submitted - 1)
        #expect(requests.pendingAtEnd == 1)
        #expect(requests.deferred == requests.submitted)
        #expect(requests.expired == requests.started)
        #expect(requests.refusedCount == 0)
        #expect(requests.longestHold?.policy == "ChargerPluggedInPolicy")
        #expect(requests.longestHold?.duration == Time.hours(13))
        #expect(summary.text.contains("\(requests.submitted) deferred (held longest by ChargerPluggedInPolicy, 13h in all)"))
    }

    @Test("rules §7: the demo's messenger: pushes delivered, held (throttled, force-quit) and dropped (replaced while held), by reason")
    func pushesByReason() throws {
        let run = try ScenarioRun(try ScenarioParser(file: Demo.file).parse(Demo.scenario))
        run.run()
        let app = try #require(run.device.app("com.example.messenger"))
        let pushes = run.device.summary(of: app).pushes
        // Counted independently from the trace's lines.
        let events = run.device.events(of: app)
        let delivered = events.filter { $0.kindName == "push.deliver" }.count
        let names = run.device.renderer
        func held(_ e: TraceEvent) -> Bool? {
            names.fields(of: e).first { $0.0 == "held" }.flatMap { if case let .bool(b) = $0.1 { b } else { nil } }
        }
        let drops = events.filter { $0.kindName == "push.drop" }
        #expect(pushes.delivered == delivered && delivered > 0)
        #expect(pushes.heldCount == drops.filter { held($0) == true }.count && pushes.heldCount > 0)
        #expect(pushes.droppedCount == drops.filter { held($0) == false }.count && pushes.droppedCount > 0)
        #expect(pushes.held.contains { $0.reason.hasPrefix("throttled") })
        #expect(pushes.held.contains { $0.reason.contains("force-quit") })
        #expect(pushes.dropped.contains { $0.reason.hasPrefix("replaced by a newer push") })
        #expect(run.device.summary(of: app).text.contains("pushes:       \(delivered) delivered"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.device.summary(of: app).json.utf8)) as? [String: Any])
        let object = try #require(json["pushes"] as? [String: Any])
        #expect(object["delivered"] as? Int == delivered)
        #expect((object["held"] as? [String: Int])?.values.reduce(0, +) == pushes.heldCount)
        #expect((object["dropped"] as? [String: Int])?.values.reduce(0, +) == pushes.droppedCount)
    }

    @Test("the policy a deferral names: after the score's dash, before its colon")
    func policyOfAReason() {
        #expect(RequestLedger.policy(of: "score 0.29 < 0.5 — ApplicationPolicy: next predicted use 1d 08:00") == "ApplicationPolicy")
        #expect(RequestLedger.policy(of: "ChargerPluggedInPolicy: [{requiresExternalPower == 1 AND pluggedIn == 0}]")
                == "ChargerPluggedInPolicy")
        #expect(RequestLedger.policy(of: "no words") == "no words")
    }

    @Test("a long run that streams its trace instead of keeping it still counts its requests")
    func countsWithoutAKeptTrace() throws {
        let run = try ScenarioRun(try ScenarioParser(file: "summary.yaml").parse(Self.allRefused), keepsTrace: false)
        run.run()
        #expect(run.device.trace.isEmpty)
        let summary = run.device.summary(of: try #require(run.device.app("com.example.feed")))
        #expect(summary.requests.refusedCount == 2)
    }

    @Test("the summary's request counts agree with the trace's task lines, app by app, in every scenario file",
          arguments: scenarioFiles)
    func countsAgreeWithTheTrace(_ path: String) throws {
        let run = try Self.run(path)
        for (index, name) in run.device.renderer.appNames.enumerated() {
            let app = AppID(index: Int32(index))
            let events = run.device.events(of: app)
            func count(_ kind: String) -> Int { events.filter { $0.kindName == kind }.count }
            let requests = run.device.summary(of: app).requests
            #expect(requests.submitted == count("task.submit") + count("task.reject"), "\(path): \(name)")
            #expect(requests.started == count("task.start"), "\(path): \(name)")
            #expect(requests.refusedCount == count("task.reject"), "\(path): \(name)")
            #expect(requests.expired == count("task.expire"), "\(path): \(name)")
            #expect(requests.cancelled <= count("task.cancel"), "\(path): \(name)")
            #expect(requests.deferred <= count("task.defer"), "\(path): \(name)")
            #expect((requests.longestHold != nil) == (count("task.defer") > 0), "\(path): \(name)")
        }
    }
}
