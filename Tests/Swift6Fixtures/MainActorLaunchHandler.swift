// App code compiled in Swift 6 language mode, for tests that need Swift 6's
// runtime isolation checks (BGXKitTests itself is in Swift 5 mode, where the
// compiler inserts none).
import BGXKit

/// Registers its refresh handler `using: nil` with a closure made in the
/// delegate's method. In Swift 6 mode that closure is the delegate's
/// main-actor code, and Swift checks so as it starts; the system runs it on
/// a background queue, where the check fails and the app crashes — on iOS
/// as on bgx. `CatalogSyncExample` shows the handler written so that it may.
public final class MainActorLaunchHandlerDelegate: UIResponder, UIApplicationDelegate {
    public nonisolated static let refreshIdentifier = "com.example.mainactorhandler.refresh"
    public private(set) var refreshes = 0

    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refreshIdentifier, using: nil) { task in
            self.refreshes += 1
            task.setTaskCompleted(success: true)
        }
        return true
    }

    public func applicationDidEnterBackground(_ application: UIApplication) {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.refreshIdentifier))
    }
}
