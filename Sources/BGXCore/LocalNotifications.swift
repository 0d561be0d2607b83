/// SPEC §9, the part the foundation needs: notifications scheduled after an
/// interval or at a moment, optionally repeating (≥ 60 s [O]); the
/// `localNotificationLimit` soonest-firing are kept and the rest dropped with
/// a reason [D]; delivered to the app when it is in front and active,
/// otherwise to the user.
struct NotificationCenterState: Sendable {
    struct Pending: Sendable {
        var app: AppID
        var id: NotificationID
        var fireAt: Nanoseconds
        var repeatInterval: Nanoseconds?
        var body: String
        var generation: UInt32
    }
    var names: [String] = []
    var indexByName: [String: Int32] = [:]
    var pending: [Pending] = []
    var generation: UInt32 = 0

    mutating func intern(_ name: String) -> NotificationID {
        if let i = indexByName[name] { return NotificationID(index: i) }
        names.append(name)
        let i = Int32(names.count - 1)
        indexByName[name] = i
        return NotificationID(index: i)
    }
}

public enum NotificationError: Error, Equatable, CustomStringConvertible {
    case repeatIntervalTooShort(minimum: Nanoseconds)
    case notInFuture
    public var description: String {
        switch self {
        case let .repeatIntervalTooShort(minimum):
            "time interval must be at least \(Time.describe(minimum)) if repeating"
        case .notInFuture: "time interval must be greater than 0"
        }
    }
}

extension Engine {
    public func notificationName(_ id: NotificationID) -> String { notifications.names[Int(id.index)] }

    /// Schedules (or replaces) a notification `fireIn` from now.
    public mutating func scheduleNotification(for app: AppID, id name: String, fireIn: Nanoseconds,
                                              repeatInterval: Nanoseconds?, body: String) throws(NotificationError) {
        if let interval = repeatInterval, interval < profile.minimumRepeatInterval {
            throw .repeatIntervalTooShort(minimum: profile.minimumRepeatInterval)
        }
        guard fireIn > 0 else { throw .notInFuture }
        let id = notifications.intern(name)
        notifications.pending.removeAll { $0.app == app && $0.id == id }
        notifications.generation &+= 1
        let entry = NotificationCenterState.Pending(app: app, id: id, fireAt: now + fireIn,
                                                    repeatInterval: repeatInterval, body: body,
                                                    generation: notifications.generation)
        notifications.pending.append(entry)
        record(app, .notificationSchedule(id: id, fireIn: fireIn))
        queue.push(.notificationFire(app, id, generation: entry.generation), at: entry.fireAt)
        enforceNotificationLimit(app)
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

    public mutating func cancelNotification(for app: AppID, id name: String) {
        guard let i = notifications.indexByName[name] else { return }
        notifications.pending.removeAll { $0.app == app && $0.id.index == i }
    }

    public mutating func cancelAllNotifications(for app: AppID) {
        notifications.pending.removeAll { $0.app == app }
    }

    /// Scheduled notifications of an app, soonest first: (id, seconds until it fires).
    public func pendingNotifications(for app: AppID) -> [(id: String, fireAt: Nanoseconds)] {
        notifications.pending.filter { $0.app == app }.sorted { $0.fireAt < $1.fireAt }
            .map { (notifications.names[Int($0.id.index)], $0.fireAt) }
    }

    mutating func notificationFired(_ app: AppID, _ id: NotificationID, generation: UInt32) {
        guard let index = notifications.pending.firstIndex(where: {
            $0.app == app && $0.id == id && $0.generation == generation
        }) else { return }
        let entry = notifications.pending[index]
        let toApp = frontApp == app && apps[Int(app.index)].state == .active
        record(app, .notificationDeliver(id: id, toApp: toApp))
        if toApp {
            apps[Int(app.index)].jobs.append(.notification(id))
            pump(app)
        }
        if let interval = entry.repeatInterval {
            notifications.pending[index].fireAt = now + interval
            queue.push(.notificationFire(app, id, generation: generation), at: now + interval)
        } else {
            notifications.pending.remove(at: index)
        }
    }
}
