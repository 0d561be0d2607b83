// A messaging app's background code, written as iOS code is written: a
// `static let shared` sync manager that registers its refresh handler as it
// is created, silent pushes that fetch new messages on a global queue, and a
// refresh that syncs on its own serial queue. The import block below is the
// only thing that differs between the iOS build and the bgx one.
#if canImport(UIKit)
import UIKit
import BackgroundTasks
#else
import BGXKit
#endif

/// Keeps the inbox in sync; one per process, made on first use.
public final class SyncManager {
    public static let shared = SyncManager()
    public static let refreshIdentifier = "com.example.messenger.sync"

    /// When this process's manager was made (the device's clock).
    public let createdAt = Date()
    public private(set) var inbox: [String] = []
    private let queue = DispatchQueue(label: "com.example.messenger.sync")

    private init() {
        // Registered as the singleton is made: this must happen in every new
        // process before didFinishLaunching returns.
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refreshIdentifier, using: nil) { task in
            self.handleRefresh(task as! BGAppRefreshTask)
        }
    }

    public func scheduleRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: Self.refreshIdentifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 30 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }

    func handleRefresh(_ task: BGAppRefreshTask) {
        scheduleRefresh()
        let work = DispatchWorkItem { [weak self] in
            self?.inbox.append("synced at \(Date().timeIntervalSince1970)")
            task.setTaskCompleted(success: true)
        }
        task.expirationHandler = {
            work.cancel()
            task.setTaskCompleted(success: false)
        }
        queue.asyncAfter(deadline: .now() + 2, execute: work)   // the sync takes 2 s
    }

    /// Fetches what a silent push announced; the server answers after a second.
    func fetchNewMessages(completion: @escaping (Bool) -> Void) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + 1) {
            self.inbox.append("pushed at \(Date().timeIntervalSince1970)")
            DispatchQueue.main.async { completion(true) }
        }
    }
}

public final class MessengerAppDelegate: UIResponder, UIApplicationDelegate {
    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        _ = SyncManager.shared
        application.registerForRemoteNotifications()
        return true
    }

    public func applicationDidEnterBackground(_ application: UIApplication) {
        SyncManager.shared.scheduleRefresh()
    }

    public func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        SyncManager.shared.fetchNewMessages { gotNew in completionHandler(gotNew ? .newData : .noData) }
    }
}
