import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Posts a reminder with everything UNMutableNotificationContent carries,
/// and hears it back while in front.
final class ReminderAppDelegate: UIApplicationDelegate, UNUserNotificationCenterDelegate {
    nonisolated static let journal = Journal()

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let center = UNUserNotificationCenter.current()
        center.delegate = self
        let content = UNMutableNotificationContent()
        content.title = "Stand up"
        content.subtitle = "Every hour"
        content.body = "Time to move"
        content.userInfo = ["reminder-id": 42]
        content.categoryIdentifier = "REMINDER"
        content.threadIdentifier = "health"
        content.sound = .default
        content.badge = 1
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
        center.add(UNNotificationRequest(identifier: "stand", content: content, trigger: trigger))
        center.getPendingNotificationRequests { requests in
            for request in requests { Self.journal.write("pending " + Self.describe(request.content)) }
        }
        return true
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        Self.journal.write("willPresent " + Self.describe(notification.request.content))
        completionHandler([.banner, .sound])
    }

    static func describe(_ c: UNNotificationContent) -> String {
        "\(c.title)/\(c.subtitle)/\(c.body) category=\(c.categoryIdentifier) thread=\(c.threadIdentifier) "
            + "reminder-id=\(c.userInfo["reminder-id"] as? Int ?? -1) badge=\(c.badge?.intValue ?? -1) "
            + "sound=\(c.sound == .default)"
    }
}

@Suite("BGXKit — UNMutableNotificationContent", .serialized)
struct NotificationContentTests {
    @Test("rules §9: subtitle, userInfo, categoryIdentifier and threadIdentifier come back with the pending request and the presented notification")
    func contentRoundTrips() {
        ReminderAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.reminders")) { ReminderAppDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 61)
        let shown = "Stand up/Every hour/Time to move category=REMINDER thread=health reminder-id=42 badge=1 sound=true"
        #expect(ReminderAppDelegate.journal.entries == ["pending " + shown, "willPresent " + shown])
    }
}
