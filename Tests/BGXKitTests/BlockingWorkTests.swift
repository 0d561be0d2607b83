import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Writes one item a second until cancelled, as a sync operation that
/// throttles itself does; it checks `isCancelled` between items.
final class ThrottledSyncOperation: Operation, @unchecked Sendable {
    let journal: Journal
    init(journal: Journal) { self.journal = journal }
    override func main() {
        for item in 1...100 {
            if isCancelled { return journal.write("stopped before item \(item)") }
            journal.write("item \(item)")
            Thread.sleep(forTimeInterval: 1)
        }
    }
}

/// A refresh whose operation outlives the task's 30 s: the expiration handler
/// (on the main thread, while the operation's thread sleeps) cancels it.
final class ThrottledSyncDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static let identifier = "com.example.throttled.refresh"
    let queue = OperationQueue()

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.identifier, using: nil) { task in
            let operation = ThrottledSyncOperation(journal: Self.journal)
            operation.completionBlock = { task.setTaskCompleted(success: !operation.isCancelled) }
            task.expirationHandler = {
                Self.journal.write("expired")
                self.queue.cancelAllOperations()
            }
            self.queue.addOperation(operation)
        }
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.identifier))
    }
}

/// Answers a background push after slow work on a global queue.
final class SlowPushDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    nonisolated(unsafe) static var seconds: TimeInterval = 40
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        let start = Date()
        DispatchQueue.global().async {
            Thread.sleep(forTimeInterval: Self.seconds)
            Self.journal.write("completion +\(since(start))")
            completionHandler(.newData)
        }
    }
}

/// Two blocks on one queue, each sleeping between two steps.
final class TwoBlocksDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static var attributes: DispatchQueue.Attributes = .concurrent
    let queue = DispatchQueue(label: "com.example.two-blocks", attributes: TwoBlocksDelegate.attributes)

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let start = Date()
        queue.async {
            Self.journal.write("A starts +\(since(start))")
            Thread.sleep(forTimeInterval: 2)
            Self.journal.write("A ends +\(since(start))")
        }
        queue.async {
            Self.journal.write("B starts +\(since(start))")
            Thread.sleep(forTimeInterval: 1)
            Self.journal.write("B ends +\(since(start))")
        }
        return true
    }
}

/// A background block waits on a semaphore another block signals after a sleep.
final class SemaphoreHandOffDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let start = Date()
        let ready = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = ready.wait(timeout: .now() + 60)
            Self.journal.write("waiter \(result == .success ? "signalled" : "timed out") +\(since(start))")
        }
        DispatchQueue.global().async {
            Thread.sleep(forTimeInterval: 5)
            Self.journal.write("signal +\(since(start))")
            ready.signal()
        }
        return true
    }
}

@Suite("BGXKit — app threads block and overlap in virtual time", .serialized)
struct BlockingWorkTests {
    /// Apple's documented push rules alone, so that the push is delivered at once.
    static func pushDevice() -> (SimulatedDevice, AppID) {
        var profile = PolicyProfile.modern
        profile.push.judgedByDasd = false
        let device = SimulatedDevice(profile: profile)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.slowpush",
                                             backgroundModes: [.remoteNotification])) { SlowPushDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        return (device, app)
    }

    @Test("An operation sleeping between items: the expiration handler runs while it sleeps, cancels it, and the task completes with false; nothing is killed")
    func expirationCancelsSleepingOperation() {
        ThrottledSyncDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.throttled", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [ThrottledSyncDelegate.identifier])) {
            ThrottledSyncDelegate()
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 30)
        #expect(device.simulateLaunch(app, identifier: ThrottledSyncDelegate.identifier))
        device.advance(seconds: 600)

        let entries = ThrottledSyncDelegate.journal.entries
        let items = entries.filter { $0.hasPrefix("item ") }.count
        #expect(entries.contains("expired"), "\(entries)")
        #expect(items >= 25 && items <= 35, "the operation stopped at the item after the expiration: \(entries)")
        #expect(entries.last == "stopped before item \(items + 1)", "\(entries)")
        let events = device.events(of: app)
        let completion = events.first { $0.kindName == "task.complete" }
        #expect(completion.map { "\(device.renderer.jsonLine($0))".contains("false") } == true,
                "\(device.traceLines.filter { $0.contains("task.") })")
        #expect(!events.contains { $0.kindName == "terminate" }, "\(device.traceLines.filter { $0.contains("terminate") })")
    }

    @Test("A push's completion called after a 20 s sleep on a global queue is stamped 20 s after the push")
    func completionStampedAfterSleep() {
        SlowPushDelegate.journal.entries = []
        SlowPushDelegate.seconds = 20
        let (device, app) = Self.pushDevice()
        device.push(Push(type: .background, priority: 5), to: app)
        device.advance(seconds: 120)
        #expect(SlowPushDelegate.journal.entries == ["completion +20"])
        let story = device.story(of: app, only: ["push.deliver", "push.complete", "terminate"])
        #expect(story == ["60 push.deliver", "80 push.complete"], "\(story)")
    }

    @Test("A push's completion 40 s after a sleep is too late: the 30 s watchdog ends the app at 30 s, while its thread sleeps")
    func watchdogFiresDuringSleep() {
        SlowPushDelegate.journal.entries = []
        SlowPushDelegate.seconds = 40
        let (device, app) = Self.pushDevice()
        device.push(Push(type: .background, priority: 5), to: app)
        device.advance(seconds: 120)
        let story = device.story(of: app, only: ["push.deliver", "push.complete", "terminate"])
        #expect(story == ["60 push.deliver", "90 terminate"], "\(story)")
        #expect(SlowPushDelegate.journal.entries.isEmpty, "the killed process's thread never wakes")
        // The app launches again afterwards, as a new process.
        device.perform(.launch(app))
        #expect(device.state(of: app) == .active)
    }

    @Test("A .concurrent queue's two blocks interleave at their sleeps; a serial queue's run one after the other")
    func concurrentQueueInterleaves() {
        for (attributes, expected) in [
            (DispatchQueue.Attributes.concurrent, ["A starts +0", "B starts +0", "B ends +1", "A ends +2"]),
            ([], ["A starts +0", "A ends +2", "B starts +2", "B ends +3"]),
        ] {
            TwoBlocksDelegate.journal.entries = []
            TwoBlocksDelegate.attributes = attributes
            let device = SimulatedDevice()
            let app = device.install(AppManifest(bundleIdentifier: "com.example.twoblocks")) { TwoBlocksDelegate() }
            device.perform(.launch(app))
            device.advance(seconds: 10)
            #expect(TwoBlocksDelegate.journal.entries == expected)
        }
    }

    @Test("A block waiting on a semaphore parks its thread until another block signals it, 5 virtual seconds later")
    func semaphoreHandOff() {
        SemaphoreHandOffDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.handoff")) { SemaphoreHandOffDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 120)
        #expect(SemaphoreHandOffDelegate.journal.entries == ["signal +5", "waiter signalled +5"])
    }

    @Test("Threads that sleep and wait: the same trace, byte for byte, run after run")
    func deterministic() {
        func run() -> [String] {
            ThrottledSyncDelegate.journal.entries = []
            let device = SimulatedDevice()
            let app = device.install(AppManifest(bundleIdentifier: "com.example.throttled", backgroundModes: [.fetch],
                                                 permittedTaskIdentifiers: [ThrottledSyncDelegate.identifier])) {
                ThrottledSyncDelegate()
            }
            let other = device.install(AppManifest(bundleIdentifier: "com.example.handoff")) { SemaphoreHandOffDelegate() }
            device.perform(.launch(app))
            device.perform(.home)
            device.perform(.launch(other))
            device.advance(seconds: 30)
            _ = device.simulateLaunch(app, identifier: ThrottledSyncDelegate.identifier)
            device.advance(seconds: 600)
            return device.traceLines + ThrottledSyncDelegate.journal.entries
        }
        let first = run()
        #expect(first.count > 20)
        for _ in 0..<3 { #expect(run() == first) }
    }
}

/// Starts a task at launch, as SwiftUI-era code does.
final class TaskAtLaunchDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let start = Date()
        Task {
            try? await Task.sleep(nanoseconds: 2_000_000_000)
            Self.journal.write("task +\(since(start))")
        }
        return true
    }
}

@Suite("BGXKit — Swift concurrency on app threads", .serialized)
struct TaskOnAppThreadTests {
    @Test("A process's first Task {} runs in virtual time and the trace says nothing is unsupported")
    func firstTaskLogsNothing() {
        TaskAtLaunchDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.firsttask")) { TaskAtLaunchDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        #expect(TaskAtLaunchDelegate.journal.entries == ["task +2"])
        let unsupported = device.traceLines.filter { $0.contains("not yet supported") }
        #expect(unsupported.isEmpty, "\(unsupported)")
    }
}

/// Starts a thread of its own for slow work, as older code does.
final class DetachedThreadDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let start = Date()
        Thread.detachNewThread {
            Self.journal.write("thread starts +\(since(start))")
            Thread.sleep(forTimeInterval: 3)
            Self.journal.write("thread ends +\(since(start))")
        }
        let worker = Thread {
            Self.journal.write("worker starts +\(since(start))")
            usleep(500_000)
            Self.journal.write("worker ends +\(since(start))")
        }
        worker.start()
        DispatchQueue.global().async { Self.journal.write("queue +\(since(start))") }
        Self.journal.write("launch returns +\(since(start))")
        return true
    }
}

@Suite("BGXKit — threads app code starts run in virtual time", .serialized)
struct AppStartedThreadTests {
    @Test("Thread.detachNewThread and Thread(block:).start(): each runs as an app thread, its sleeps in virtual time; nothing is logged as unsupported")
    func threadsSleepInVirtualTime() {
        DetachedThreadDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.threads")) { DetachedThreadDelegate() }
        let realStart = DeviceClock.realNow
        device.perform(.launch(app))
        device.advance(seconds: 10)
        #expect(DetachedThreadDelegate.journal.entries == [
            "launch returns +0", "thread starts +0", "worker starts +0", "queue +0", "worker ends +0.5", "thread ends +3",
        ])
        #expect(DeviceClock.realNow.timeIntervalSince(realStart) < 3, "the sleeps are not real ones")
        let unsupported = device.traceLines.filter { $0.contains("not yet supported") }
        #expect(unsupported.isEmpty, "\(unsupported)")
    }
}

/// Two blocks share a store behind an NSLock; one sleeps while holding it (a
/// slow write), the other must wait for it. A third waits on an NSCondition
/// until the writer says it is done.
final class LockedStoreDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    let lock = NSLock()
    let done = NSCondition()
    nonisolated(unsafe) var written = false

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let start = Date()
        DispatchQueue.global().async {
            self.lock.lock()
            Self.journal.write("writer holds the lock +\(since(start))")
            Thread.sleep(forTimeInterval: 4)
            self.lock.unlock()
            self.done.lock()
            self.written = true
            self.done.signal()
            self.done.unlock()
        }
        DispatchQueue.global().async {
            Thread.sleep(forTimeInterval: 1)
            self.lock.lock()
            Self.journal.write("reader got the lock +\(since(start))")
            self.lock.unlock()
        }
        DispatchQueue.global().async {
            self.done.lock()
            while !self.written { self.done.wait() }
            self.done.unlock()
            Self.journal.write("condition met +\(since(start))")
            self.done.lock()
            let timedOut = !self.done.wait(until: Date(timeIntervalSinceNow: 2))
            self.done.unlock()
            Self.journal.write("timed wait \(timedOut ? "timed out" : "signalled") +\(since(start))")
        }
        return true
    }
}

@Suite("BGXKit — locks and conditions across app threads", .serialized)
struct LockTests {
    @Test("NSLock held by a sleeping thread parks the next locker until it is let go; NSCondition waits park until signalled or their deadline, in virtual time")
    func lockHeldAcrossSleep() {
        LockedStoreDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.locks")) { LockedStoreDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 30)
        // Both waiters go on at +4, in the order they began waiting (the condition's at +0, the lock's at +1).
        #expect(LockedStoreDelegate.journal.entries == [
            "writer holds the lock +0", "condition met +4", "reader got the lock +4", "timed wait timed out +6",
        ])
    }
}

/// Puts more sleeping blocks on a global queue than libdispatch has threads for.
final class ManySleepersDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let start = Date()
        for i in 0..<100 {
            DispatchQueue.global().async {
                Thread.sleep(forTimeInterval: 1)
                if i == 0 || i == 63 || i == 64 || i == 99 { Self.journal.write("block \(i) ends +\(since(start))") }
            }
        }
        return true
    }
}

@Suite("BGXKit — an app's queues are served by at most 64 threads", .serialized)
struct ThreadLimitTests {
    @Test("100 blocks that each sleep 1 s: the first 64 sleep together, the rest wait for a thread, as with libdispatch's limit")
    func sixtyFourThreads() {
        ManySleepersDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.sleepers")) { ManySleepersDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        #expect(ManySleepersDelegate.journal.entries == ["block 0 ends +1", "block 63 ends +1", "block 64 ends +2", "block 99 ends +2"])
    }
}
