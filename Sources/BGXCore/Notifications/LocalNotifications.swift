/// rules §9: local notifications. Scheduled after an interval or at a date
/// (on a time zone's clock, or floating with the device's), optionally
/// repeating (≥ 60 s [O]); each app holds at most `notifications.limit`
/// (modern: the soonest-firing are kept and the rest dropped [D]; ios6: a
/// request past the limit is refused [S]) — every drop with its reason. A
/// notification that fires while its app is active in front goes to the app
/// quietly; otherwise to the user (alert, sound, badge) and into Notification
/// Center, from where a tap launches or activates the app.

/// What a notification shows (`UNNotificationContent`).
public struct NotificationContent: Sendable, Equatable, Codable {
    public var title: String
    public var body: String
    /// nil: silent.
    public var sound: NotificationSound?
    /// The app icon's badge once delivered; nil leaves it as it is.
    public var badge: Int?

    public init(title: String = "", body: String = "", sound: NotificationSound? = nil, badge: Int? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
        self.badge = badge
    }
}

/// When a notification fires (`UNNotificationTrigger`).
public enum NotificationTrigger: Sendable, Equatable, Codable {
    /// No trigger: delivered at once.
    case immediate
    /// `UNTimeIntervalNotificationTrigger`: this long after scheduling, and
    /// as often again if it repeats.
    case timeInterval(Nanoseconds, repeats: Bool)
    /// `UNCalendarNotificationTrigger`: the next moment the clock matches —
    /// `timeZone`'s clock, or, when nil, the device's (it floats: a change of
    /// the device's time zone moves it).
    case calendar(DateMatch, timeZone: TimeZoneRules?, repeats: Bool)

    public var repeats: Bool {
        switch self {
        case .immediate: false
        case let .timeInterval(_, repeats), let .calendar(_, _, repeats): repeats
        }
    }
}

/// A scheduled notification, as `getPendingNotificationRequests` lists it.
public struct PendingNotification: Sendable, Equatable {
    public var id: String
    public var content: NotificationContent
    public var trigger: NotificationTrigger
    public var fireAt: Nanoseconds
}

/// A notification in Notification Center, as `getDeliveredNotifications` lists it.
public struct DeliveredNotification: Sendable, Equatable {
    public var id: String
    public var content: NotificationContent
    public var deliveredAt: Nanoseconds
}

/// What `UNTimeIntervalNotificationTrigger` raises for (an
/// NSInternalInconsistencyException on iOS: the app is terminated).
public enum NotificationError: Error, Equatable, CustomStringConvertible {
    case repeatIntervalTooShort(minimum: Nanoseconds)
    case notInFuture
    public var description: String {
        switch self {
        case let .repeatIntervalTooShort(minimum):
            "time interval must be at least \(minimum / Time.nanosecondsPerSecond) if repeating"
        case .notInFuture: "time interval must be greater than 0"
        }
    }
}

/// How an app in front asked `willPresent` to show a notification
/// (`UNNotificationPresentationOptions`).
public struct NotificationPresentation: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A banner or a Notification Center entry (`.banner`, `.list`, `.alert`).
    public static let alert = NotificationPresentation(rawValue: 1)
    public static let sound = NotificationPresentation(rawValue: 2)
    public static let badge = NotificationPresentation(rawValue: 4)
}

extension Engine {
    public func notificationName(_ id: NotificationID) -> String { notifications.name(id) }
    public mutating func internNotification(_ name: String) -> NotificationID { notifications.intern(name) }

    /// What the notification controller reads of the clock now.
    var notificationClock: NotificationClock {
        NotificationClock(now: now, startEpochSeconds: startEpochSeconds, deviceZone: device.timeZone)
    }

    // MARK: Scheduling

    /// `UNUserNotificationCenter.add`: schedules a notification, replacing
    /// the app's request with the same identifier. Throws for a trigger iOS
    /// raises on; a request the limit or the calendar rules out is dropped
    /// with its reason in the trace.
    public mutating func scheduleNotification(for app: AppID, id name: String, trigger: NotificationTrigger,
                                              content: NotificationContent) throws(NotificationError) {
        try notifications.check(trigger)
        let id = notifications.intern(name)
        apply(notifications.schedule(app, id, trigger: trigger, content: content, clock: notificationClock))
    }

    /// When a trigger would first fire if added now (`nextTriggerDate()`); nil if never.
    public func firstFiring(of trigger: NotificationTrigger) -> Nanoseconds? {
        notificationClock.firstFiring(of: trigger)
    }

    // MARK: Cancelling and listing

    /// `removePendingNotificationRequests(withIdentifiers:)`.
    public mutating func cancelNotification(for app: AppID, id name: String) {
        guard let i = notifications.indexByName[name] else { return }
        apply(notifications.cancel(app) { $0.index == i })
    }

    /// `removeAllPendingNotificationRequests()`.
    public mutating func cancelAllNotifications(for app: AppID) {
        apply(notifications.cancel(app) { _ in true })
    }

    /// Scheduled notifications of an app, soonest first.
    public func pendingNotifications(for app: AppID) -> [PendingNotification] {
        notifications.pendingSoonestFirst(app).map {
            PendingNotification(id: notificationName($0.id), content: $0.content, trigger: $0.trigger, fireAt: $0.fireAt)
        }
    }

    /// An app's notifications in Notification Center, oldest first.
    public func deliveredNotifications(for app: AppID) -> [DeliveredNotification] {
        notifications.delivered.filter { $0.app == app }
            .map { DeliveredNotification(id: notificationName($0.id), content: $0.content, deliveredAt: $0.at) }
    }

    /// `removeDeliveredNotifications(withIdentifiers:)`; nil removes all.
    public mutating func removeDeliveredNotifications(for app: AppID, ids names: [String]?) {
        let ids = names.map { Set($0.compactMap { notifications.indexByName[$0] }) }
        notifications.removeDelivered(app, ids: ids)
    }

    /// The app icon's badge (0: none).
    public func badge(of app: AppID) -> Int { notifications.apps[Int(app.index)].badge }

    /// `applicationIconBadgeNumber = n`: the app sets its own badge.
    public mutating func setBadge(of app: AppID, _ badge: Int) { notifications.setBadge(app, badge) }

    /// What the app last scheduled under an identifier.
    public func notificationContent(for app: AppID, _ id: NotificationID) -> NotificationContent {
        notifications.apps[Int(app.index)].lastContent[id] ?? NotificationContent()
    }

    /// The notification whose tap launched the app (its launch options).
    public func launchNotification(of app: AppID) -> String? {
        notifications.apps[Int(app.index)].launchedBy.map(notificationName)
    }

    // MARK: Firing and delivery

    mutating func notificationFired(_ app: AppID, _ id: NotificationID, generation: UInt32) {
        let inFront = frontApp == app && apps[Int(app.index)].state == .active
        apply(notifications.fired(app, id, generation: generation, inFront: inFront,
                                  sounds: apps[Int(app.index)].manifest.sounds, clock: notificationClock))
    }

    /// The app in front answered `willPresent` with `options`: whatever it
    /// asks for reaches the user as well.
    public mutating func presentNotification(for app: AppID, id name: String, options: NotificationPresentation) {
        guard !options.isEmpty, let i = notifications.indexByName[name] else { return }
        let id = NotificationID(index: i)
        apply(notifications.deliverToUser(app, id, notificationContent(for: app, id), present: options,
                                          sounds: apps[Int(app.index)].manifest.sounds, now: now))
    }

    // MARK: The person taps one

    /// `user: tapNotification ID`: the newest notification of that identifier
    /// in Notification Center is opened — its app launched (cause
    /// `notification`) or brought to the front, then told of the response.
    /// A tap on one not there is recorded with its reason and does nothing.
    mutating func tapNotification(_ id: NotificationID) {
        let tapped = notifications.tap(id)
        apply(tapped.effects)
        guard let app = tapped.app else { return }
        // Opening the app is its lifecycle: the coordinator's.
        let i = Int(app.index)
        markSchedulerDirty(for: app)
        setLocked(false)
        frontAppWhenLocked = nil
        if apps[i].state == .notRunning { notifications.noteLaunchedBy(app, id) }
        bringToFront(app, cause: .notification)
        apps[i].jobs.append(.notificationResponse(id))
        pump(app)
    }
}
