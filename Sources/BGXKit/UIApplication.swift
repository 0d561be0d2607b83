import BGXApp
import BGXCore
import BGXSimulation
import Foundation

/// `UIApplication`: BGXApp's `Application` (`shared`, `applicationState`,
/// `beginBackgroundTask(withName:expirationHandler:)`, `endBackgroundTask(_:)`,
/// `backgroundTimeRemaining`, `setMinimumBackgroundFetchInterval(_:)`,
/// `registerForRemoteNotifications()` …).
public typealias UIApplication = Application
/// `UIBackgroundTaskIdentifier`.
public typealias UIBackgroundTaskIdentifier = BackgroundTaskIdentifier
/// `UIBackgroundFetchResult`: `.newData`, `.noData`, `.failed`.
public typealias UIBackgroundFetchResult = BackgroundFetchResult

/// `UIBackgroundRefreshStatus`: whether the system lets the app refresh in the background.
public enum UIBackgroundRefreshStatus: Int, Sendable {
    /// Parental controls and the like; bgx's devices never restrict.
    case restricted
    /// The person turned Background App Refresh off, for the device or for this app.
    case denied
    case available
}

extension Application {
    /// `UIApplication.backgroundRefreshStatus`: Settings' Background App
    /// Refresh switches, the device's and the app's own.
    public var backgroundRefreshStatus: UIBackgroundRefreshStatus {
        guard let runtime = connection as? AppRuntime else { return .available }
        return runtime.backgroundAppRefreshAllowed ? .available : .denied
    }

    /// `UIApplication.shared.delegate`: the app's own delegate (the object
    /// the delegate factory made for this process), so
    /// `UIApplication.shared.delegate as? AppDelegate` finds it.
    public var delegate: UIApplicationDelegate? { (applicationDelegate as? UIKitDelegateBridge)?.delegate }

    /// `connectedScenes`: a scene-based app's window scene once the person
    /// has opened the app in this process; empty before, and always for an
    /// app without scenes.
    public var connectedScenes: Set<UIScene> {
        guard let scene = (applicationDelegate as? UIKitDelegateBridge)?.scene else { return [] }
        return [scene]
    }
    /// `openSessions`: the sessions of this process's scenes.
    public var openSessions: Set<UISceneSession> {
        Set((applicationDelegate as? UIKitDelegateBridge)?.sessions ?? [])
    }

    /// `beginReceivingRemoteControlEvents()`: the app wants the lock screen's
    /// and headphones' play/pause. Kept (`isReceivingRemoteControlEvents`);
    /// bgx sends no remote-control events, and whether audio keeps playing
    /// in the background depends on the audio session alone, as on iOS.
    public func beginReceivingRemoteControlEvents() { sharedObjects[ObjectIdentifier(RemoteControl.self)] = RemoteControl() }
    public func endReceivingRemoteControlEvents() { sharedObjects[ObjectIdentifier(RemoteControl.self)] = nil }
    /// bgx's own: whether the app asked for remote-control events in this process.
    public var isReceivingRemoteControlEvents: Bool { sharedObjects[ObjectIdentifier(RemoteControl.self)] != nil }

    /// `UIApplication.LaunchOptionsKey`: why the system launched the app,
    /// in the options `application(_:didFinishLaunchingWithOptions:)` receives.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A push launched the app; the value is the push's payload (`[AnyHashable: Any]`).
        public static let remoteNotification = LaunchOptionsKey("UIApplicationLaunchOptionsRemoteNotificationKey")
        /// Deprecated on iOS: the person tapped a local notification. In bgx the
        /// value is the notification request's identifier (`String`).
        public static let localNotification = LaunchOptionsKey("UIApplicationLaunchOptionsLocalNotificationKey")
        /// A location event (a significant change, a region) launched the app; the value is `true`.
        public static let location = LaunchOptionsKey("UIApplicationLaunchOptionsLocationKey")
        /// Core Bluetooth relaunched the app for a central manager; the value
        /// is the restore identifiers (`[String]`) of the central managers the
        /// system kept a connection for.
        public static let bluetoothCentrals = LaunchOptionsKey("UIApplicationLaunchOptionsBluetoothCentralsKey")
        /// As `bluetoothCentrals`, for peripheral managers that were advertising.
        public static let bluetoothPeripherals = LaunchOptionsKey("UIApplicationLaunchOptionsBluetoothPeripheralsKey")
        // Keys iOS sets for launches bgx does not model (opening a URL, a Home
        // Screen quick action, another app, Handoff): declared so code that reads
        // them compiles; bgx never sets them.
        public static let url = LaunchOptionsKey("UIApplicationLaunchOptionsURLKey")
        public static let sourceApplication = LaunchOptionsKey("UIApplicationLaunchOptionsSourceApplicationKey")
        public static let annotation = LaunchOptionsKey("UIApplicationLaunchOptionsAnnotationKey")
        public static let shortcutItem = LaunchOptionsKey("UIApplicationLaunchOptionsShortcutItemKey")
        public static let userActivityDictionary = LaunchOptionsKey("UIApplicationLaunchOptionsUserActivityDictionaryKey")
        public static let userActivityType = LaunchOptionsKey("UIApplicationLaunchOptionsUserActivityTypeKey")
    }

    /// The launch options iOS passes for a launch cause: nil for a plain
    /// launch by the person and for causes that have their own callback
    /// instead (a task, a fetch, a transfer, a VoIP push).
    static func launchOptions(for cause: LaunchCause, notification: String?,
                              bluetooth: (centrals: [String], peripherals: [String]) = ([], []))
        -> [LaunchOptionsKey: Any]? {
        if cause == .bluetooth {
            var options: [LaunchOptionsKey: Any] = [:]
            if !bluetooth.centrals.isEmpty || bluetooth.peripherals.isEmpty { options[.bluetoothCentrals] = bluetooth.centrals }
            if !bluetooth.peripherals.isEmpty { options[.bluetoothPeripherals] = bluetooth.peripherals }
            return options
        }
        return switch cause {
        case .silentPush: [.remoteNotification: ["aps": ["content-available": 1]] as [AnyHashable: Any]]
        case .notification: notification.map { [.localNotification: $0] }
        case .location, .region: [.location: true]
        case .user, .bluetooth, .bgTask, .fetch, .voipPush, .transfer, .accessory, .audio, .newsstand, .boot: nil
        }
    }

    // `UIApplication`'s notifications, posted on `NotificationCenter.default`
    // right after the delegate's method of the same moment returns; the
    // object is the `UIApplication`.
    public static let didFinishLaunchingNotification = Notification.Name("UIApplicationDidFinishLaunchingNotification")
    public static let didBecomeActiveNotification = Notification.Name("UIApplicationDidBecomeActiveNotification")
    public static let willResignActiveNotification = Notification.Name("UIApplicationWillResignActiveNotification")
    public static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    public static let willEnterForegroundNotification = Notification.Name("UIApplicationWillEnterForegroundNotification")
    public static let willTerminateNotification = Notification.Name("UIApplicationWillTerminateNotification")
    public static let didReceiveMemoryWarningNotification =
        Notification.Name("UIApplicationDidReceiveMemoryWarningNotification")

}

/// `UIResponder`, so that `class AppDelegate: UIResponder, UIApplicationDelegate`
/// compiles; bgx has no responder chain. Main-actor isolated, as in the SDK.
@preconcurrency @MainActor
open class UIResponder: NSObject {
    public override init() { super.init() }
}

/// The mark `beginReceivingRemoteControlEvents()` leaves in the process.
private final class RemoteControl {}
