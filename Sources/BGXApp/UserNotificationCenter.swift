import BGXCore
import Foundation

/// `UNNotificationPresentationOptions`: what `willPresent` asks the system
/// to show of a notification that arrived while the app is in front.
public struct UNNotificationPresentationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)

    var value: NotificationPresentation {
        var p: NotificationPresentation = []
        if !isDisjoint(with: [.alert, .list, .banner]) { p.insert(.alert) }
        if contains(.sound) { p.insert(.sound) }
        if contains(.badge) { p.insert(.badge) }
        return p
    }
}

/// `UNUserNotificationCenterDelegate`. Set it before `didFinishLaunching`
/// returns, or the response to the tap that launched the app is missed.
public protocol UNUserNotificationCenterDelegate: AnyObject {
    /// A notification arrived while the app is in front; by default nothing is shown.
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void)
    /// The user opened a notification.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                withCompletionHandler completionHandler: @escaping () -> Void)
}

extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                       withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        completionHandler([])
    }
    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping () -> Void) {
        completionHandler()
    }
}

/// `UNUserNotificationCenter` (rules §9), one per process.
public final class UNUserNotificationCenter {
    let connection: SystemConnection
    public weak var delegate: UNUserNotificationCenterDelegate?
    /// The contents this process added, for what the engine does not keep
    /// (`subtitle`, `userInfo`, `categoryIdentifier`, `threadIdentifier`).
    /// A new process starts without them.
    private var addedContents: [String: UNNotificationContent] = [:]

    /// A notification's content as the app added it.
    func content(_ identifier: String, _ value: NotificationContent) -> UNNotificationContent {
        let content = UNNotificationContent(value)
        if let added = addedContents[identifier] { content.copyExtras(from: added) }
        return content
    }

    init(connection: SystemConnection) { self.connection = connection }

    public static func current() -> UNUserNotificationCenter { Application.shared.userNotificationCenter }

    /// Schedules the request, replacing any with the same identifier. An app
    /// keeps at most 64 (the soonest-firing; 128 on iOS 6, where the rest are
    /// refused) — a dropped request is not an error.
    public func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: ((Error?) -> Void)? = nil) {
        addedContents[request.identifier] = request.content
        connection.addNotification(identifier: request.identifier, content: request.content.value,
                                   trigger: request.trigger?.value ?? .immediate)
        completionHandler?(nil)
    }

    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        connection.removePendingNotifications(identifiers: identifiers)
    }
    public func removeAllPendingNotificationRequests() { connection.removeAllPendingNotifications() }

    /// Soonest-firing first.
    public func getPendingNotificationRequests(completionHandler: @escaping ([UNNotificationRequest]) -> Void) {
        completionHandler(connection.pendingNotifications().map {
            UNNotificationRequest(identifier: $0.id, content: content($0.id, $0.content),
                                  trigger: UNNotificationTrigger.from($0.trigger))
        })
    }

    /// The app's notifications in Notification Center, oldest first.
    public func getDeliveredNotifications(completionHandler: @escaping ([UNNotification]) -> Void) {
        let now = connection.now
        completionHandler(connection.deliveredNotifications().map {
            UNNotification(date: now.addingTimeInterval(Time.toSeconds($0.deliveredAt)),
                           request: UNNotificationRequest(identifier: $0.id, content: content($0.id, $0.content),
                                                          trigger: nil))
        })
    }

    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        connection.removeDeliveredNotifications(identifiers: identifiers)
    }
    public func removeAllDeliveredNotifications() { connection.removeDeliveredNotifications(identifiers: nil) }
}

extension Application {
    /// The system hands the app in front a notification (rules §9): the
    /// center's delegate decides what the user sees; without one, the legacy
    /// `application(_:didReceiveLocalNotification:)` hears of it.
    public func present(notification identifier: String, content: NotificationContent) {
        tellNotificationDelegate(identifier, content) { handler, center, notification in
            handler.userNotificationCenter(center, willPresent: notification) { [connection] options in
                connection.presentNotification(identifier: identifier, options: options.value)
            }
        }
    }

    /// The user opened a notification (rules §9).
    public func open(notification identifier: String, content: NotificationContent) {
        tellNotificationDelegate(identifier, content) { handler, center, notification in
            handler.userNotificationCenter(center, didReceive: UNNotificationResponse(notification: notification)) {}
        }
    }

    private func tellNotificationDelegate(
        _ identifier: String, _ content: NotificationContent,
        _ call: (UNUserNotificationCenterDelegate, UNUserNotificationCenter, UNNotification) -> Void
    ) {
        let center = userNotificationCenter
        guard let handler = center.delegate else {
            applicationDelegate?.application(self, didReceiveLocalNotification: identifier)
            return
        }
        call(handler, center, UNNotification(date: connection.now, request: UNNotificationRequest(
            identifier: identifier, content: center.content(identifier, content), trigger: nil)))
    }
}
