// A ColorFeed-like app, written as iOS code is written: it keeps a feed of
// colours fresh with a BGAppRefreshTask, drops entries older than a day,
// and tells the person about each new colour. The import block below is the
// only thing that differs between the iOS build and the bgx one.
#if canImport(UIKit)
import UIKit
import BackgroundTasks
import UserNotifications
#else
import BGXKit
#endif

/// One colour in the feed, and when it arrived.
public struct FeedEntry {
    public var date: Date
    public var hue: Double
}

public final class AppDelegate: UIResponder, UIApplicationDelegate {
    public static let refreshIdentifier = "com.example.colorfeed.refresh"
    public private(set) var feed: [FeedEntry] = []
    public private(set) var refreshes = 0

    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        // On the main queue: in Swift 6 mode a closure made here is the delegate's main-actor code.
        BGTaskScheduler.shared.register(forTaskWithIdentifier: AppDelegate.refreshIdentifier, using: .main) { task in
            self.handleAppRefresh(task as! BGAppRefreshTask)
        }
        return true
    }

    public func applicationDidEnterBackground(_ application: UIApplication) {
        scheduleAppRefresh()
    }

    func scheduleAppRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: AppDelegate.refreshIdentifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch {
            print("Could not schedule app refresh: \(error)")
        }
    }

    func handleAppRefresh(_ task: BGAppRefreshTask) {
        scheduleAppRefresh()
        task.expirationHandler = {
            task.setTaskCompleted(success: false)
        }
        let now = Date()
        let dayAgo = Date(timeIntervalSinceNow: -24 * 60 * 60)
        feed.removeAll { $0.date < dayAgo }
        refreshes += 1
        let entry = FeedEntry(date: now, hue: Double(refreshes % 12) / 12)
        feed.append(entry)

        let content = UNMutableNotificationContent()
        content.title = "A new colour"
        content.body = "Hue \(Int(entry.hue * 360))°"
        content.threadIdentifier = "feed"
        content.userInfo = ["hue": entry.hue]
        UNUserNotificationCenter.current().add(
            UNNotificationRequest(identifier: "colour-\(refreshes)", content: content, trigger: nil))
        task.setTaskCompleted(success: true)
    }
}
