import BGXCore
import Foundation

/// `UIBackgroundTaskIdentifier`.
public struct BackgroundTaskIdentifier: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `UIBackgroundTaskIdentifier.invalid`: running in the background is not possible.
    public static let invalid = BackgroundTaskIdentifier(rawValue: Engine.invalidBackgroundTask)
    public var description: String { "\(rawValue)" }
}

/// `UIApplication.LaunchOptionsKey` in its simplest useful form: why the
/// system launched the app.
public struct LaunchOptions: Sendable, Equatable {
    public var cause: LaunchCause
    /// `.localNotification`: the identifier of the notification whose tap launched the app.
    public var localNotification: String?
    public init(cause: LaunchCause, localNotification: String? = nil) {
        self.cause = cause
        self.localNotification = localNotification
    }
}

/// `UIApplicationDelegate`. Every method has a default that does nothing.
public protocol ApplicationDelegate: AnyObject {
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool
    func applicationDidBecomeActive(_ application: Application)
    func applicationWillResignActive(_ application: Application)
    func applicationDidEnterBackground(_ application: Application)
    func applicationWillEnterForeground(_ application: Application)
    func applicationWillTerminate(_ application: Application)
    /// A local notification arrived while the app was in front, or the user
    /// opened one — when no `UNUserNotificationCenterDelegate` is set.
    func application(_ application: Application, didReceiveLocalNotification identifier: String)
    /// Legacy background fetch (rules §6): call `completionHandler` within 30 s.
    func application(_ application: Application,
                     performFetchWithCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void)
    /// rules §10: memory is low; free what can be rebuilt, or jetsam may kill the app.
    func applicationDidReceiveMemoryWarning(_ application: Application)
    /// rules §8: a background session's transfers are done. Recreate the session with
    /// this identifier to receive its events; call `completionHandler` after
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
    func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void)
    /// A background push (`content-available`), or any push while the app is
    /// in front (rules §7). In the background: call `completionHandler` within
    /// 30 s, or the app is terminated.
    func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void)
    /// The answer to `registerForRemoteNotifications()`.
    func application(_ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data)
}

extension ApplicationDelegate {
    public func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool { true }
    public func applicationDidBecomeActive(_ application: Application) {}
    public func applicationWillResignActive(_ application: Application) {}
    public func applicationDidEnterBackground(_ application: Application) {}
    public func applicationWillEnterForeground(_ application: Application) {}
    public func applicationWillTerminate(_ application: Application) {}
    public func application(_ application: Application, didReceiveLocalNotification identifier: String) {}
    public func application(_ application: Application,
                            performFetchWithCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        completionHandler(.noData)
    }
    public func applicationDidReceiveMemoryWarning(_ application: Application) {}
    public func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                            completionHandler: @escaping () -> Void) {}
    public func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                            fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        completionHandler(.noData)
    }
    public func application(_ application: Application,
                            didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {}
}

/// `UIApplication`: the app's view of the system. One per process.
public final class Application {
    /// `UIApplication.State`: the app sees only these three.
    public enum State: Sendable, Equatable { case active, inactive, background }

    /// The application whose code is running now.
    public static var shared: Application {
        guard let current = ProcessContext.running else {
            preconditionFailure("Application.shared used outside app code run by a device")
        }
        return current
    }

    public let connection: SystemConnection
    public let bundleIdentifier: String
    /// What the system calls: the app's delegate, or the adapter a host
    /// wraps around it (BGXKit's `UIApplication.delegate` is the app's own).
    public private(set) var applicationDelegate: ApplicationDelegate?
    /// The host sets the delegate once it exists: the delegate's `init` may
    /// already use `Application.shared` (SwiftUI's `App.init()` pattern).
    public func attachDelegate(_ delegate: ApplicationDelegate) { applicationDelegate = delegate }
    /// The process's service objects, which the system's events reach (rules §4).
    var locationManagers: [LocationManager] = []
    var accessorySessions: [AccessorySession] = []
    var centralManagers: [CentralManager] = []
    var peripheralManagers: [PeripheralManager] = []
    lazy var audioSession = AudioSession(connection: connection)
    /// This process's `UNUserNotificationCenter`.
    public private(set) lazy var userNotificationCenter = UNUserNotificationCenter(connection: connection)
    /// Frameworks' per-process shared objects made outside BGXApp (BGXKit's
    /// `EAAccessoryManager.shared()`), by type: a new process makes its own.
    public var sharedObjects: [ObjectIdentifier: AnyObject] = [:]
    /// How many `UILocalNotification`s this process has presented (each gets its own identifier).
    var presentedLocalNotifications = 0
    /// The observers app code of this process added to notification centers.
    let observers = ProcessObservers()

    public init(bundleIdentifier: String, connection: SystemConnection, delegate: ApplicationDelegate?) {
        self.bundleIdentifier = bundleIdentifier
        self.connection = connection
        applicationDelegate = delegate
    }

    public var applicationState: State {
        switch connection.processState {
        case .active: .active
        case .inactive: .inactive
        case .background, .suspended, .notRunning: .background
        }
    }

    /// rules §2: marks the start of work that should continue in the background.
    /// Returns `.invalid` when running in the background is not possible.
    public func beginBackgroundTask(withName name: String? = nil,
                                    expirationHandler: (() -> Void)? = nil) -> BackgroundTaskIdentifier {
        BackgroundTaskIdentifier(rawValue: connection.beginBackgroundTask(name: name, expirationHandler: expirationHandler))
    }

    public func beginBackgroundTask(expirationHandler: (() -> Void)?) -> BackgroundTaskIdentifier {
        beginBackgroundTask(withName: nil, expirationHandler: expirationHandler)
    }

    /// Every begin must be balanced by an end with the same identifier.
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) {
        connection.endBackgroundTask(identifier.rawValue)
    }

    /// Seconds left before the system ends the app's background time;
    /// `Double.greatestFiniteMagnitude` in the foreground or with no task open.
    public var backgroundTimeRemaining: TimeInterval { connection.backgroundTimeRemaining }

    /// `UIApplicationBackgroundFetchIntervalMinimum` / `…Never`.
    public static let backgroundFetchIntervalMinimum: TimeInterval = 0
    public static let backgroundFetchIntervalNever: TimeInterval = .greatestFiniteMagnitude

    /// rules §6: the default is never.
    public func setMinimumBackgroundFetchInterval(_ interval: TimeInterval) {
        connection.setMinimumBackgroundFetchInterval(
            seconds: interval == Application.backgroundFetchIntervalNever ? nil : interval)
    }

    /// Asks for a device token; the delegate gets it shortly after (pushes
    /// reach the app whether or not it asked: the scenario plays the server).
    public func registerForRemoteNotifications() {
        isRegisteredForRemoteNotifications = true
        let token = Data(bundleIdentifier.utf8.prefix(32))
        connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self else { return }
            self.applicationDelegate?.application(self, didRegisterForRemoteNotificationsWithDeviceToken: token)
        }
    }
    public private(set) var isRegisteredForRemoteNotifications = false

    /// rules §4 (legacy VoIP): runs `handler` every `timeout` seconds while
    /// the app is in the background. Less than 600 s, or no `voip` mode:
    /// not installed, returns false.
    @discardableResult
    public func setKeepAliveTimeout(_ timeout: TimeInterval, handler: @escaping () -> Void) -> Bool {
        connection.setKeepAliveTimeout(seconds: timeout, handler: handler)
    }
    public func clearKeepAliveTimeout() { connection.clearKeepAliveTimeout() }

    /// The number on the app's icon, set by delivered notifications (rules §9).
    public var applicationIconBadgeNumber: Int {
        get { connection.badgeNumber }
        set { connection.badgeNumber = newValue }
    }

    /// `exit(0)`: the process ends (trace reason `exit`).
    public func exit() { connection.exit() }

    /// rules §10: what the UI shows now. The app-switcher snapshot, taken when
    /// `applicationDidEnterBackground` returns, captures it: hide sensitive
    /// content (a privacy overlay) before returning.
    public var isSensitiveContentVisible: Bool {
        get { connection.isSensitiveContentVisible }
        set { connection.isSensitiveContentVisible = newValue }
    }

    /// `requestSceneSessionRefresh(_:)`: in the background, the app-switcher
    /// snapshot is taken again, showing what the UI shows now.
    public func requestSceneSessionRefresh() { connection.requestSnapshotRefresh() }

    /// As `UIDocument.hasUnsavedChanges`: the person's work not yet saved.
    /// Setting it to false saves (traced `changes.save`); a process that ends
    /// with it true loses the work (traced `changes.lost`).
    public var hasUnsavedChanges: Bool {
        get { connection.hasUnsavedChanges }
        set { connection.hasUnsavedChanges = newValue }
    }
}

/// The device's own time and executor, for code that must run in virtual
/// time: `Date()` becomes `Runtime.now`, `DispatchQueue.main.asyncAfter`
/// becomes `Runtime.asyncAfter`, and CPU-heavy work is modelled explicitly.
public enum Runtime {
    public static var now: Date { Application.shared.connection.now }
    public static func asyncAfter(seconds: Double, execute body: @escaping () -> Void) {
        Application.shared.connection.asyncAfter(seconds: seconds, body)
    }
    public static func async(execute body: @escaping () -> Void) {
        Application.shared.connection.asyncAfter(seconds: 0, body)
    }
    /// Keeps the main thread busy for `seconds` of virtual time: it counts
    /// toward watchdogs, and nothing else runs on the main thread meanwhile.
    public static func work(seconds: Double) {
        Application.shared.connection.work(seconds: seconds)
    }
    /// Grows (negative: shrinks) the app's resident footprint (rules §10).
    /// Past the per-process limit the app is killed at once; low free memory
    /// brings memory warnings, then jetsam.
    public static func allocate(bytes: Int64) {
        Application.shared.connection.allocate(bytes: bytes)
    }
    /// Submits GPU work (Metal / OpenGL ES). In the background the app is
    /// killed at once (rules §10, `gpuInBackground`).
    public static func useGPU() {
        Application.shared.connection.useGPU()
    }
}
