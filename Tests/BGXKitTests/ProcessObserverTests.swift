import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Observes leaving the screen on `NotificationCenter.default` from `didFinishLaunching`,
/// filtered by nothing, by its own application or by a value, and never removes the observer.
final class LeavingObserverDelegate: UIApplicationDelegate {
    enum Filter { case none, application, value }
    nonisolated static let bundle = "com.example.leaving"
    nonisolated static let journal = Journal()
    nonisolated(unsafe) static var filter = Filter.none
    nonisolated(unsafe) static var launches = 0
    /// The observers, for the test to remove (app code never does).
    nonisolated(unsafe) static var observers: [NSObjectProtocol] = []

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        Self.launches += 1
        let process = Self.launches
        let block: @Sendable (Notification) -> Void = { notification in
            // Other tests' apps post on the same center meanwhile: only this app's posts count.
            guard (notification.object as? UIApplication)?.bundleIdentifier == Self.bundle
                    || notification.object as? Int == 7 else { return }
            Self.journal.write("process \(process) heard it")
        }
        let name = UIApplication.didEnterBackgroundNotification
        let center = NotificationCenter.default
        let observer = switch Self.filter {
        case .none: center.addObserver(forName: name, object: nil, queue: nil, using: block)
        case .application: center.addObserver(forName: name, object: application, queue: nil, using: block)
        case .value: center.addObserver(forName: name, object: 7, queue: nil, using: block)
        }
        Self.observers.append(observer)
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        if Self.filter == .value { NotificationCenter.default.post(name: UIApplication.didEnterBackgroundNotification, object: 7) }
    }
}

/// An observer app code adds to `NotificationCenter.default` (one for the whole host) is its
/// process's, and goes with it, as on iOS — where the device can see it (docs/bgxkit.md).
@Suite("BGXKit — app code's observers on NotificationCenter.default end with their process", .serialized)
struct ProcessObserverTests {
    func twoProcesses(_ filter: LeavingObserverDelegate.Filter) -> [String] {
        LeavingObserverDelegate.journal.entries = []
        LeavingObserverDelegate.filter = filter
        LeavingObserverDelegate.launches = 0
        defer {
            for observer in LeavingObserverDelegate.observers { NotificationCenter.default.removeObserver(observer) }
            LeavingObserverDelegate.observers = []
        }
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: LeavingObserverDelegate.bundle)) { LeavingObserverDelegate() }
        device.perform(.launch(app))
        device.perform(.forceQuit(app))   // process 1 ends
        device.perform(.launch(app))
        device.perform(.home)
        return LeavingObserverDelegate.journal.entries
    }

    @Test("An observer added with object: nil ends with its process: a later process's didEnterBackgroundNotification reaches only the later process's block (bgx before: the ended process's too)")
    func observerEndsWithItsProcess() {
        #expect(twoProcesses(.none) == ["process 2 heard it"])
    }

    @Test("Filtered by object: UIApplication.shared: only the process that is running hears its own notification")
    func filteredByTheApplication() {
        #expect(twoProcesses(.application) == ["process 2 heard it"])
    }

    @Test("The documented limit: an observer whose object is a value (here 7) goes to Foundation's own method, which bgx cannot see, and outlives its process")
    func valueObjectOutlivesItsProcess() {
        #expect(twoProcesses(.value).sorted() == ["process 1 heard it", "process 2 heard it"])
    }
}
