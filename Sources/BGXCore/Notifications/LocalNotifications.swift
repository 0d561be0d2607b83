/// SPEC §9: local notifications. Scheduled after an interval or at a date
/// (on a time zone's clock, or floating with the device's), optionally
/// repeating (≥ 60 s [O]); each app holds at most `localNotificationLimit`
/// (modern: the soonest-firing are kept and the rest dropped [D]; ios6: a
/// request past the limit is refused [S]) — every drop with its reason. A
/// notification that fires while its app is active in front goes to the app
/// quietly; otherwise to the user (alert, sound, badge) and into Notification
/// Center, from where a tap launches or activates the app.

/// What a notification shows (`UNNotificationContent`).
public struct NotificationContent: Sendable, Equatable {
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
public enum NotificationTrigger: Sendable, Equatable {
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

struct NotificationCenterState: Sendable {
    struct Pending: Sendable {
        var app: AppID
        var id: NotificationID
        var trigger: NotificationTrigger
        var content: NotificationContent
        var fireAt: Nanoseconds
        var generation: UInt32
    }
    struct Delivered: Sendable {
        var app: AppID
        var id: NotificationID
        var content: NotificationContent
        var at: Nanoseconds
    }
    struct Key: Hashable, Sendable {
        var app: AppID
        var id: NotificationID
    }
    var names: [String] = []
    var indexByName: [String: Int32] = [:]
    var pending: [Pending] = []
    /// Notification Center: delivered to the user and not yet opened or removed.
    var delivered: [Delivered] = []
    /// The content each app last scheduled under each identifier (for callbacks).
    var lastContent: [Key: NotificationContent] = [:]
    /// The app icon badges.
    var badges: [AppID: Int] = [:]
    /// The notification whose tap launched each app, for its launch options.
    var launchedBy: [AppID: NotificationID] = [:]
    var generation: UInt32 = 0

    mutating func intern(_ name: String) -> NotificationID {
        if let i = indexByName[name] { return NotificationID(index: i) }
        names.append(name)
        let i = Int32(names.count - 1)
        indexByName[name] = i
        return NotificationID(index: i)
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
    public func notificationName(_ id: NotificationID) -> String { notifications.names[Int(id.index)] }
    public mutating func internNotification(_ name: String) -> NotificationID { notifications.intern(name) }

    // MARK: Scheduling

    /// `UNUserNotificationCenter.add`: schedules a notification, replacing
    /// the app's request with the same identifier. Throws for a trigger iOS
    /// raises on; a request the limit or the calendar rules out is dropped
    /// with its reason in the trace.
    public mutating func scheduleNotification(for app: AppID, id name: String, trigger: NotificationTrigger,
                                              content: NotificationContent) throws(NotificationError) {
        if case let .timeInterval(interval, repeats) = trigger {
            guard interval > 0 else { throw .notInFuture }
            if repeats, interval < profile.minimumRepeatInterval {
                throw .repeatIntervalTooShort(minimum: profile.minimumRepeatInterval)
            }
        }
        let id = notifications.intern(name)
        let key = NotificationCenterState.Key(app: app, id: id)
        let replaced = notifications.pending.contains { $0.app == app && $0.id == id }
        notifications.pending.removeAll { $0.app == app && $0.id == id }
        notifications.lastContent[key] = content
        guard let fireAt = firstFiring(of: trigger) else {
            record(app, .notificationSchedule(id: id, fireIn: 0, replaced: replaced))
            record(app, .notificationDrop(id: id, reason: appendText(
                "no moment after now matches its date: it would never fire")))
            return
        }
        record(app, .notificationSchedule(id: id, fireIn: fireAt - now, replaced: replaced))
        // A request with no trigger is presented now, not kept: iOS 6's cap of
        // 128 is on scheduled ("active") notifications [S], which it never joins.
        if profile.localNotificationOverflow == .refuseNew, !replaced, trigger != .immediate,
           notifications.pending.count(where: { $0.app == app }) >= profile.localNotificationLimit {
            record(app, .notificationDrop(id: id, reason: text(
                "the app already has \(profile.localNotificationLimit) scheduled notifications: the new one is refused")))
            return
        }
        notifications.generation &+= 1
        let entry = NotificationCenterState.Pending(app: app, id: id, trigger: trigger, content: content,
                                                    fireAt: fireAt, generation: notifications.generation)
        notifications.pending.append(entry)
        queue.push(.notificationFire(app, id, generation: entry.generation), at: fireAt)
        if trigger != .immediate { enforceNotificationLimit(app) }
    }

    /// When a trigger would first fire if added now (`nextTriggerDate()`); nil if never.
    public func firstFiring(of trigger: NotificationTrigger) -> Nanoseconds? {
        switch trigger {
        case .immediate: now
        case let .timeInterval(interval, _): now + interval
        case let .calendar(match, zone, _): nextMatch(match, zone: zone)
        }
    }

    func nextMatch(_ match: DateMatch, zone: TimeZoneRules?) -> Nanoseconds? {
        match.next(after: unixSeconds(at: now), in: zone ?? device.timeZone).map { virtualTime(ofUnix: $0) }
    }

    /// Keeps the soonest-firing `localNotificationLimit`; the rest are dropped.
    mutating func enforceNotificationLimit(_ app: AppID) {
        let mine = notifications.pending.enumerated().filter { $0.element.app == app }
        guard mine.count > profile.localNotificationLimit else { return }
        let bySoonest = mine.sorted {
            ($0.element.fireAt, $0.element.generation) < ($1.element.fireAt, $1.element.generation)
        }
        let dropped = bySoonest.dropFirst(profile.localNotificationLimit)
        for entry in dropped {
            let reason = text("only the \(profile.localNotificationLimit) soonest-firing "
                              + "notifications of an app are kept")
            record(app, .notificationDrop(id: entry.element.id, reason: reason))
        }
        let droppedOffsets = Set(dropped.map(\.offset))
        notifications.pending = notifications.pending.enumerated()
            .filter { !droppedOffsets.contains($0.offset) }.map(\.element)
    }

    // MARK: Cancelling and listing

    /// `removePendingNotificationRequests(withIdentifiers:)`.
    public mutating func cancelNotification(for app: AppID, id name: String) {
        guard let i = notifications.indexByName[name] else { return }
        cancelNotifications(of: app) { $0.index == i }
    }

    /// `removeAllPendingNotificationRequests()`.
    public mutating func cancelAllNotifications(for app: AppID) {
        cancelNotifications(of: app) { _ in true }
    }

    mutating func cancelNotifications(of app: AppID, where chosen: (NotificationID) -> Bool) {
        let gone = notifications.pending.filter { $0.app == app && chosen($0.id) }.sorted { $0.fireAt < $1.fireAt }
        guard !gone.isEmpty else { return }
        notifications.pending.removeAll { $0.app == app && chosen($0.id) }
        for entry in gone { record(app, .notificationCancel(id: entry.id)) }
    }

    /// Scheduled notifications of an app, soonest first.
    public func pendingNotifications(for app: AppID) -> [PendingNotification] {
        notifications.pending.filter { $0.app == app }.sorted { ($0.fireAt, $0.generation) < ($1.fireAt, $1.generation) }
            .map { PendingNotification(id: notificationName($0.id), content: $0.content, trigger: $0.trigger,
                                       fireAt: $0.fireAt) }
    }

    /// An app's notifications in Notification Center, oldest first.
    public func deliveredNotifications(for app: AppID) -> [DeliveredNotification] {
        notifications.delivered.filter { $0.app == app }
            .map { DeliveredNotification(id: notificationName($0.id), content: $0.content, deliveredAt: $0.at) }
    }

    /// `removeDeliveredNotifications(withIdentifiers:)`; nil removes all.
    public mutating func removeDeliveredNotifications(for app: AppID, ids names: [String]?) {
        let ids = names.map { Set($0.compactMap { notifications.indexByName[$0] }) }
        notifications.delivered.removeAll { $0.app == app && (ids?.contains($0.id.index) ?? true) }
    }

    /// The app icon's badge (0: none).
    public func badge(of app: AppID) -> Int { notifications.badges[app] ?? 0 }

    /// `applicationIconBadgeNumber = n`: the app sets its own badge.
    public mutating func setBadge(of app: AppID, _ badge: Int) { notifications.badges[app] = max(0, badge) }

    /// What the app last scheduled under an identifier.
    public func notificationContent(for app: AppID, _ id: NotificationID) -> NotificationContent {
        notifications.lastContent[NotificationCenterState.Key(app: app, id: id)] ?? NotificationContent()
    }

    /// The notification whose tap launched the app (its launch options).
    public func launchNotification(of app: AppID) -> String? {
        notifications.launchedBy[app].map(notificationName)
    }

    // MARK: Firing and delivery

    mutating func notificationFired(_ app: AppID, _ id: NotificationID, generation: UInt32) {
        guard let index = notifications.pending.firstIndex(where: {
            $0.app == app && $0.id == id && $0.generation == generation
        }) else { return }
        let entry = notifications.pending[index]
        let inFront = frontApp == app && apps[Int(app.index)].state == .active
        // A request with no trigger says why it arrived now, and where it went [D]:
        // https://developer.apple.com/documentation/usernotifications/unnotificationrequest/trigger
        let why: TextID? = entry.trigger != .immediate ? nil : text(inFront
            ? "no trigger: delivered at once, to the app (it is active in front)"
            : "no trigger: delivered at once, to the user (the app is not active in front)")
        if inFront {
            record(app, .notificationDeliver(id: id, toApp: true, alert: alertText(entry.content),
                                             sound: nil, badge: nil, reason: why))
            apps[Int(app.index)].jobs.append(.notification(id))
            pump(app)
        } else {
            deliverToUser(app, id, entry.content, present: [.alert, .sound, .badge], why: why)
        }
        let next: Nanoseconds? = switch entry.trigger {
        case .immediate, .timeInterval(_, repeats: false), .calendar(_, _, repeats: false): nil
        case let .timeInterval(interval, repeats: true): now + interval
        case let .calendar(match, zone, repeats: true): nextMatch(match, zone: zone)
        }
        if let next {
            notifications.pending[index].fireAt = next
            queue.push(.notificationFire(app, id, generation: generation), at: next)
            enforceNotificationLimit(app)
        } else {
            notifications.pending.remove(at: index)
        }
    }

    /// The user sees it: an alert in Notification Center, a sound, the badge.
    mutating func deliverToUser(_ app: AppID, _ id: NotificationID, _ content: NotificationContent,
                                present: NotificationPresentation, why: TextID? = nil) {
        let (sound, soundReason) = present.contains(.sound) ? alertSound(for: app, content.sound) : (nil, nil)
        let reason = why.map { w in soundReason.map { text(self.text(w) + "; " + self.text($0)) } ?? w } ?? soundReason
        let badge = present.contains(.badge) ? content.badge : nil
        if let badge { notifications.badges[app] = badge }
        record(app, .notificationDeliver(id: id, toApp: false, alert: present.contains(.alert) ? alertText(content) : nil,
                                         sound: sound, badge: badge.map { Int32(clamping: $0) }, reason: reason))
        if present.contains(.alert) {
            notifications.delivered.append(.init(app: app, id: id, content: content, at: now))
        }
    }

    /// The alert's text: the body, after the title if there is one.
    mutating func alertText(_ content: NotificationContent) -> TextID? {
        let alert = [content.title, content.body].filter { !$0.isEmpty }.joined(separator: ": ")
        return alert.isEmpty ? nil : text(alert)
    }

    /// The app in front answered `willPresent` with `options`: whatever it
    /// asks for reaches the user as well.
    public mutating func presentNotification(for app: AppID, id name: String, options: NotificationPresentation) {
        guard !options.isEmpty, let i = notifications.indexByName[name] else { return }
        let id = NotificationID(index: i)
        deliverToUser(app, id, notificationContent(for: app, id), present: options)
    }

    // MARK: The device's clock

    /// The device's time zone changed: floating calendar triggers follow the
    /// new clock; fixed-zone and interval ones keep their moment.
    mutating func deviceTimeZoneChanged() {
        var apps: Set<AppID> = []
        for i in notifications.pending.indices {
            guard case let .calendar(match, nil, _) = notifications.pending[i].trigger else { continue }
            let entry = notifications.pending[i]
            apps.insert(entry.app)
            notifications.generation &+= 1
            notifications.pending[i].generation = notifications.generation
            guard let next = nextMatch(match, zone: nil) else {
                notifications.pending[i].fireAt = .max
                record(entry.app, .notificationDrop(id: entry.id, reason: text(
                    "on the device's new clock (\(device.timeZone.identifier)) its date has passed: it would never fire")))
                continue
            }
            notifications.pending[i].fireAt = next
            queue.push(.notificationFire(entry.app, entry.id, generation: notifications.generation), at: next)
        }
        notifications.pending.removeAll { $0.fireAt == .max }
        for app in apps.sorted() { enforceNotificationLimit(app) }
    }

    // MARK: The person taps one

    /// `user: tapNotification ID`: the newest notification of that identifier
    /// in Notification Center is opened — its app launched (cause
    /// `notification`) or brought to the front, then told of the response.
    /// A tap on one not there is recorded with its reason and does nothing.
    mutating func tapNotification(_ id: NotificationID) {
        guard let index = notifications.delivered.lastIndex(where: { $0.id == id }) else {
            record(nil, .user(.tapNotification))
            let why = notifications.pending.contains { $0.id == id }
                ? "'\(notificationName(id))' has not fired yet: it is not in Notification Center"
                : "'\(notificationName(id))' is not in Notification Center (never delivered to the user, "
                  + "already opened, or removed)"
            record(nil, .notificationTap(id: id, reason: appendText(why)))
            return
        }
        let app = notifications.delivered.remove(at: index).app
        let i = Int(app.index)
        record(app, .user(.tapNotification))
        record(app, .notificationTap(id: id, reason: nil))
        markSchedulerDirty(for: app)
        setLocked(false)
        frontAppWhenLocked = nil
        if apps[i].state == .notRunning { notifications.launchedBy[app] = id }
        bringToFront(app, cause: .notification)
        apps[i].jobs.append(.notificationResponse(id))
        pump(app)
    }
}
