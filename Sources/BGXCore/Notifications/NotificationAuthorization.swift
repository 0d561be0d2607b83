/// rules §9: whether the person lets an app's notifications reach them
/// (`UNUserNotificationCenter.requestAuthorization`). The first request
/// asks the person; their answer (test or scenario input, "allow" unless
/// said otherwise) stands until they change it in Settings. A denied app's
/// notifications still fire, and each is dropped with its reason; an
/// authorized app shows only what it asked for (alert, sound, badge).
///
/// An app that never asked is delivered to as before: iOS shows it nothing,
/// but scenarios and apps written before authorization was modelled would
/// change meaning (docs/bgxkit.md names this).
public enum NotificationAuthorizationStatus: UInt8, Sendable, Codable, CustomStringConvertible {
    case notDetermined, denied, authorized
    public var description: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .denied: "denied"
        case .authorized: "authorized"
        }
    }
}

/// One app's authorization, as the system keeps it (it survives the process).
public struct NotificationAuthorization: Sendable, Codable, Equatable {
    public var status: NotificationAuthorizationStatus = .notDetermined
    /// What the app asked for and the person allowed, as `NotificationPresentation`'s raw value.
    var allowedRaw: UInt8 = 0
    /// The person's answer when the app asks (before it has).
    var answer = true

    public var allowed: NotificationPresentation { NotificationPresentation(rawValue: allowedRaw) }

    public init() {}
    /// `answer`: what the person says when the app asks (with `.notDetermined`).
    public init(status: NotificationAuthorizationStatus, allowed: NotificationPresentation, answer: Bool = true) {
        self.status = status
        allowedRaw = allowed.rawValue
        self.answer = answer
    }

    /// Why a notification asked to show `present` shows less (nil: as asked),
    /// and what it shows.
    func filter(_ present: NotificationPresentation) -> (NotificationPresentation, String?) {
        switch status {
        case .notDetermined: return (present, nil)
        case .denied: return ([], "the person has not allowed this app's notifications (authorization denied)")
        case .authorized:
            let shown = present.intersection(allowed)
            guard shown != present else { return (present, nil) }
            let missing = [(NotificationPresentation.alert, "alert"), (.sound, "sound"), (.badge, "badge")]
                .filter { present.contains($0.0) && !allowed.contains($0.0) }.map(\.1)
            return (shown, "not authorized for " + missing.joined(separator: ", "))
        }
    }
}

extension NotificationPresentation {
    var names: String {
        let names = [(NotificationPresentation.alert, "alert"), (.sound, "sound"), (.badge, "badge")]
            .filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "nothing" : names.joined(separator: ", ")
    }
}

extension NotificationController {
    /// `requestAuthorization(options:)`: the first request asks the person,
    /// later ones return what they answered. Whether it is granted, and the
    /// person's answer in words when they were asked.
    mutating func requestAuthorization(_ app: AppID,
                                       options: NotificationPresentation) -> (granted: Bool, effects: [Effect]) {
        var auth = apps[Int(app.index)].authorization
        guard auth.status == .notDetermined else { return (auth.status == .authorized, []) }
        auth.status = auth.answer ? .authorized : .denied
        auth.allowedRaw = auth.answer ? options.rawValue : 0
        setAuthorization(app, auth)
        return (auth.answer, [.log(app, auth.answer
            ? "notifications: the person allowed \(options.names) when the app asked"
            : "notifications: the person did not allow notifications when the app asked (\(options.names))")])
    }

    /// The person's choice as a scenario's app gives it (`notifications:`),
    /// before the run begins: the app asked in an earlier run and was
    /// answered, or it has not asked and `answer` is what it will hear.
    mutating func presetAuthorization(_ preset: NotificationAuthorization, for app: AppID) -> [Effect] {
        setAuthorization(app, preset)
        switch preset.status {
        case .notDetermined:
            return preset.answer ? [] : [.log(app, "notifications: the person will not allow them when the app asks")]
        case .denied:
            return [.log(app, "notifications: the app asked before the run began and the person did not allow them")]
        case .authorized:
            return [.log(app, "notifications: the app asked before the run began and the person allowed \(preset.allowed.names)")]
        }
    }

    /// The person's choice: the answer they will give when the app asks, or,
    /// once it has, the app's switch in Settings › Notifications.
    mutating func setAllowed(_ allowed: Bool, for app: AppID) -> [Effect] {
        var auth = apps[Int(app.index)].authorization
        let effect: Effect
        switch auth.status {
        case .notDetermined:
            auth.answer = allowed
            effect = .log(app, "notifications: the person will " + (allowed ? "allow" : "not allow") + " them when the app asks")
        case .denied, .authorized:
            auth.status = allowed ? .authorized : .denied
            if allowed && auth.allowedRaw == 0 {
                auth.allowedRaw = NotificationPresentation([.alert, .sound, .badge]).rawValue
            }
            effect = .log(app, "notifications: the person turned this app's notifications "
                          + (allowed ? "on" : "off") + " in Settings")
        }
        setAuthorization(app, auth)
        return [effect]
    }
}

extension Engine {
    public func notificationAuthorization(of app: AppID) -> NotificationAuthorization {
        notifications.apps[Int(app.index)].authorization
    }

    /// `requestAuthorization(options:)`: returns whether it is granted.
    public mutating func requestNotificationAuthorization(for app: AppID, options: NotificationPresentation) -> Bool {
        let (granted, effects) = notifications.requestAuthorization(app, options: options)
        carryOut(effects)
        return granted
    }

    /// The person's choice as a scenario's app gives it, before the run begins.
    public mutating func presetNotificationAuthorization(_ preset: NotificationAuthorization, for app: AppID) {
        carryOut(notifications.presetAuthorization(preset, for: app))
    }

    /// The person's choice: the answer they will give, or the app's switch in Settings.
    public mutating func setNotificationsAllowed(_ allowed: Bool, for app: AppID) {
        apply(notifications.setAllowed(allowed, for: app))
    }
}
