// A messaging app's background code, written as iOS code is written: a
// `static let shared` sync manager that registers its refresh handler as it
// is created, silent pushes that fetch new messages on a global queue, and a
// refresh that syncs on its own serial queue, and an outbox that goes to a
// background URLSession upload when the app leaves the screen. The import
// block below is the only thing that differs between the iOS build and the
// bgx one.
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
    public let uploader: OutboxUploader

    /// The outbox lives in the app's Application Support directory.
    public override convenience init() {
        let directory = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        self.init(outboxDirectory: directory)
    }

    public init(outboxDirectory: URL) {
        try? FileManager.default.createDirectory(at: outboxDirectory, withIntermediateDirectories: true)
        uploader = OutboxUploader(outbox: Outbox(fileURL: outboxDirectory.appendingPathComponent("outbox.json")))
        super.init()
    }

    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        _ = SyncManager.shared
        application.registerForRemoteNotifications()
        // Reconnects to an upload an earlier process started, so that its
        // result (a cancellation, after a force-quit) reaches this one.
        _ = uploader.session
        return true
    }

    /// The person taps Send. In front the app's own connection would carry
    /// the message (not part of this example); what is still in the outbox
    /// when the app leaves the screen goes with the background upload.
    public func send(_ message: String) {
        uploader.outbox.add(message)
    }

    public func applicationDidEnterBackground(_ application: UIApplication) {
        SyncManager.shared.scheduleRefresh()
        uploader.uploadPending()
    }

    public func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        SyncManager.shared.fetchNewMessages { gotNew in completionHandler(gotNew ? .newData : .noData) }
    }

    /// The system launched (or resumed) the app because the upload session
    /// has news: the session object, made anew with the same identifier,
    /// hears it; the handler is called once it has.
    public func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                            completionHandler: @escaping () -> Void) {
        guard identifier == OutboxUploader.sessionIdentifier else { return completionHandler() }
        uploader.backgroundEventsCompletionHandler = completionHandler
        _ = uploader.session
    }
}
