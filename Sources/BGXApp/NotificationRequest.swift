import BGXCore
import Foundation

/// `UNNotificationContent`: what a notification shows (rules §9). A request
/// keeps its own copy.
public class UNNotificationContent {
    public internal(set) var title = ""
    public internal(set) var body = ""
    /// nil: silent.
    public internal(set) var sound: UNNotificationSound?
    /// The app icon's badge once delivered; nil leaves it as it is.
    public internal(set) var badge: NSNumber?
    public internal(set) var subtitle = ""
    public internal(set) var userInfo: [AnyHashable: Any] = [:]
    public internal(set) var categoryIdentifier = ""
    public internal(set) var threadIdentifier = ""

    init() {}

    /// What the system keeps of a request but does not schedule by: the
    /// engine holds title, body, sound and badge; the process keeps these.
    func copyExtras(from other: UNNotificationContent) {
        subtitle = other.subtitle
        userInfo = other.userInfo
        categoryIdentifier = other.categoryIdentifier
        threadIdentifier = other.threadIdentifier
    }

    init(_ content: NotificationContent) {
        title = content.title
        body = content.body
        sound = content.sound.map(UNNotificationSound.init)
        badge = content.badge.map { NSNumber(value: $0) }
    }

    var value: NotificationContent {
        NotificationContent(title: title, body: body, sound: sound?.value, badge: badge?.intValue)
    }
}

/// `UNMutableNotificationContent`.
public final class UNMutableNotificationContent: UNNotificationContent {
    public override init() { super.init() }
    public override var title: String { get { super.title } set { super.title = newValue } }
    public override var body: String { get { super.body } set { super.body = newValue } }
    public override var sound: UNNotificationSound? { get { super.sound } set { super.sound = newValue } }
    public override var badge: NSNumber? { get { super.badge } set { super.badge = newValue } }
    public override var subtitle: String { get { super.subtitle } set { super.subtitle = newValue } }
    public override var userInfo: [AnyHashable: Any] { get { super.userInfo } set { super.userInfo = newValue } }
    public override var categoryIdentifier: String {
        get { super.categoryIdentifier } set { super.categoryIdentifier = newValue }
    }
    public override var threadIdentifier: String { get { super.threadIdentifier } set { super.threadIdentifier = newValue } }
}

/// `UNNotificationSoundName`: a sound file's name in the bundle.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
}

/// `UNNotificationSound`: the default sound or a bundled file (Linear PCM,
/// MA4, µ-Law or a-Law, under 30 s — otherwise the default plays instead).
public final class UNNotificationSound: Equatable {
    let value: NotificationSound
    init(_ value: NotificationSound) { self.value = value }
    public static var `default`: UNNotificationSound { UNNotificationSound(.default) }
    public convenience init(named name: UNNotificationSoundName) { self.init(.named(name.rawValue)) }
    public static func == (a: UNNotificationSound, b: UNNotificationSound) -> Bool { a.value == b.value }
}

/// `UNNotificationTrigger`.
public class UNNotificationTrigger {
    public let repeats: Bool
    init(repeats: Bool) { self.repeats = repeats }
    var value: NotificationTrigger { .immediate }

    /// When it would fire if added now, on the device's clock; nil if never
    /// (or outside app code).
    public func nextTriggerDate() -> Date? {
        guard let connection = ProcessContext.running?.connection,
              let seconds = connection.firstFiring(of: value) else { return nil }
        return connection.now.addingTimeInterval(seconds)
    }

    static func from(_ trigger: NotificationTrigger) -> UNNotificationTrigger? {
        switch trigger {
        case .immediate: nil
        case let .timeInterval(interval, repeats):
            UNTimeIntervalNotificationTrigger(timeInterval: Time.toSeconds(interval), repeats: repeats)
        case let .calendar(match, zone, repeats):
            UNCalendarNotificationTrigger(dateMatching: DateComponents(match, zone: zone), repeats: repeats)
        }
    }
}

/// `UNTimeIntervalNotificationTrigger`: `timeInterval` seconds after it is
/// added, and as often again if it repeats. iOS raises
/// NSInternalInconsistencyException for an interval of 0 or a repeat under
/// 60 s; bgx terminates the app when such a trigger is added.
public final class UNTimeIntervalNotificationTrigger: UNNotificationTrigger {
    public let timeInterval: TimeInterval
    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }
    override var value: NotificationTrigger { .timeInterval(Time.seconds(clamping: timeInterval), repeats: repeats) }
}

/// `UNCalendarNotificationTrigger`: the next moment the clock matches the
/// components. Without a `timeZone` in them the date floats with the
/// device's time zone; with one it is fixed to that zone's clock.
public final class UNCalendarNotificationTrigger: UNNotificationTrigger {
    public let dateComponents: DateComponents
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }
    override var value: NotificationTrigger {
        let c = dateComponents
        let match = DateMatch(year: c.year, month: c.month, day: c.day, weekday: c.weekday,
                              hour: c.hour, minute: c.minute, second: c.second)
        // Rules for the zone from a day ago to four years ahead of the device's clock.
        let now = ProcessContext.running?.connection.now ?? Date(timeIntervalSince1970: 0)
        let zone = c.timeZone.map {
            TimeZoneRules($0, from: now.addingTimeInterval(-86_400), through: now.addingTimeInterval(4 * 366 * 86_400))
        }
        return .calendar(match, timeZone: zone, repeats: repeats)
    }
}

/// `UNNotificationRequest`.
public final class UNNotificationRequest {
    public let identifier: String
    public let content: UNNotificationContent
    /// nil: delivered at once.
    public let trigger: UNNotificationTrigger?
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = UNNotificationContent(content.value)
        self.content.copyExtras(from: content)
        self.trigger = trigger
    }
}

/// `UNNotification`: a delivered notification.
public final class UNNotification {
    public let date: Date
    public let request: UNNotificationRequest
    init(date: Date, request: UNNotificationRequest) {
        self.date = date
        self.request = request
    }
}

/// `UNNotificationResponse`: the user opened a notification.
public final class UNNotificationResponse {
    public let notification: UNNotification
    public let actionIdentifier: String
    init(notification: UNNotification, actionIdentifier: String = UNNotificationDefaultActionIdentifier) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }
}

/// The action of tapping the notification itself.
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"

extension DateComponents {
    init(_ match: DateMatch, zone: TimeZoneRules?) {
        self.init(timeZone: zone.flatMap { TimeZone(identifier: $0.identifier) }, year: match.year, month: match.month,
                  day: match.day, hour: match.hour, minute: match.minute, second: match.second, weekday: match.weekday)
    }
}

extension TimeZoneRules {
    /// A Foundation time zone's offsets between two dates, as plain data.
    public init(_ zone: TimeZone, from start: Date, through end: Date) {
        var offsets = [Offset(from: .min, seconds: Int32(zone.secondsFromGMT(for: start)))]
        var date = start
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next <= end {
            offsets.append(Offset(from: Int64(next.timeIntervalSince1970.rounded()),
                                  seconds: Int32(zone.secondsFromGMT(for: next))))
            date = next
        }
        self.init(identifier: zone.identifier, offsets: offsets)
    }
}
