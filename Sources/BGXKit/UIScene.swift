import BGXApp
import Foundation

// UIKit's scenes (iOS 13+), the part that decides an app's lifecycle: a
// scene-based app hears of the foreground and the background through its
// scene delegate, not its app delegate. bgx runs one window scene per app,
// connected when the app first comes to the front. See docs/bgxkit.md,
// "Scenes", for the order of the calls.

/// `UISceneSession`: the system's record of a scene (it outlives the scene object).
@preconcurrency @MainActor
public final class UISceneSession: NSObject {
    /// `UISceneSession.Role`.
    public struct Role: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let windowApplication = Role(rawValue: "UIWindowSceneSessionRoleApplication")
        public static let windowExternalDisplayNonInteractive = Role(rawValue: "UIWindowSceneSessionRoleExternalDisplayNonInteractive")
    }
    public let role: Role
    public let persistentIdentifier: String
    public internal(set) var configuration: UISceneConfiguration
    public internal(set) weak var scene: UIScene?
    public var userInfo: [String: Any]?

    init(role: Role, persistentIdentifier: String) {
        self.role = role
        self.persistentIdentifier = persistentIdentifier
        configuration = UISceneConfiguration(name: nil, sessionRole: role)
    }
}

/// `UISceneConfiguration`: what `application(_:configurationForConnecting:options:)` returns.
@preconcurrency @MainActor
open class UISceneConfiguration: NSObject {
    public let name: String?
    public let role: UISceneSession.Role
    /// The scene delegate's class. bgx cannot make an object from a class
    /// (Linux has no Objective-C runtime): the scene delegate comes from the
    /// factory given when the app is installed (Info.plist's
    /// `UISceneDelegateClassName` plays that part on iOS), and a class named
    /// here must be that delegate's class.
    public var delegateClass: AnyClass?
    public var sceneClass: AnyClass?
    public init(name: String?, sessionRole: UISceneSession.Role) {
        self.name = name
        role = sessionRole
    }
}

/// `UIScene`.
@preconcurrency @MainActor
open class UIScene: UIResponder {
    /// `UIScene.ActivationState`.
    public enum ActivationState: Int, Sendable {
        case unattached = -1, foregroundActive = 0, foregroundInactive, background
    }
    /// `UIScene.ConnectionOptions`: what the scene was connected for. bgx's
    /// scenes connect when the person opens the app, so it is empty.
    public final class ConnectionOptions: NSObject {
        override init() { super.init() }
    }

    public let session: UISceneSession
    public internal(set) var activationState: ActivationState = .unattached
    /// Held strongly, as UIKit does.
    public var delegate: UISceneDelegate?
    public var title: String = ""

    public init(session: UISceneSession, connectionOptions: ConnectionOptions) {
        self.session = session
        super.init()
    }

    // Posted on `NotificationCenter.default`, object the scene, right after
    // the scene delegate's method of the same moment returns.
    nonisolated public static let willConnectNotification = Notification.Name("UISceneWillConnectNotification")
    nonisolated public static let didDisconnectNotification = Notification.Name("UISceneDidDisconnectNotification")
    nonisolated public static let didActivateNotification = Notification.Name("UISceneDidActivateNotification")
    nonisolated public static let willDeactivateNotification = Notification.Name("UISceneWillDeactivateNotification")
    nonisolated public static let willEnterForegroundNotification = Notification.Name("UISceneWillEnterForegroundNotification")
    nonisolated public static let didEnterBackgroundNotification = Notification.Name("UISceneDidEnterBackgroundNotification")
}

/// `UIWindowScene`: the kind of scene bgx connects.
@preconcurrency @MainActor
open class UIWindowScene: UIScene {
    /// bgx has no windows.
    public var windows: [UIWindow] { [] }
}

/// `UIWindow`, declared so a scene delegate's `var window: UIWindow?`
/// compiles. bgx runs no UI: it never makes one, and offers no way to.
@preconcurrency @MainActor
public final class UIWindow: UIResponder {
    private override init() { super.init() }
}

/// `UISceneDelegate`. Every method is optional.
@preconcurrency @MainActor
public protocol UISceneDelegate: AnyObject {
    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions)
    func sceneDidDisconnect(_ scene: UIScene)
    func sceneDidBecomeActive(_ scene: UIScene)
    func sceneWillResignActive(_ scene: UIScene)
    func sceneWillEnterForeground(_ scene: UIScene)
    func sceneDidEnterBackground(_ scene: UIScene)
}

extension UISceneDelegate {
    public func scene(_ scene: UIScene, willConnectTo session: UISceneSession,
                      options connectionOptions: UIScene.ConnectionOptions) {}
    public func sceneDidDisconnect(_ scene: UIScene) {}
    public func sceneDidBecomeActive(_ scene: UIScene) {}
    public func sceneWillResignActive(_ scene: UIScene) {}
    public func sceneWillEnterForeground(_ scene: UIScene) {}
    public func sceneDidEnterBackground(_ scene: UIScene) {}
}

/// `UIWindowSceneDelegate`.
@preconcurrency @MainActor
public protocol UIWindowSceneDelegate: UISceneDelegate {
    var window: UIWindow? { get set }
}

extension UIWindowSceneDelegate {
    /// Optional, as in UIKit: a delegate without the property has no window.
    public var window: UIWindow? {
        get { nil }
        set {}
    }
}
