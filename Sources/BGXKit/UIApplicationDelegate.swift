import BGXApp
import BGXCore
import Foundation

/// `UIApplicationDelegate`, with UIKit's signatures. Every method has a
/// default, as UIKit's optional methods do.
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
}

/// Runs a `UIApplicationDelegate` on BGXApp's delegate path: it turns BGXApp's
/// launch cause into UIKit's launch options, calls `willFinishLaunching`
/// before `didFinishLaunching`, and posts `UIApplication`'s notifications
/// after each lifecycle method.
final class UIKitDelegateBridge: ApplicationDelegate {
    let delegate: UIApplicationDelegate
    init(_ delegate: UIApplicationDelegate) { self.delegate = delegate }

    private func post(_ name: Notification.Name, _ application: Application,
                      userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: application, userInfo: userInfo)
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let launchOptions = options.flatMap {
            Application.launchOptions(for: $0.cause, notification: $0.localNotification,
                                      bluetooth: (application.connection.restoreIdentifiers(peripheral: false),
                                                  application.connection.restoreIdentifiers(peripheral: true)))
        }
        _ = delegate.application(application, willFinishLaunchingWithOptions: launchOptions)
        let result = delegate.application(application, didFinishLaunchingWithOptions: launchOptions)
        post(Application.didFinishLaunchingNotification, application,
             userInfo: launchOptions.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.key.rawValue, $0.value) }) })
        return result
    }
    func applicationDidBecomeActive(_ application: Application) {
        delegate.applicationDidBecomeActive(application)
        post(Application.didBecomeActiveNotification, application)
    }
    func applicationWillResignActive(_ application: Application) {
        delegate.applicationWillResignActive(application)
        post(Application.willResignActiveNotification, application)
    }
    func applicationDidEnterBackground(_ application: Application) {
        delegate.applicationDidEnterBackground(application)
        post(Application.didEnterBackgroundNotification, application)
    }
    func applicationWillEnterForeground(_ application: Application) {
        delegate.applicationWillEnterForeground(application)
        post(Application.willEnterForegroundNotification, application)
    }
    func applicationWillTerminate(_ application: Application) {
        delegate.applicationWillTerminate(application)
        post(Application.willTerminateNotification, application)
    }
    func applicationDidReceiveMemoryWarning(_ application: Application) {
        delegate.applicationDidReceiveMemoryWarning(application)
        post(Application.didReceiveMemoryWarningNotification, application)
    }
    func application(_ application: Application,
                     performFetchWithCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        delegate.application(application, performFetchWithCompletionHandler: completionHandler)
    }
    func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        delegate.application(application, handleEventsForBackgroundURLSession: identifier,
                             completionHandler: completionHandler)
    }
    func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        delegate.application(application, didReceiveRemoteNotification: userInfo,
                             fetchCompletionHandler: completionHandler)
    }
    func application(_ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        delegate.application(application, didRegisterForRemoteNotificationsWithDeviceToken: deviceToken)
    }
}

extension Application {
    /// A UIKit-named delegate on BGXApp's delegate path, for a host other
    /// than the simulated device (the live host's `LiveApplication.main`).
    public static func delegate(runningUIKit delegate: UIApplicationDelegate) -> ApplicationDelegate {
        UIKitDelegateBridge(delegate)
    }
}
