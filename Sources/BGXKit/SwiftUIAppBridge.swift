import BGXApp
import BGXCore
import BGXSimulation
import Foundation

/// Runs a SwiftUI `App` as iOS does in the background: when the process
/// starts, each `.backgroundTask(.appRefresh(id))` becomes the launch
/// handler of that identifier; the system's task then runs the action in a
/// Swift task and is completed when the action returns — with `true`, or
/// `false` once the task expired (the expiration cancels the Swift task,
/// and the action should stop at its next check). A background session's
/// events run the matching `.urlSession` action, and the system's
/// completion handler is called when it returns.
final class SwiftUIAppBridge: ApplicationDelegate {
    let actions: [BackgroundTaskAction]

    init<A: App>(_ app: A) {
        actions = onMainActor { BackgroundTaskAction.all(in: app.body) }
        for action in actions {
            guard case let .appRefresh(identifier) = action.kind else { continue }
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                let expired = Expiry()
                let work = Task {
                    await action.run(identifier)
                    task.setTaskCompleted(success: !expired.value)
                }
                task.expirationHandler = {
                    expired.value = true
                    work.cancel()
                }
            }
        }
    }

    // `UIApplication`'s notifications, which a SwiftUI app's code observes for the
    // lifecycle (it has no delegate); object the `UIApplication`.
    private func post(_ name: Notification.Name, _ application: Application) {
        NotificationCenter.default.post(name: name, object: application)
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        post(Application.didFinishLaunchingNotification, application)
        return true
    }
    func applicationDidBecomeActive(_ application: Application) { post(Application.didBecomeActiveNotification, application) }
    func applicationWillResignActive(_ application: Application) { post(Application.willResignActiveNotification, application) }
    func applicationDidEnterBackground(_ application: Application) { post(Application.didEnterBackgroundNotification, application) }
    func applicationWillEnterForeground(_ application: Application) {
        post(Application.willEnterForegroundNotification, application)
    }
    func applicationWillTerminate(_ application: Application) { post(Application.willTerminateNotification, application) }
    func applicationDidReceiveMemoryWarning(_ application: Application) {
        post(Application.didReceiveMemoryWarningNotification, application)
    }

    func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        let action = actions.first { if case .urlSession(identifier) = $0.kind { true } else { false } }
            ?? actions.first { if case .urlSession(nil) = $0.kind { true } else { false } }
        guard let action else { return completionHandler() }
        Task {
            await action.run(identifier)
            completionHandler()
        }
    }
}

/// Whether a task's expiration came; set on the main thread, read by the task's action's thread after it.
private final class Expiry: @unchecked Sendable {
    var value = false
}

extension SimulatedDevice {
    /// Installs an app written with SwiftUI's lifecycle; `make` creates the
    /// `App` anew for every launch, as a new process would (its `init` and
    /// `body` run as app code, so they may use `BGTaskScheduler.shared`).
    @discardableResult
    public func install<A: App>(_ manifest: AppManifest, app make: @escaping () -> A) -> AppID {
        install(manifest, delegate: { () -> ApplicationDelegate in SwiftUIAppBridge(onMainActor { make() }) })
    }
}
