import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Fetches with async/await from a BGTask launch handler, as current iOS code does.
final class AsyncRefreshDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static let identifier = "com.example.async.refresh"

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.identifier, using: nil) { task in
            let start = Date()
            // The handler is the main-actor delegate's closure, so the task runs on the main actor
            // between its awaits (`fetch` and the sleep run off it), as with iOS's own API.
            let work = Task {
                let items = await self.fetch()
                try await Task.sleep(for: .seconds(10))
                self.show(items, since: start)
                task.setTaskCompleted(success: true)
            }
            task.expirationHandler = { work.cancel() }
        }
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.identifier))
    }

    /// A completion-handler API bridged with a continuation; the response comes 3 s later.
    func fetch() async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) { continuation.resume(returning: ["a", "b"]) }
        }
    }

    @MainActor func show(_ items: [String], since start: Date) {
        Self.journal.write("show \(items.joined()) +\(since(start)) on main: \(UIApplication.shared.applicationState)")
    }
}

/// Sleeps with `Task.sleep(nanoseconds:)` when sent to the background, with no time asked for.
final class SleepingTaskDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidEnterBackground(_ application: UIApplication) {
        let start = Date()
        // Detached: a task on the generic executor (a plain `Task {}` here would inherit the
        // delegate's main actor, as on iOS).
        Task.detached {
            try? await Task.sleep(nanoseconds: 10_000_000_000)
            Self.journal.write("woke +\(since(start))")
        }
    }
}

@Suite("BGXKit — Swift concurrency in app code runs on the device's executors in virtual time", .serialized)
struct ConcurrencyTests {
    func refreshApp(_ device: SimulatedDevice) -> AppID {
        device.install(AppManifest(bundleIdentifier: "com.example.async", backgroundModes: [.fetch],
                                   permittedTaskIdentifiers: [AsyncRefreshDelegate.identifier])) { AsyncRefreshDelegate() }
    }

    @Test("Task {}, a continuation over a completion handler (3 s), Task.sleep(for: 10 s) and a @MainActor hop: setTaskCompleted lands 13 virtual seconds after the launch")
    func asyncRefreshCompletesInVirtualTime() {
        AsyncRefreshDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = refreshApp(device)
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 30)
        let started = device.nowSeconds
        #expect(device.simulateLaunch(app, identifier: AsyncRefreshDelegate.identifier))
        device.advance(seconds: 60)
        #expect(AsyncRefreshDelegate.journal.entries == ["show ab +13 on main: background"])
        let story = device.story(of: app, only: ["task.start", "task.complete"])
        #expect(story == ["\(Time.format(Time.seconds(started))) task.start",
                          "\(Time.format(Time.seconds(started + 13))) task.complete"], "\(story)")
    }

    @Test("Runs twice the same: the same trace, byte for byte")
    func deterministic() {
        func trace() -> [String] {
            let device = SimulatedDevice()
            let app = refreshApp(device)
            device.perform(.launch(app))
            device.perform(.home)
            _ = device.simulateLaunch(app, identifier: AsyncRefreshDelegate.identifier)
            device.advance(seconds: 60)
            return device.traceLines
        }
        let a = trace(), b = trace()
        #expect(a == b, "\(zip(a, b).filter { $0 != $1 }.prefix(4)) tail a: \(a.suffix(3)) tail b: \(b.suffix(3))")
    }

    @Test("rules §1: a suspended app's tasks are frozen: a task started as the app goes to the background starts at once, and its Task.sleep(10 s), ending while the app is suspended, goes on only when the app runs again; a killed app's never resumes")
    func frozenWhileSuspendedAndDroppedWhenKilled() {
        SleepingTaskDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.sleepy")) { SleepingTaskDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        #expect(SleepingTaskDelegate.journal.entries.isEmpty)
        device.perform(.launch(app))
        device.advance(seconds: 20)
        // The task's first job ran at 0, before the app was idle; its sleep ended at 10, frozen, and it went on at 100.
        #expect(SleepingTaskDelegate.journal.entries == ["woke +100"], "\(device.traceLines.joined(separator: "\n"))")

        device.perform(.home)   // sleeps again, then is killed
        device.perform(.forceQuit(app))
        device.perform(.launch(app))
        device.advance(seconds: 60)
        #expect(SleepingTaskDelegate.journal.entries == ["woke +100"])
    }
}
