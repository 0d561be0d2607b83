import BGXCore
import Foundation

/// `UILocalNotification` (iOS 4–9), the seed-era notification: what it shows.
/// Only `presentLocalNotificationNow(_:)` posts it here — at once, with no
/// trigger; `UNUserNotificationCenter` schedules the rest (rules §9).
public final class UILocalNotification {
    public var alertBody: String?
    public var alertTitle: String?
    /// `UILocalNotificationDefaultSoundName`, a bundled file's name, or nil for silence.
    public var soundName: String?
    /// The app icon's badge once delivered; 0 leaves it as it is.
    public var applicationIconBadgeNumber = 0
    public init() {}

    var content: NotificationContent {
        NotificationContent(title: alertTitle ?? "", body: alertBody ?? "",
                            sound: soundName.map { $0 == UILocalNotificationDefaultSoundName ? .default : .named($0) },
                            badge: applicationIconBadgeNumber == 0 ? nil : applicationIconBadgeNumber)
    }
}

/// The default alert sound's name.
public let UILocalNotificationDefaultSoundName = "UILocalNotificationDefaultSoundName"

extension Application {
    /// `presentLocalNotificationNow:` — "delivering notifications immediately"
    /// in the seed's words [S]: the same rules as any notification (to the app
    /// if it is active in front, otherwise to the user), at once. A
    /// UILocalNotification has no identifier; each one presented gets its own.
    public func presentLocalNotificationNow(_ notification: UILocalNotification) {
        presentedLocalNotifications += 1
        connection.addNotification(identifier: "UILocalNotification-\(presentedLocalNotifications)",
                                   content: notification.content, trigger: .immediate)
    }
}
