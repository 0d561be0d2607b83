/// The notification controller's state for one app, as data and in words
/// (AOSP's `dumpControllerStateLocked`).
public struct NotificationControllerDump: ControllerDump, Equatable {
    public var concern: String { "notifications" }
    /// One scheduled notification.
    public struct Scheduled: Sendable, Encodable, Equatable {
        public var id: String
        public var fireAt: Nanoseconds
        public var repeats: Bool
    }
    /// Scheduled notifications, soonest first.
    public var scheduled: [Scheduled]
    /// How many the app may hold, and what happens past that.
    public var limit: Int
    public var refusesPastLimit: Bool
    /// The app's notifications in Notification Center.
    public var inNotificationCenter: Int
    public var badge: Int

    /// Whether the controller holds anything for the app.
    public var isEmpty: Bool { scheduled.isEmpty && inNotificationCenter == 0 && badge == 0 }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines = ["\(scheduled.count) of \(limit) scheduled notifications (past the limit "
                     + (refusesPastLimit ? "a new request is refused)" : "only the soonest-firing are kept)")]
        if let next = scheduled.first {
            lines.append("next: '\(next.id)' at \(when(next.fireAt))" + (next.repeats ? ", repeating" : ""))
        }
        if inNotificationCenter > 0 { lines.append("\(inNotificationCenter) in Notification Center") }
        if badge != 0 { lines.append("badge: \(badge)") }
        return lines
    }
}

extension NotificationController {
    func dump(_ app: AppID) -> NotificationControllerDump {
        NotificationControllerDump(
            scheduled: pendingSoonestFirst(app).map { .init(id: name($0.id), fireAt: $0.fireAt, repeats: $0.trigger.repeats) },
            limit: settings.limit, refusesPastLimit: settings.overflow == .refuseNew,
            inNotificationCenter: delivered.count { $0.app == app }, badge: apps[Int(app.index)].badge)
    }
}

extension Engine {
    /// The notification controller's state for the app now.
    public func notificationControllerDump(of app: AppID) -> NotificationControllerDump {
        notifications.dump(app)
    }
}
