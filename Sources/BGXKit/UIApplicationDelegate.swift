import BGXApp
import BGXCore
import Foundation

/// `UIApplicationDelegate`, with UIKit's signatures. Every method has a
/// default, as UIKit's optional methods do. Main-actor isolated, as in the
/// SDK (`@preconcurrency`: code not checked for concurrency, in Swift 5
/// mode, uses it as before).
@preconcurrency @MainActor
public protocol UIApplicationDelegate: AnyObject {
    func application(_ application: UIApplication,
                     willFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
    func applicationDidBecomeActive(_ application: UIApplication)
    func applicationWillResignActive(_ application: UIApplication)
    func applicationDidEnterBackground(_ application: UIApplication)
    func applicationWillEnterForeground(_ application: UIApplication)
    func applicationWillTerminate(_ application: UIApplication)
    func applicationDidReceiveMemoryWarning(_ application: UIApplication)
    /// Legacy background fetch: call `completionHandler` within 30 s.
    func application(_ application: UIApplication,
                     performFetchWithCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void)
    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void)
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void)
    func application(_ application: UIApplication,
                     didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data)
    /// Declared so code that implements it compiles; bgx's registration never fails.
    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: Error)
    /// A scene is connecting (scene-based apps, see `UISceneDelegate`).
    func application(_ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
                     options: UIScene.ConnectionOptions) -> UISceneConfiguration
    /// Declared so code that implements it compiles; bgx never discards a session.
    func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>)
}

extension UIApplicationDelegate {
    public func application(_ application: UIApplication,
                            willFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        true
    }
    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        true
    }
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    public func applicationWillResignActive(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
    public func applicationWillEnterForeground(_ application: UIApplication) {}
    public func applicationWillTerminate(_ application: UIApplication) {}
    public func applicationDidReceiveMemoryWarning(_ application: UIApplication) {}
    public func application(_ application: UIApplication,
                            performFetchWithCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        completionHandler(.noData)
    }
    public func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                            completionHandler: @escaping () -> Void) {}
    public func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        completionHandler(.noData)
    }
    public func application(_ application: UIApplication,
                            didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {}
    public func application(_ application: UIApplication,
                            didFailToRegisterForRemoteNotificationsWithError error: Error) {}
    /// As when the Info.plist's scene manifest names the configuration.
    public func application(_ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
                            options: UIScene.ConnectionOptions) -> UISceneConfiguration {
        UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
    }
    public func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>) {}

    /// What `@main` (and `@UIApplicationMain`) calls on iOS: `UIApplicationMain`.
    /// bgx runs an app only on a device (`SimulatedDevice.install`, the live
    /// host's `LiveApplication.main`), so an executable started this way says
    /// so and exits with status 2.
    public static func main() {
        FileHandle.standardError.write(Data(("not yet supported: running \(Self.self) from its @main entry point; "
            + "install it on a SimulatedDevice or run it under the live host (docs/bgxkit.md)\n").utf8))
        Foundation.exit(2)
    }
}

/// Runs a `UIApplicationDelegate` on BGXApp's delegate path: it turns BGXApp's
/// launch cause into UIKit's launch options, calls `willFinishLaunching`
/// before `didFinishLaunching`, posts `UIApplication`'s notifications after
/// each lifecycle method, and, for a scene-based app, runs its scene.
final class UIKitDelegateBridge: ApplicationDelegate {
    let delegate: UIApplicationDelegate
    /// Makes the scene delegate of a scene-based app (nil: the app has no scenes).
    let makeSceneDelegate: (() -> UISceneDelegate)?
    /// The app's one window scene, once connected.
    private(set) var scene: UIWindowScene?
    private(set) var sessions: [UISceneSession] = []
    /// Says something in the trace (the device's log), where the host has one.
    var log: (String) -> Void = { _ in }

    init(_ delegate: UIApplicationDelegate, sceneDelegate: (() -> UISceneDelegate)? = nil) {
        self.delegate = delegate
        makeSceneDelegate = sceneDelegate
    }

    private func post(_ name: Notification.Name, _ object: AnyObject, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: object, userInfo: userInfo)
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let launchOptions = options.flatMap {
            Application.launchOptions(for: $0.cause, notification: $0.localNotification,
                                      bluetooth: (application.connection.restoreIdentifiers(peripheral: false),
                                                  application.connection.restoreIdentifiers(peripheral: true)))
        }
        let result = onMainActor {
            _ = delegate.application(application, willFinishLaunchingWithOptions: launchOptions)
            return delegate.application(application, didFinishLaunchingWithOptions: launchOptions)
        }
        post(Application.didFinishLaunchingNotification, application,
             userInfo: launchOptions.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.key.rawValue, $0.value) }) })
        return result
    }

    // MARK: The lifecycle: the scene's, or the app delegate's

    /// The app came to the front: a scene-based app connects its scene the
    /// first time (iOS connects none for a launch into the background).
    private func connectScene(_ application: Application) -> UIWindowScene? {
        if let scene { return scene }
        guard let makeSceneDelegate else { return nil }
        return onMainActor {
            let session = UISceneSession(role: .windowApplication, persistentIdentifier: "\(application.bundleIdentifier).scene-1")
            let options = UIScene.ConnectionOptions()
            let configuration = delegate.application(application, configurationForConnecting: session, options: options)
            session.configuration = configuration
            let sceneDelegate = makeSceneDelegate()
            if let named = configuration.delegateClass, ObjectIdentifier(named) != ObjectIdentifier(type(of: sceneDelegate)) {
                log("not yet supported: a scene configuration whose delegateClass (\(named)) is not the scene delegate "
                    + "the app was installed with (\(type(of: sceneDelegate))); bgx uses the installed one")
            }
            let scene = UIWindowScene(session: session, connectionOptions: options)
            scene.delegate = sceneDelegate
            session.scene = scene
            sessions.append(session)
            self.scene = scene
            scene.activationState = .background
            sceneDelegate.scene(scene, willConnectTo: session, options: options)
            post(UIScene.willConnectNotification, scene)
            return scene
        }
    }

    /// sceneWillEnterForeground, unless the scene is in front already.
    private func sceneWillEnterForeground(_ scene: UIWindowScene) {
        onMainActor {
            guard scene.activationState == .background else { return }
            scene.activationState = .foregroundInactive
            scene.delegate?.sceneWillEnterForeground(scene)
            post(UIScene.willEnterForegroundNotification, scene)
        }
    }

    func applicationWillEnterForeground(_ application: Application) {
        if let scene = connectScene(application) {
            sceneWillEnterForeground(scene)
        } else {
            onMainActor { delegate.applicationWillEnterForeground(application) }
        }
        post(Application.willEnterForegroundNotification, application)
    }
    func applicationDidBecomeActive(_ application: Application) {
        if let scene = connectScene(application) {
            // A launch into the front: the scene enters the foreground first, and the app with it.
            if scene.activationState == .background {
                sceneWillEnterForeground(scene)
                post(Application.willEnterForegroundNotification, application)
            }
            onMainActor {
                scene.activationState = .foregroundActive
                scene.delegate?.sceneDidBecomeActive(scene)
                post(UIScene.didActivateNotification, scene)
            }
        } else {
            onMainActor { delegate.applicationDidBecomeActive(application) }
        }
        post(Application.didBecomeActiveNotification, application)
    }
    func applicationWillResignActive(_ application: Application) {
        if let scene {
            onMainActor {
                scene.activationState = .foregroundInactive
                scene.delegate?.sceneWillResignActive(scene)
                post(UIScene.willDeactivateNotification, scene)
            }
        } else if makeSceneDelegate == nil {
            onMainActor { delegate.applicationWillResignActive(application) }
        }
        post(Application.willResignActiveNotification, application)
    }
    func applicationDidEnterBackground(_ application: Application) {
        if let scene {
            onMainActor {
                scene.activationState = .background
                scene.delegate?.sceneDidEnterBackground(scene)
                post(UIScene.didEnterBackgroundNotification, scene)
            }
        } else if makeSceneDelegate == nil {
            onMainActor { delegate.applicationDidEnterBackground(application) }
        }
        post(Application.didEnterBackgroundNotification, application)
    }
    /// A scene-based app's scene disconnects first; the app delegate still
    /// hears of the termination, as on iOS.
    func applicationWillTerminate(_ application: Application) {
        if let scene {
            onMainActor {
                scene.activationState = .unattached
                scene.delegate?.sceneDidDisconnect(scene)
                post(UIScene.didDisconnectNotification, scene)
            }
            self.scene = nil
        }
        onMainActor { delegate.applicationWillTerminate(application) }
        post(Application.willTerminateNotification, application)
    }

    // MARK: The rest goes to the app delegate

    func applicationDidReceiveMemoryWarning(_ application: Application) {
        onMainActor { delegate.applicationDidReceiveMemoryWarning(application) }
        post(Application.didReceiveMemoryWarningNotification, application)
    }
    func application(_ application: Application,
                     performFetchWithCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        onMainActor { delegate.application(application, performFetchWithCompletionHandler: completionHandler) }
    }
    func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        onMainActor {
            delegate.application(application, handleEventsForBackgroundURLSession: identifier,
                                 completionHandler: completionHandler)
        }
    }
    func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        onMainActor {
            delegate.application(application, didReceiveRemoteNotification: userInfo,
                                 fetchCompletionHandler: completionHandler)
        }
    }
    func application(_ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        onMainActor { delegate.application(application, didRegisterForRemoteNotificationsWithDeviceToken: deviceToken) }
    }
}

extension Application {
    /// A UIKit-named delegate on BGXApp's delegate path, for a host other
    /// than the simulated device (the live host's `LiveApplication.main`).
    public static func delegate(runningUIKit delegate: UIApplicationDelegate) -> ApplicationDelegate {
        UIKitDelegateBridge(delegate)
    }
}
