import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Saves as it leaves the screen, in a main-actor `Task {}` (the delegate's isolation, inherited)
/// that holds a background task around its work — the pattern of apps that adopted async/await.
final class TaskHoldsAssertionDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidEnterBackground(_ application: UIApplication) {
        let start = Date()
        Task {
            let task = application.beginBackgroundTask(withName: "save") {}
            try? await Task.sleep(nanoseconds: 10_000_000_000)   // the save, off the main actor
            Self.journal.write("saved +\(since(start)) \(application.applicationState)")
            application.endBackgroundTask(task)
        }
    }
}

/// The background task begun in the callback, the sleep in a main-actor task it starts.
final class CallbackHoldsAssertionDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidEnterBackground(_ application: UIApplication) {
        let start = Date()
        let task = application.beginBackgroundTask(withName: "save") {}
        Task {
            try? await Task.sleep(nanoseconds: 10_000_000_000)
            Self.journal.write("saved +\(since(start)) \(application.applicationState)")
            application.endBackgroundTask(task)
        }
    }
}

/// The same main-actor task with nothing holding the app.
final class UnassertedSleepDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidEnterBackground(_ application: UIApplication) {
        let start = Date()
        Task {
            Self.journal.write("began +\(since(start))")
            try? await Task.sleep(nanoseconds: 10_000_000_000)
            Self.journal.write("woke +\(since(start))")
        }
    }
}

@Suite("BGXKit — a main-actor task begun as the app leaves runs before the app is suspended", .serialized)
struct AssertedTaskTests {
    /// The app's background-task story and when it was suspended, as `"seconds kind"`.
    func story(_ device: SimulatedDevice, _ app: AppID) -> [String] {
        device.events(of: app).compactMap { event in
            let seconds = Time.format(event.time)
            switch event.kind {
            case .state(_, .suspended, _): return "\(seconds) suspended"
            case .bgtaskBegin, .bgtaskEnd: return "\(seconds) \(event.kindName)"
            default: return nil
            }
        }
    }

    func leaveAndWait(_ install: (SimulatedDevice) -> AppID) -> (SimulatedDevice, AppID) {
        let device = SimulatedDevice()
        let app = install(device)
        device.perform(.launch(app))
        device.advance(seconds: 5)
        device.perform(.home)
        device.advance(seconds: 100)
        return (device, app)
    }

    @Test("A main-actor Task that begins a background task and sleeps 10 s: the task begins as the app leaves, the sleep ends 10 s later in the background, and the app is suspended when the task ends (bgx before: the app was suspended at once and the sleep began when it next ran)")
    func taskBeginsTheAssertion() {
        TaskHoldsAssertionDelegate.journal.entries = []
        let (device, app) = leaveAndWait {
            $0.install(AppManifest(bundleIdentifier: "com.example.taskholds")) { TaskHoldsAssertionDelegate() }
        }
        #expect(TaskHoldsAssertionDelegate.journal.entries == ["saved +10 background"],
                "\(device.traceLines.joined(separator: "\n"))")
        #expect(story(device, app) == ["5 bgtask.begin", "15 bgtask.end", "15 suspended"], "\(story(device, app))")
    }

    @Test("A background task begun in the callback, a main-actor Task's 10 s sleep under it: ends 10 s after the app left, then the app is suspended")
    func callbackBeginsTheAssertion() {
        CallbackHoldsAssertionDelegate.journal.entries = []
        let (device, app) = leaveAndWait {
            $0.install(AppManifest(bundleIdentifier: "com.example.callbackholds")) { CallbackHoldsAssertionDelegate() }
        }
        #expect(CallbackHoldsAssertionDelegate.journal.entries == ["saved +10 background"],
                "\(device.traceLines.joined(separator: "\n"))")
        #expect(story(device, app) == ["5 bgtask.begin", "15 bgtask.end", "15 suspended"], "\(story(device, app))")
    }

    @Test("With nothing holding the app, the sleep still starts as the app leaves; it ends while the app is suspended, and the task goes on the first time the app runs after that (bgx before: 10 s after it came back)")
    func sleepStartsAsTheAppLeaves() {
        UnassertedSleepDelegate.journal.entries = []
        let (device, app) = leaveAndWait {
            $0.install(AppManifest(bundleIdentifier: "com.example.unasserted")) { UnassertedSleepDelegate() }
        }
        #expect(UnassertedSleepDelegate.journal.entries == ["began +0"])
        #expect(story(device, app) == ["5 suspended"], "\(story(device, app))")
        device.perform(.launch(app))
        device.advance(seconds: 20)
        #expect(UnassertedSleepDelegate.journal.entries == ["began +0", "woke +100"],
                "\(device.traceLines.joined(separator: "\n"))")
    }

    @Test("Runs twice the same: the same trace, byte for byte")
    func deterministic() {
        func trace() -> [String] {
            let (device, app) = leaveAndWait {
                $0.install(AppManifest(bundleIdentifier: "com.example.taskholds")) { TaskHoldsAssertionDelegate() }
            }
            device.perform(.launch(app))
            device.advance(seconds: 20)
            return device.traceLines
        }
        #expect(trace() == trace())
    }
}
