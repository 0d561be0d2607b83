import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// A coordinator that follows the app's state through `UIApplication`'s notifications, written in
/// the closure form that replaces `addObserver(_:selector:name:object:)` and `@objc` methods
/// (no Objective-C runtime on Linux): `queue: nil`, and `MainActor.assumeIsolated` to call back
/// into main-actor code, as the selector form did.
final class StateCoordinator {
    nonisolated static let journal = Journal()
    /// The device's start, so entries read in seconds from it.
    nonisolated(unsafe) static var start = Date(timeIntervalSince1970: 0)
    /// Every observer made, for the test to remove (app code keeps them for the process's life).
    nonisolated(unsafe) static var observers: [NSObjectProtocol] = []
    static func at() -> Int { Int(Date().timeIntervalSince(start)) }

    init() {
        let center = NotificationCenter.default
        let names: [(Notification.Name, String)] = [
            (UIApplication.willResignActiveNotification, "willResignActive"),
            (UIApplication.didEnterBackgroundNotification, "didEnterBackground"),
            (UIApplication.willEnterForegroundNotification, "willEnterForeground"),
            (UIApplication.didBecomeActiveNotification, "didBecomeActive"),
        ]
        for (name, said) in names {
            Self.observers.append(center.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                guard (note.object as? UIApplication)?.bundleIdentifier == "com.example.selectorform" else { return }
                MainActor.assumeIsolated { self?.heard(said) }
            })
        }
    }

    @MainActor func heard(_ what: String) {
        Self.journal.write("observer \(what) at \(Self.at())")
    }
}

final class SelectorFormAppDelegate: UIApplicationDelegate {
    var coordinator: StateCoordinator?
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        coordinator = StateCoordinator()
        return true
    }
    func applicationDidEnterBackground(_ application: UIApplication) {
        StateCoordinator.journal.write("delegate didEnterBackground at \(StateCoordinator.at())")
    }
}

@Suite("BGXKit — the closure form of a #selector observer", .serialized)
struct SelectorObserverFormTests {
    @Test("Observers added with queue: nil run inside the post, right after the delegate's method, at its instant, on the main thread (MainActor.assumeIsolated holds)")
    func closureForm() {
        StateCoordinator.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.selectorform")) { SelectorFormAppDelegate() }
        StateCoordinator.start = device.startDate
        defer {
            for o in StateCoordinator.observers { NotificationCenter.default.removeObserver(o) }
            StateCoordinator.observers = []
        }
        device.perform(.launch(app))
        device.advance(seconds: 60)
        device.perform(.home)
        device.advance(seconds: 60)
        device.perform(.launch(app))
        #expect(StateCoordinator.journal.entries == [
            "observer didBecomeActive at 0",
            "observer willResignActive at 60",
            "delegate didEnterBackground at 60",
            "observer didEnterBackground at 60",
            "observer willEnterForeground at 120",
            "observer didBecomeActive at 120",
        ])
        #expect(!device.traceLines.contains { $0.contains("\"crash\"") })
    }
}
