import BGXCore
import Foundation
import Yams

/// An app's `notifications:` and `sounds:`, and the `notify` action (rules §9).
extension ScenarioParser {
    struct AuthorizationReading {
        var status = NotificationAuthorizationStatus.notDetermined
        var allowed: NotificationPresentation?
        var answer = true
        var written = Mapping()
    }

    typealias AuthorizationKey = ScenarioKey<AuthorizationReading>

    static let authorizationStatuses: [NotificationAuthorizationStatus] = [.notDetermined, .denied, .authorized]
    static let presentationNames: [String: NotificationPresentation] = ["alert": .alert, "sound": .sound, "badge": .badge]

    /// `notifications: {authorization, allowed, answer}`: what the person
    /// has answered, or will answer, when the app asks to show notifications.
    static let notificationsKeys = ScenarioSection<AuthorizationReading>(what: "notifications", keys: [
        AuthorizationKey("authorization") { p, node, key, d in
            let text = try p.scalar(node, key)
            let names = Self.authorizationStatuses.map(\.description)
            guard let i = names.firstIndex(of: text) else { throw p.unknown(node, key, text, names) }
            d.status = Self.authorizationStatuses[i]
        },
        AuthorizationKey("allowed") { p, node, key, d in
            guard d.status == .authorized else {
                throw p.err(d.written.keyNodes[key], "'\(key)' is what the person let an app show once it asked; "
                            + "it needs 'authorization: authorized'")
            }
            d.allowed = try p.presentation(node, key)
        },
        AuthorizationKey("answer") { p, node, key, d in
            guard d.status == .notDetermined else {
                throw p.err(d.written.keyNodes[key], "'\(key)' is what the person says when the app first asks; "
                            + "with 'authorization: \(d.status)' it has asked already")
            }
            let text = try p.scalar(node, key)
            guard text == "allow" || text == "deny" else { throw p.unknown(node, key, text, ["allow", "deny"]) }
            d.answer = text == "allow"
        },
    ], declaredOrder: true, check: { _, m, _, d in d.written = m })

    func notificationAuthorization(_ node: Node) throws -> NotificationAuthorization {
        var d = AuthorizationReading()
        try read(Self.notificationsKeys, node, into: &d)
        let allowed = d.allowed ?? (d.status == .authorized ? [.alert, .sound, .badge] : [])
        return NotificationAuthorization(status: d.status, allowed: allowed, answer: d.answer)
    }

    /// A list of `alert`, `sound`, `badge`.
    func presentation(_ node: Node, _ what: String) throws -> NotificationPresentation {
        var options: NotificationPresentation = []
        for item in try sequence(node, what) {
            let name = try scalar(item, what)
            guard let option = Self.presentationNames[name] else {
                throw unknown(item, "notification option", name, ["alert", "sound", "badge"])
            }
            options.insert(option)
        }
        return options
    }

    typealias SoundKey = ScenarioKey<BundleSound>

    /// One of an app's `sounds: [{file, format, length}]`: a sound file in its bundle.
    static let soundKeys = ScenarioSection<BundleSound>(what: "a sound", keys: [
        SoundKey("file", needed: { "a sound needs '\($0):' (its name in the bundle)" }) { p, node, key, s in
            s.file = try p.scalar(node, key)
        },
        SoundKey("format", needed: { "a sound needs '\($0):' (\(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")))" }) {
            p, node, key, s in
            let name = try p.scalar(node, key)
            guard let format = AudioFormat(rawValue: name) else {
                throw p.unknown(node, "audio format", name, AudioFormat.allCases.map(\.rawValue))
            }
            s.format = format
        },
        SoundKey("length") { p, node, key, s in
            s.length = try p.duration(node, key)
            guard s.length > 0 else { throw p.err(node, "\(key) must be longer than 0") }
        },
    ], declaredOrder: true)

    func sounds(_ node: Node) throws -> [BundleSound] {
        try sequence(node, "sounds").map { item in
            var sound = BundleSound(file: "", format: .linearPCM)
            try read(Self.soundKeys, item, into: &sound)
            return sound
        }
    }

    struct NotifyReading {
        var id = ""
        var repeats = false
        var zone: TimeZoneRules?
        /// Where `timeZone` and `repeat` are written, for the rules between keys.
        var zoneKey: Node?
        var repeatNode: Node?
        var after: Node?
        var at: Node?
        var content = NotificationContent(body: "")
        var written = Mapping()
        let context: MomentContext
    }

    typealias NotifyKey = ScenarioKey<NotifyReading>

    /// `notify: {id, after | at, repeat, body, sound, badge, timeZone}`; when
    /// it fires is read once every key is (`notifyWhen`).
    static let notifyKeys = ScenarioSection<NotifyReading>(what: "notify", keys: [
        NotifyKey("id", needed: { "'notify' needs an \($0)" }) { p, node, key, d in
            d.id = try p.scalar(node, key)
            guard !d.id.isEmpty, !d.id.contains(where: { $0.isWhitespace }) else {
                throw p.err(node, "a notification id cannot be empty or contain spaces")
            }
        },
        NotifyKey("after") { _, node, _, d in d.after = node },
        NotifyKey("at") { _, node, _, d in d.at = node },
        NotifyKey("repeat") { p, node, key, d in
            d.repeats = try p.bool(node, key)
            d.repeatNode = node
        },
        NotifyKey("body") { p, node, key, d in d.content.body = try p.scalar(node, key) },
        NotifyKey("sound") { p, node, key, d in
            let name = try p.scalar(node, key)
            guard !name.isEmpty else { throw p.err(node, "\(key) is 'default' or a sound file's name") }
            d.content.sound = name == "default" ? .default : .named(name)
        },
        NotifyKey("badge") { p, node, key, d in
            guard let b = Int32(try p.scalar(node, key)), b >= 0 else {
                throw p.err(node, "\(key) must be a whole number from 0 to \(Int32.max)")
            }
            d.content.badge = Int(b)
        },
        NotifyKey("timeZone") { p, node, key, d in
            d.zone = try p.timeZone(node, d.context)
            d.zoneKey = d.written.keyNodes[key]
        },
    ], declaredOrder: true, check: { _, m, _, d in d.written = m })

    func notify(_ node: Node, _ context: MomentContext) throws -> ScenarioApp.Notify {
        var d = NotifyReading(context: context)
        try read(Self.notifyKeys, node, into: &d)
        return ScenarioApp.Notify(id: d.id, when: try notifyWhen(d, node), repeats: d.repeats, content: d.content,
                                  timeZone: d.zone)
    }

    /// After a time interval, at a moment or clock time, or (neither) at once.
    func notifyWhen(_ d: NotifyReading, _ node: Node) throws -> ScenarioApp.Notify.When {
        let context = d.context
        switch (d.after, d.at) {
        case let (a?, nil):
            let length = try duration(a, "after")
            // What UNTimeIntervalNotificationTrigger raises NSInternalInconsistencyException for;
            // a request with no trigger is how iOS posts at once.
            guard length > 0 else {
                throw err(a, "after: time interval must be greater than 0 (UNTimeIntervalNotificationTrigger); "
                          + "to post at once, leave out 'after' and 'at' (a request with no trigger)")
            }
            if d.repeats, length < context.profile.notifications.minimumRepeatInterval {
                throw err(a, "after: a repeating notification's interval must be at least "
                          + "\(Time.describe(context.profile.notifications.minimumRepeatInterval)) (iOS raises "
                          + "'time interval must be at least 60 if repeating')")
            }
            if let z = d.zoneKey { throw err(z, "timeZone belongs to 'at:' clock times, not to 'after:'") }
            return .after(length)
        case let (nil, t?): return try notifyMoment(t, repeats: d.repeats, hasZone: d.zone != nil, context)
        case (.some, .some): throw err(node, "'notify' takes either 'after' or 'at', not both")
        case (nil, nil):
            // `UNNotificationRequest(identifier:content:trigger: nil)`: delivered at once [D].
            if let r = d.repeatNode, d.repeats { throw err(r, "repeat: a notification with no trigger is delivered once, at once") }
            if let z = d.zoneKey {
                throw err(z, "timeZone belongs to 'at:' clock times; a notification with no trigger is delivered at once")
            }
            return .now
        }
    }
}
