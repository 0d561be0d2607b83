import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Traps on a push it cannot read, as code with a forced unwrap of a payload field does.
final class TrappingPushDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static var trapsOnPush = true
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        Self.journal.write("launched")
        return true
    }
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        if Self.trapsOnPush { readPayload(userInfo) }
        Self.journal.write("push handled")
        completionHandler(.noData)
    }
    func readPayload(_ userInfo: [AnyHashable: Any]) {
        let messageID = userInfo["message-id"] as? String
        guard messageID != nil else { fatalError("push without a message id") }
    }
}

/// Fails a dispatchPrecondition on a global queue, as code that expects the main queue does.
final class WrongQueueDelegate: UIApplicationDelegate {
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        DispatchQueue.global().async { dispatchPrecondition(condition: .onQueue(.main)) }
        return true
    }
}

/// Casts a stored value to the wrong type, as code reading an untyped cache does.
final class BadCastDelegate: UIApplicationDelegate {
    static var cached: [String: Any] = ["count": "three"]
    func applicationDidEnterBackground(_ application: UIApplication) {
        let count = Self.cached["count"]! as! Int
        Self.cached["count"] = count + 1
    }
}

@Suite("BGXKit — an app's crash is that app's", .serialized)
struct AppCrashTests {
    @Test("A trap in a push callback ends that app with a crash (the message and the app's frame); the other app and the test go on, and the app launches again")
    func trapInPushCallback() throws {
        TrappingPushDelegate.journal.entries = []
        TrappingPushDelegate.trapsOnPush = true
        var profile = PolicyProfile.modern
        profile.push.judgedByDasd = false
        let device = SimulatedDevice(profile: profile)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.trapping",
                                             backgroundModes: [.remoteNotification])) { TrappingPushDelegate() }
        let other = device.install(AppManifest(bundleIdentifier: "com.example.handoff")) { SemaphoreHandOffDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.push(Push(type: .background, priority: 5), to: app)
        device.advance(seconds: 10)

        let crash = try #require(device.traceLines.first { $0.contains("\"terminate\"") && $0.contains("crash") })
        #expect(crash.contains("push without a message id"), "\(crash)")
        #expect(crash.contains("TrappingPushDelegate.readPayload"), "the app's frame: \(crash)")
        #expect(device.state(of: app) == .notRunning)
        #expect(!TrappingPushDelegate.journal.entries.contains("push handled"))

        // The device and the other app go on.
        SemaphoreHandOffDelegate.journal.entries = []
        device.perform(.launch(other))
        device.advance(seconds: 10)
        #expect(SemaphoreHandOffDelegate.journal.entries == ["signal +5", "waiter signalled +5"])

        // The crashed app launches again, as a new process.
        TrappingPushDelegate.trapsOnPush = false
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.push(Push(type: .background, priority: 5), to: app)
        device.advance(seconds: 10)
        #expect(TrappingPushDelegate.journal.entries == ["launched", "launched", "push handled"])
        #expect(device.state(of: app) != .notRunning)
    }

    @Test("A failed dispatchPrecondition on a global queue is the app's crash, with libdispatch's message")
    func failedDispatchPrecondition() throws {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.wrongqueue")) { WrongQueueDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 1)
        let crash = try #require(device.traceLines.first { $0.contains("\"terminate\"") && $0.contains("crash") })
        #expect(crash.contains("Block was expected to execute on queue"), "\(crash)")
        #expect(device.state(of: app) == .notRunning)
    }

    @Test("A forced cast that fails is the app's crash, in the callback that made it")
    func badCast() throws {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.badcast")) { BadCastDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 1)
        let crash = try #require(device.traceLines.first { $0.contains("\"terminate\"") })
        #expect(crash.contains("\"crash\"") && crash.contains("Could not cast value of type 'Swift.String' to 'Swift.Int'"),
                "no addresses, which differ run to run: \(crash)")
        #expect(crash.contains("BadCastDelegate.applicationDidEnterBackground"), "\(crash)")
        device.perform(.launch(app))
        #expect(device.state(of: app) == .active)
    }

    @Test("A crash's trace is the same run after run")
    func crashTraceRepeats() {
        func run() -> [String] {
            let device = SimulatedDevice()
            let app = device.install(AppManifest(bundleIdentifier: "com.example.badcast")) { BadCastDelegate() }
            device.perform(.launch(app))
            device.perform(.home)
            device.advance(seconds: 1)
            return device.traceLines
        }
        let first = run()
        #expect(first.contains { $0.contains("\"crash\"") })
        #expect(run() == first)
    }
}
