import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A refresh app whose launch handler works on the CPU for `work` seconds
/// before it completes; its expiration handler completes the task unsuccessfully.
final class BusyRefresher: ApplicationDelegate {
    static let id = "com.example.busy.refresh"
    let queue: DispatchQueue?
    let work: Double
    let journal: Journal
    init(queue: DispatchQueue?, work: Double, journal: Journal) {
        self.queue = queue
        self.work = work
        self.journal = journal
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.id, using: queue) { [journal, work] task in
            var done = false
            task.expirationHandler = {
                journal.write("expired")
                if !done { done = true; task.setTaskCompleted(success: false) }
            }
            Runtime.work(seconds: work)
            Runtime.asyncAfter(seconds: work) {   // the main queue, once the work is done
                journal.write("worked")
                if !done { done = true; task.setTaskCompleted(success: true) }
            }
        }
        return true
    }
    func applicationDidEnterBackground(_ application: Application) {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.id))
    }
    func applicationDidBecomeActive(_ application: Application) { journal.write("didBecomeActive") }
}

/// rules §5: launch handlers run on their queue. BGTaskScheduler.h: "queue: A
/// queue for executing the task. Pass nil to use a default background queue." [D]
/// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:)
@Suite("rules §5 — launch handlers run on their queue")
struct LaunchHandlerQueueTests {
    func refresher(queue: DispatchQueue?, work: Double) -> (SimulatedDevice, AppID, Journal) {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(feedManifest("com.example.busy", modes: [.fetch], permitted: [BusyRefresher.id])) {
            BusyRefresher(queue: queue, work: work, journal: journal)
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        return (device, app, journal)
    }

    @Test("rules §5 [D]: with using: nil the handler runs on the background queue, so the expiration handler runs at 25 s while it still works — no kill")
    func nilQueueLetsExpiryRunWhileWorking() {
        let (device, app, journal) = refresher(queue: nil, work: 60)
        #expect(device.simulateLaunch(app, identifier: BusyRefresher.id))
        device.advance(seconds: 120)
        #expect(device.details(of: app, only: ["callback"]).suffix(2) == [
            "60 callback name=bgTask identifier=\(BusyRefresher.id) queue=background",
            "85 callback name=bgTaskExpired identifier=\(BusyRefresher.id)",
        ])
        #expect(journal.entries.suffix(1) == ["expired"])
        #expect(device.terminations(of: app).isEmpty)
        #expect(device.details(of: app, only: ["task.complete"]) == ["85 task.complete identifier=\(BusyRefresher.id) success=false"])
        // The task's end lets the app be suspended; its background thread freezes mid-work.
        #expect(device.story(of: app, only: ["state"]).last == "85 state background→suspended (no assertions)")
    }

    @Test("rules §5 [D]: the queue passed is honoured — with .main the handler's work holds the main thread, the expiration handler waits, and the task is not completed in time")
    func mainQueueBlocksTheMainThread() {
        let (device, app, _) = refresher(queue: .main, work: 60)
        #expect(device.simulateLaunch(app, identifier: BusyRefresher.id))
        device.advance(seconds: 120)
        #expect(device.details(of: app, only: ["callback"]).last == "60 callback name=bgTask identifier=\(BusyRefresher.id)")
        #expect(device.terminations(of: app).map(\.reason) == ["taskNotCompleted"])
        #expect(device.terminations(of: app).first?.t == 90)
    }

    @Test("rules §5 [D]: the handler's work on the background queue does not hold the main thread: the person opens the app at once")
    func mainThreadStaysFree() {
        let (device, app, journal) = refresher(queue: nil, work: 20)
        #expect(device.simulateLaunch(app, identifier: BusyRefresher.id))
        device.advance(seconds: 5)
        device.perform(.launch(app))
        #expect(device.story(of: app, only: ["callback"]).suffix(2) == ["65 callback willEnterForeground", "65 callback didBecomeActive"])
        device.advance(seconds: 30)
        #expect(journal.entries.suffix(2) == ["didBecomeActive", "worked"])
        #expect(device.details(of: app, only: ["task.complete"]) == ["80 task.complete identifier=\(BusyRefresher.id) success=true"])
    }

    @Test("rules §5 [D]: in a scenario, a task handler's actions run on the background queue: its work leaves the main thread free and expire runs while it works")
    func scenarioTaskHandlerOnItsQueue() throws {
        let scenario = try ScenarioParser(file: "queue.yaml").parse("""
        duration: 1h
        apps:
          - bundle: com.example.sync
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.sync.refresh]
            on:
              didFinishLaunching:
                - register: com.example.sync.refresh
              didEnterBackground:
                - submit: {identifier: com.example.sync.refresh, type: appRefresh}
              task com.example.sync.refresh:
                - work: 1m
                - complete: true
              expire com.example.sync.refresh:
                - complete: false
        timeline:
          - {at: 1m, user: launch com.example.sync}
          - {at: 2m, user: home}
          - {at: 10m, debug: {simulateLaunch: com.example.sync.refresh}}
        """)
        let run = try ScenarioRun(scenario)
        run.run()
        let app = try #require(run.device.app("com.example.sync"))
        #expect(run.device.details(of: app, only: ["task.expire", "task.complete", "terminate"]) == [
            "625 task.expire identifier=com.example.sync.refresh",
            "625 task.complete identifier=com.example.sync.refresh success=false",
        ])
        #expect(run.device.details(of: app, only: ["callback"]).contains(
            "600 callback name=bgTask identifier=com.example.sync.refresh queue=background"))
    }
}
