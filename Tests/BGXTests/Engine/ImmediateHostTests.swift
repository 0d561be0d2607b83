import BGXCore
import BGXTestKit
import Testing

/// Background-task rules checked on the engine alone, through BGXTestKit's
/// host (no SimulatedDevice, no app code): every callback returns at once.
@Suite struct ImmediateHostTests {
    @Test("rules §2: a background task ended in time lets the app suspend; one left open is killed at the budget's end")
    func backgroundTaskBudget() {
        var host = ImmediateHost(Engine(profile: .modern))
        let polite = host.install("com.example.polite")
        let greedy = host.install("com.example.greedy")
        host.tell([(0, .user(.launch(polite))), (1, .user(.launch(greedy))), (2, .user(.home))])
        var tasks: [AppID: Int] = [:]
        host.run(until: Time.seconds(5)) { d, engine in
            if case let .deliver(app, .didEnterBackground) = d { tasks[app] = engine.beginBackgroundTask(for: app, name: "save") }
        }
        #expect(host.engine.state(of: greedy) == .background)
        host.engine.endBackgroundTask(for: polite, tasks[polite]!)
        host.run(until: Time.seconds(60))
        #expect(host.stateChanges(of: polite).last == "background→suspended")
        #expect(host.engine.state(of: greedy) == .notRunning)
        let kill = host.engine.trace.first { event in
            if event.app == greedy, case .terminate(.backgroundTaskTimeout, _) = event.kind { return true }
            return false
        }
        #expect(kill != nil)
    }

    @Test("the host carries out what carrying out produces, until nothing is left")
    func runToEnd() {
        var host = ImmediateHost(Engine())
        let app = host.install("com.example.a")
        host.tell([(0, .user(.launch(app))), (10, .user(.home))])
        host.runToEnd()
        #expect(host.stateChanges(of: app) == ["notRunning→inactive", "inactive→active", "active→inactive",
                                               "inactive→background", "background→suspended"])
        #expect(!host.engine.hasDirectives)
        #expect(host.engine.nextEventTime == nil)
    }
}
