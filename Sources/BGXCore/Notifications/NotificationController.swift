/// rules §9's controller: each app's scheduled notifications (their triggers
/// and when they fire next), its limit, its badge and what it last scheduled
/// under each identifier; and Notification Center, device-wide, in the order
/// things were delivered. It is told the moment and the clock
/// (`NotificationClock`), whether the app is active in front and what sounds
/// its bundle holds, and returns effects; the engine carries them out and
/// keeps the part of a tap that is the app's lifecycle (launching it,
/// bringing it to the front).
struct NotificationController: Sendable, Codable {
    /// A scheduled notification of one app.
    struct Pending: Sendable, Codable {
        var id: NotificationID
        var trigger: NotificationTrigger
        var content: NotificationContent
        var fireAt: Nanoseconds
        /// Its fire event's identity, from one device-wide counter: a
        /// replaced, cancelled or moved request's earlier event finds no entry
        /// of its generation and is ignored. (Not a `Ticket`: notifications
        /// outlive the app's process, so no epoch makes them stale.) The
        /// counter also orders requests across apps as they were added.
        var generation: UInt32
    }
    /// A notification in Notification Center.
    struct Delivered: Sendable, Codable {
        var app: AppID
        var id: NotificationID
        var content: NotificationContent
        var at: Nanoseconds
    }
    /// What the controller holds for one app; it survives the process.
    struct AppNotifications: Sendable, Codable {
        /// In the order they were added.
        var pending: [Pending] = []
        /// The content the app last scheduled under each identifier (for callbacks).
        var lastContent: [NotificationID: NotificationContent] = [:]
        /// The app icon's badge.
        var badge = 0
        /// The notification whose tap launched the app, for its launch options.
        var launchedBy: NotificationID?
        /// What the person allows the app to show.
        var authorization = NotificationAuthorization()
    }

    /// Identifiers, interned device-wide (the trace names them).
    private(set) var names: [String] = []
    private(set) var indexByName: [String: Int32] = [:]
    /// Per app, by `AppID.index`.
    private(set) var apps: [AppNotifications] = []
    /// Notification Center: delivered to the user and not yet opened or removed, oldest first.
    private(set) var delivered: [Delivered] = []
    private(set) var generation: UInt32 = 0
    /// The numbers it decides by (its limit, the shortest repeat, the longest alert sound).
    let settings: NotificationSettings
    /// Unix seconds at t = 0: a calendar trigger is read on a clock.
    let startEpochSeconds: Int64

    init(settings: NotificationSettings = NotificationSettings(), startEpochSeconds: Int64 = 0) {
        self.settings = settings
        self.startEpochSeconds = startEpochSeconds
    }

    mutating func appInstalled() { apps.append(AppNotifications()) }

    /// `removeDeliveredNotifications`: the app's delivered notifications of
    /// these identifiers' indices leave Notification Center (nil: all of the app's).
    mutating func removeDelivered(_ app: AppID, ids: Set<Int32>?) {
        delivered.removeAll { $0.app == app && (ids?.contains($0.id.index) ?? true) }
    }

    /// The app icon's badge (never below 0).
    mutating func setBadge(_ app: AppID, _ badge: Int) { apps[Int(app.index)].badge = max(0, badge) }

    /// A tap on this notification launches the app: its launch options say so.
    mutating func noteLaunchedBy(_ app: AppID, _ id: NotificationID) { apps[Int(app.index)].launchedBy = id }

    /// What the person allows the app to show, as now decided.
    mutating func setAuthorization(_ app: AppID, _ authorization: NotificationAuthorization) {
        apps[Int(app.index)].authorization = authorization
    }

    mutating func intern(_ name: String) -> NotificationID {
        if let i = indexByName[name] { return NotificationID(index: i) }
        names.append(name)
        let i = Int32(names.count - 1)
        indexByName[name] = i
        return NotificationID(index: i)
    }

    func name(_ id: NotificationID) -> String { names[Int(id.index)] }

    // MARK: Scheduling

    /// What `UNTimeIntervalNotificationTrigger` raises for.
    func check(_ trigger: NotificationTrigger) throws(NotificationError) {
        guard case let .timeInterval(interval, repeats) = trigger else { return }
        guard interval > 0 else { throw .notInFuture }
        if repeats, interval < settings.minimumRepeatInterval {
            throw .repeatIntervalTooShort(minimum: settings.minimumRepeatInterval)
        }
    }

    /// `UNUserNotificationCenter.add`: replaces the app's request with the
    /// same identifier; a request the limit or the calendar rules out is
    /// dropped with its reason.
    mutating func schedule(_ app: AppID, _ id: NotificationID, trigger: NotificationTrigger,
                           content: NotificationContent, clock: NotificationClock) -> [Effect] {
        let i = Int(app.index)
        let replaced = apps[i].pending.contains { $0.id == id }
        if replaced { apps[i].pending.removeAll { $0.id == id } }
        apps[i].lastContent[id] = content
        guard let fireAt = clock.firstFiring(of: trigger) else {
            return [.trace(app, .notificationSchedule(id: id, fireIn: 0, replaced: replaced)),
                    .notificationDrop(app, id, reason: "no moment after now matches its date: it would never fire")]
        }
        var effects: [Effect] = [.trace(app, .notificationSchedule(id: id, fireIn: fireAt - clock.now, replaced: replaced))]
        // A request with no trigger is presented now, not kept: iOS 6's cap of
        // 128 is on scheduled ("active") notifications [S], which it never joins.
        if settings.overflow == .refuseNew, !replaced, trigger != .immediate, apps[i].pending.count >= settings.limit {
            effects.append(.notificationDrop(app, id, reason:
                "the app already has \(settings.limit) scheduled notifications: the new one is refused"))
            return effects
        }
        generation &+= 1
        apps[i].pending.append(Pending(id: id, trigger: trigger, content: content, fireAt: fireAt, generation: generation))
        effects.append(.schedule(.notificationFire(app, id, generation: generation), at: fireAt))
        if trigger != .immediate { effects += enforceLimit(app) }
        return effects
    }

    /// Keeps the app's `limit` soonest-firing; the rest are dropped.
    mutating func enforceLimit(_ app: AppID) -> [Effect] {
        let i = Int(app.index)
        guard apps[i].pending.count > settings.limit else { return [] }
        let bySoonest = apps[i].pending.indices.sorted {
            (apps[i].pending[$0].fireAt, apps[i].pending[$0].generation)
                < (apps[i].pending[$1].fireAt, apps[i].pending[$1].generation)
        }
        let dropped = bySoonest.dropFirst(settings.limit)
        let reason = "only the \(settings.limit) soonest-firing notifications of an app are kept"
        let effects = dropped.map { Effect.notificationDrop(app, apps[i].pending[$0].id, reason: reason) }
        let droppedOffsets = Set(dropped)
        apps[i].pending = apps[i].pending.enumerated().filter { !droppedOffsets.contains($0.offset) }.map(\.element)
        return effects
    }

    /// `removePendingNotificationRequests`: the chosen requests go, soonest first in the trace.
    mutating func cancel(_ app: AppID, where chosen: (NotificationID) -> Bool) -> [Effect] {
        let i = Int(app.index)
        let gone = apps[i].pending.filter { chosen($0.id) }.sorted { $0.fireAt < $1.fireAt }
        guard !gone.isEmpty else { return [] }
        apps[i].pending.removeAll { chosen($0.id) }
        return gone.map { .trace(app, .notificationCancel(id: $0.id)) }
    }

    /// The app's scheduled notifications, soonest first.
    func pendingSoonestFirst(_ app: AppID) -> [Pending] {
        apps[Int(app.index)].pending.sorted { ($0.fireAt, $0.generation) < ($1.fireAt, $1.generation) }
    }

    // MARK: Firing and delivery

    /// A notification's moment came: to the app if it is active in front,
    /// otherwise to the user; a repeating one is scheduled again.
    mutating func fired(_ app: AppID, _ id: NotificationID, generation: UInt32, inFront: Bool,
                        sounds: [BundleSound], clock: NotificationClock) -> [Effect] {
        let i = Int(app.index)
        guard let index = apps[i].pending.firstIndex(where: { $0.id == id && $0.generation == generation }) else {
            return []
        }
        let entry = apps[i].pending[index]
        // A request with no trigger says why it arrived now, and where it went [D]:
        // https://developer.apple.com/documentation/usernotifications/unnotificationrequest/trigger
        let why: String? = entry.trigger != .immediate ? nil : inFront
            ? "no trigger: delivered at once, to the app (it is active in front)"
            : "no trigger: delivered at once, to the user (the app is not active in front)"
        var effects: [Effect]
        if inFront {
            effects = [.notificationDeliver(app, id, toApp: true, alert: Self.alertText(entry.content),
                                            sound: nil, badge: nil, reason: why),
                       .enqueue(app, .notification(id))]
        } else {
            effects = deliverToUser(app, id, entry.content, present: [.alert, .sound, .badge], why: why,
                                    sounds: sounds, now: clock.now)
        }
        let next: Nanoseconds? = switch entry.trigger {
        case .immediate, .timeInterval(_, repeats: false), .calendar(_, _, repeats: false): nil
        case let .timeInterval(interval, repeats: true): clock.now + interval
        case let .calendar(match, zone, repeats: true): clock.nextMatch(match, zone: zone)
        }
        if let next {
            apps[i].pending[index].fireAt = next
            effects.append(.schedule(.notificationFire(app, id, generation: generation), at: next))
            effects += enforceLimit(app)
        } else {
            apps[i].pending.remove(at: index)
        }
        return effects
    }

    /// The user sees it: an alert in Notification Center, a sound, the badge.
    mutating func deliverToUser(_ app: AppID, _ id: NotificationID, _ content: NotificationContent,
                                present: NotificationPresentation, why: String? = nil, sounds: [BundleSound],
                                now: Nanoseconds) -> [Effect] {
        let (present, refusal) = apps[Int(app.index)].authorization.filter(present)
        if present.isEmpty, let refusal {
            return [.notificationDrop(app, id, reason: why.map { $0 + "; " + refusal } ?? refusal)]
        }
        let why = refusal.map { r in why.map { $0 + "; " + r } ?? r } ?? why
        let (sound, soundReason) = present.contains(.sound)
            ? Self.alertSound(content.sound, sounds: sounds, settings: settings) : (nil, nil)
        let reason = why.map { w in soundReason.map { w + "; " + $0 } ?? w } ?? soundReason
        let badge = present.contains(.badge) ? content.badge : nil
        if let badge { apps[Int(app.index)].badge = badge }
        if present.contains(.alert) {
            // A request whose identifier matches a delivered notification's replaces it when it fires
            // (UNUserNotificationCenter's `add`): an app that reuses one identifier keeps one entry.
            delivered.removeAll { $0.app == app && $0.id == id }
            delivered.append(Delivered(app: app, id: id, content: content, at: now))
        }
        return [.notificationDeliver(app, id, toApp: false, alert: present.contains(.alert) ? Self.alertText(content) : nil,
                                     sound: sound, badge: badge, reason: reason)]
    }

    /// The alert's text: the body, after the title if there is one.
    static func alertText(_ content: NotificationContent) -> String? {
        let alert = [content.title, content.body].filter { !$0.isEmpty }.joined(separator: ": ")
        return alert.isEmpty ? nil : alert
    }

    /// What plays when a notification with `sound` reaches the user, and
    /// why, when it is not the sound asked for.
    static func alertSound(_ sound: NotificationSound?, sounds: [BundleSound],
                           settings: NotificationSettings) -> (played: String?, reason: String?) {
        guard let sound else { return (nil, nil) }
        guard case let .named(file) = sound else { return ("default", nil) }
        guard let reason = BundleSound.fallbackReason(for: file, in: sounds,
                                                      maximumLength: settings.maximumAlertSoundLength) else {
            return (file, nil)
        }
        return ("default", reason)
    }

    // MARK: The device's clock

    /// The device's time zone changed: floating calendar triggers follow the
    /// new clock (in the order they were added, across apps); fixed-zone and
    /// interval ones keep their moment.
    mutating func timeZoneChanged(clock: NotificationClock) -> [Effect] {
        var floating: [(generation: UInt32, app: Int, index: Int)] = []
        for i in apps.indices {
            for k in apps[i].pending.indices {
                if case .calendar(_, nil, _) = apps[i].pending[k].trigger {
                    floating.append((apps[i].pending[k].generation, i, k))
                }
            }
        }
        guard !floating.isEmpty else { return [] }
        floating.sort { $0.generation < $1.generation }
        var effects: [Effect] = []
        var moved: Set<Int> = []
        var never: Set<Int> = []
        for (_, i, k) in floating {
            guard case let .calendar(match, nil, _) = apps[i].pending[k].trigger else { continue }
            let app = AppID(index: Int32(i))
            let id = apps[i].pending[k].id
            moved.insert(i)
            generation &+= 1
            apps[i].pending[k].generation = generation
            guard let next = clock.nextMatch(match, zone: nil) else {
                apps[i].pending[k].fireAt = .max
                never.insert(i)
                effects.append(.notificationDrop(app, id, reason:
                    "on the device's new clock (\(clock.deviceZone.identifier)) its date has passed: it would never fire"))
                continue
            }
            apps[i].pending[k].fireAt = next
            effects.append(.schedule(.notificationFire(app, id, generation: generation), at: next))
        }
        for i in never.sorted() { apps[i].pending.removeAll { $0.fireAt == .max } }
        for i in moved.sorted() { effects += enforceLimit(AppID(index: Int32(i))) }
        return effects
    }

    // MARK: The person taps one

    /// The person taps a notification: the newest of that identifier in
    /// Notification Center is taken out of it, and its app is the one to
    /// open (the coordinator opens it: the app's lifecycle is its own). A tap
    /// on one not there opens nothing, with its reason.
    mutating func tap(_ id: NotificationID) -> (app: AppID?, effects: [Effect]) {
        guard let app = takeDelivered(id) else { return (nil, [.notificationTap(nil, id, reason: whyNotInCenter(id))]) }
        return (app, [.notificationTap(app, id, reason: nil)])
    }

    /// The newest notification of that identifier in Notification Center,
    /// taken out of it; nil when there is none.
    mutating func takeDelivered(_ id: NotificationID) -> AppID? {
        guard let index = delivered.lastIndex(where: { $0.id == id }) else { return nil }
        return delivered.remove(at: index).app
    }

    /// Why a tap on `id` opens nothing.
    func whyNotInCenter(_ id: NotificationID) -> String {
        apps.contains { $0.pending.contains { $0.id == id } }
            ? "'\(name(id))' has not fired yet: it is not in Notification Center"
            : "'\(name(id))' is not in Notification Center (never delivered to the user, already opened, or removed)"
    }
}

/// What the notification controller reads of the clock: the moment, the
/// Unix time it stands for, and the device's time zone (floating calendar
/// triggers are read on it).
struct NotificationClock {
    var now: Nanoseconds
    var startEpochSeconds: Int64
    var deviceZone: TimeZoneRules

    /// When a trigger would first fire if added now (`nextTriggerDate()`); nil if never.
    func firstFiring(of trigger: NotificationTrigger) -> Nanoseconds? {
        switch trigger {
        case .immediate: now
        case let .timeInterval(interval, _): now + interval
        case let .calendar(match, zone, _): nextMatch(match, zone: zone)
        }
    }

    func nextMatch(_ match: DateMatch, zone: TimeZoneRules?) -> Nanoseconds? {
        let unixNow = startEpochSeconds + CivilDate.floorDiv(now, Time.nanosecondsPerSecond)
        return match.next(after: unixNow, in: zone ?? deviceZone)
            .map { ($0 - startEpochSeconds) * Time.nanosecondsPerSecond }
    }
}

extension NotificationController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    /// The device's time zone changed: floating calendar triggers follow the
    /// new clock; fixed-zone and interval ones keep their moment.
    mutating func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        guard case let .timeZone(zone) = change else { return }
        effects += timeZoneChanged(clock: NotificationClock(now: context.now, startEpochSeconds: startEpochSeconds,
                                                            deviceZone: zone))
    }
}
