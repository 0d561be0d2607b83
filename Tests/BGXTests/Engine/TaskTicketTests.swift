@testable import BGXCore
import BGXTestKit
import Foundation
import Testing

/// rules §5, §6: a launch's task budget and a fetch's timeout are timed
/// events whose ticket says whose moment they are; `Engine.isOutstanding`
/// drops them, in one place, once that moment is over.
@Suite struct TaskTicketTests {
    static let refresh = "com.example.feed.refresh"

    /// A feed app that registers and submits its refresh as it launches
    /// (its launch handler on the main queue), then goes home.
    static func feed() -> (host: ImmediateHost, app: AppID) {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.engine.install(AppManifest(bundleIdentifier: "com.example.feed", backgroundModes: [.fetch],
                                                  permittedTaskIdentifiers: [refresh]))
        host.tell([(0, .user(.launch(app))), (10, .user(.home))])
        host.run(until: Time.seconds(20)) { d, engine in
            guard case .deliver(app, .didFinishLaunching) = d else { return }
            _ = engine.registerTask(for: app, identifier: refresh, queue: .main)
            try? engine.submitTask(for: app, TaskRequestSpec(identifier: refresh, kind: .appRefresh))
        }
        return (host, app)
    }

    /// The feed app with its refresh running (launched by the debug control).
    static func running() -> (host: ImmediateHost, app: AppID, budget: Ticket) {
        var (host, app) = Self.feed()
        _ = host.engine.simulateLaunch(for: app, identifier: refresh)
        host.drain()
        let budget = host.engine.ticket(app, host.engine.taskScheduler.apps[Int(app.index)].budgetNumber)
        return (host, app, budget)
    }

    @Test("rules §5: the budget's ticket is outstanding while its task runs and stale once it completes; its expiry then comes due and does nothing")
    func budgetTicketStaleOnCompletion() {
        var (host, app, budget) = Self.running()
        #expect(host.engine.isOutstanding(budget, .taskBudget, app))
        host.engine.completeTask(for: app, identifier: Self.refresh, success: true)
        host.drain()
        #expect(!host.engine.isOutstanding(budget, .taskBudget, app))
        _ = host.takeTrace()
        host.run(until: host.engine.now + host.engine.profile.scheduler.appRefreshBudget + Time.seconds(1))
        let kinds = host.takeTrace().filter { $0.app == app }.map(\.kind)
        #expect(!kinds.contains { if case .taskExpire = $0 { true } else { false } })
        #expect(!kinds.contains { if case .terminate = $0 { true } else { false } })
    }

    @Test("rules §5: a task left running is expired at its budget's expiry and, with an expiration handler that does not complete it, ends the app at its deadline: both tickets are outstanding")
    func budgetTicketOutstandingToTheDeadline() {
        var (host, app, _) = Self.running()
        host.engine.setTaskExpirationHandler(for: app, identifier: Self.refresh, isSet: true)
        _ = host.takeTrace()
        host.run(until: host.engine.now + host.engine.profile.scheduler.appRefreshBudget + Time.seconds(1))
        let kinds = host.takeTrace().filter { $0.app == app }.map(\.kind)
        #expect(kinds.contains { if case .taskExpire = $0 { true } else { false } })
        #expect(kinds.contains { if case .terminate(.taskNotCompleted, _) = $0 { true } else { false } })
    }

    @Test("the budget's ticket goes stale when the process ends, before its number would tell")
    func budgetTicketStaleAtProcessEnd() {
        var (host, app, budget) = Self.running()
        host.engine.exit(app)
        host.drain()
        #expect(host.engine.processEpoch(of: app) != budget.epoch)
        #expect(!host.engine.isOutstanding(budget, .taskBudget, app))
    }

    @Test("rules §6: a fetch's ticket is outstanding until its completion handler is called; the next fetch's is its own")
    func fetchTicket() {
        var (host, app) = Self.feed()
        host.engine.startFetch(app)
        host.drain()
        let first = host.engine.ticket(app, host.engine.scheduler.apps[Int(app.index)].fetchNumber)
        #expect(host.engine.isOutstanding(first, .fetch, app))
        host.engine.completeFetch(for: app, result: .newData)
        host.drain()
        #expect(!host.engine.isOutstanding(first, .fetch, app))
        host.engine.startFetch(app)
        host.drain()
        let second = host.engine.ticket(app, host.engine.scheduler.apps[Int(app.index)].fetchNumber)
        #expect(host.engine.isOutstanding(second, .fetch, app) && !host.engine.isOutstanding(first, .fetch, app))
    }
}
