import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Observes leaving the screen on `NotificationCenter.default` from `didFinishLaunching`,
/// filtered by nothing or by its own application, and never removes the observer.
final class LeavingObserverDelegate: UIApplicationDelegate {
    nonisolated static let bundle = "com.example.leaving"
    nonisolated static let journal = Journal()
    nonisolated(unsafe) static var filtersByApplication = false
    nonisolated(unsafe) static var launches = 0
    /// The observers, for the test to remove (app code never does).
    nonisolated(unsafe) static var observers: [NSObjectProtocol] = []

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        Self.launches += 1
        let process = Self.launches
        Self.observers.append(NotificationCenter.default.addObserver(
            forName: UIApplication.didEnterBackgroundNotification, object: Self.filtersByApplication ? application : nil,
            queue: nil) { notification in
                // Other tests' apps post on the same center meanwhile: only this app's posts count.
                guard (notification.object as? UIApplication)?.bundleIdentifier == Self.bundle else { return }
                Self.journal.write("process \(process) heard it")
            })
        return true
    }
}

/// docs/bgxkit.md, "What virtual time does not cover yet": `NotificationCenter.default` is one
/// for the whole host, so an observer outlives the simulated process that added it. These tests
/// hold the documentation to what happens; a fix (a center per process) would fail the first.
@Suite("BGXKit — NotificationCenter.default is the host's: the documented limit and its way out", .serialized)
struct HostNotificationCenterTests {
    func twoProcesses(filtering: Bool) -> [String] {
        LeavingObserverDelegate.journal.entries = []
        LeavingObserverDelegate.filtersByApplication = filtering
        LeavingObserverDelegate.launches = 0
        defer {
            for observer in LeavingObserverDelegate.observers { NotificationCenter.default.removeObserver(observer) }
            LeavingObserverDelegate.observers = []
        }
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: LeavingObserverDelegate.bundle)) { LeavingObserverDelegate() }
        device.perform(.launch(app))
        device.perform(.forceQuit(app))   // process 1 ends; its observer stays on the host's center
        device.perform(.launch(app))
        device.perform(.home)
        return LeavingObserverDelegate.journal.entries
    }

    @Test("An observer added with object: nil outlives its process: a later process's didEnterBackgroundNotification reaches the ended process's block too (iOS: that process and its observers are gone)")
    func observerOutlivesItsProcess() {
        let heard = twoProcesses(filtering: false)
        #expect(heard.sorted() == ["process 1 heard it", "process 2 heard it"], "\(heard)")
    }

    @Test("Filtered by object: UIApplication.shared, only the process that is running hears its own notification")
    func filteredByTheApplication() {
        #expect(twoProcesses(filtering: true) == ["process 2 heard it"])
    }
}
