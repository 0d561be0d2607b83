@testable import BGXCore
import BGXTestKit
import Foundation
import Testing

/// The task scheduler controller and continued processing explain
/// themselves (`Engine.controllerDumps(of:)`, so `bgx explain --app` and the
/// live host's `status`): what runs, until when, and what is registered.
@Suite struct TaskSchedulerDumpTests {
    static let refresh = TaskTicketTests.refresh
    static func feed() -> (host: ImmediateHost, app: AppID) { TaskTicketTests.feed() }

    @Test("A process that only registered a handler holds nothing in the background: no BGTaskScheduler section, but its dump lists the handler")
    func registrationAloneIsNoSection() {
        let (host, app) = Self.feed()
        #expect(!host.engine.controllerDumps(of: app).map(\.concern).contains("BGTaskScheduler"))
        let dump = host.engine.taskSchedulerDump(of: app)
        #expect(dump.registered == [.init(identifier: Self.refresh, queue: "main")] && dump.launchFinished)
        #expect(dump.lines { _ in "t" } == ["launch handlers: com.example.feed.refresh (main queue); "
                                              + "registering is over (didFinishLaunching returned)"])
    }

    @Test("rules §5: a running task shows in the dump with the launch's budget — when it runs out and what happens then")
    func runningTaskAndBudget() throws {
        var (host, app) = Self.feed()
        let launched = host.engine.simulateLaunch(for: app, identifier: Self.refresh)
        host.drain()
        #expect(launched)
        let now = host.engine.now
        let dumps = host.engine.controllerDumps(of: app)
        let dump = try #require(dumps.first { $0.concern == "BGTaskScheduler" } as? TaskSchedulerDump)
        #expect(dump.running.map(\.identifier) == [Self.refresh] && dump.running.first?.simulated == true)
        let budget = host.engine.profile.scheduler.appRefreshBudget
        #expect(dump.budgetDeadline == now + budget)
        let lines = dump.lines { "@\(Time.toSeconds($0))" }
        #expect(lines.first == "\(Self.refresh) (appRefresh) running since @\(Time.toSeconds(now)), launched by "
                + "_simulateLaunchForTaskWithIdentifier; no expiration handler set")
        #expect(lines.contains { $0.hasPrefix("budget: shared by this launch's tasks until @\(Time.toSeconds(now + budget)); "
                                             + "a task not completed by then ends the app (expiration handlers run") })
        // Completed, it holds nothing: the section goes.
        host.engine.completeTask(for: app, identifier: Self.refresh, success: true)
        host.drain()
        #expect(!host.engine.controllerDumps(of: app).map(\.concern).contains("BGTaskScheduler"))
        #expect(host.engine.taskSchedulerDump(of: app).budgetDeadline == nil)
    }

    @Test("rules §13: continued processing dumps its running and queued tasks, and which has stalled")
    func continuedProcessingDump() throws {
        var host = ImmediateHost(Engine(profile: .ios26))
        let app = host.engine.install(AppManifest(bundleIdentifier: "com.example.photos",
                                                  permittedTaskIdentifiers: ["com.example.photos.export.*"]))
        host.tell([(0, .user(.launch(app)))])
        host.run(until: Time.seconds(1)) { d, engine in
            guard case .deliver(app, .didFinishLaunching) = d else { return }
            _ = engine.registerTask(for: app, identifier: "com.example.photos.export.*")
        }
        for name in ["a", "b", "c"] {
            try host.engine.submitContinuedProcessingTask(for: app, ContinuedProcessingRequest(
                identifier: "com.example.photos.export.\(name)", title: "Exporting \(name)", subtitle: "3 items"))
        }
        host.drain()
        host.engine.reportContinuedProgress(for: app, identifier: "com.example.photos.export.b", completed: 1, total: 3)
        host.run(until: Time.seconds(61))
        host.engine.reportContinuedProgress(for: app, identifier: "com.example.photos.export.b", completed: 2, total: 3)
        let dump = try #require(host.engine.controllerDumps(of: app).first { $0.concern == "continued processing" }
                                as? ContinuedProcessingDump)
        #expect(dump.tasks.map(\.running) == [true, true, false])
        #expect(dump.tasks.map(\.stalled) == [true, false, false])
        let section = try #require(host.engine.explainSections(of: app).first { $0.heading.hasPrefix("continued processing of") })
        #expect(section.text == """
            continued processing of com.example.photos at 0d 00:01:01
              com.example.photos.export.a "Exporting a" — 3 items
                running; progress not reported; last moved 0d 00:00:01 — stalled: ended first under resource pressure
              com.example.photos.export.b "Exporting b" — 3 items
                running; progress 2 of 3; last moved 0d 00:01:01
              com.example.photos.export.c "Exporting c" — 3 items
                queued (strategy .queue): waiting for one of 2 slots

            """)
    }
}
