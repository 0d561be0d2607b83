import BGXCore
import Foundation

/// `UNNotificationRequest` reduced to what SPEC §9 names.
public struct NotificationRequest: Sendable, Equatable {
    public enum Trigger: Sendable, Equatable {
        /// `UNTimeIntervalNotificationTrigger`.
        case timeInterval(TimeInterval, repeats: Bool)
        /// `UNCalendarNotificationTrigger` for one moment (repeating daily if `repeats`).
        case date(Date, repeats: Bool)
    }
    public var identifier: String
    public var body: String
    public var trigger: Trigger

    public init(identifier: String, body: String = "", trigger: Trigger) {
        self.identifier = identifier
        self.body = body
        self.trigger = trigger
    }
}

/// `UNUserNotificationCenter` for the app whose code is running.
public struct UserNotificationCenter {
    let connection: SystemConnection
    public static func current() -> UserNotificationCenter {
        UserNotificationCenter(connection: Application.shared.connection)
    }
    public func add(_ request: NotificationRequest) throws { try connection.addNotification(request) }
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        connection.removePendingNotifications(identifiers: identifiers)
    }
    public func removeAllPendingNotificationRequests() { connection.removeAllPendingNotifications() }
    public func pendingNotificationRequestIdentifiers() -> [String] { connection.pendingNotificationIdentifiers() }
}
