/// rules §9: the numbers the notification controller decides by.
public struct NotificationSettings: Sendable, Equatable, Codable {
    /// How many scheduled notifications an app may hold; the soonest-firing
    /// are kept. modern 64 [D], ios6 128 [S].
    public var limit: Int
    /// What happens past the limit: modern and ios12 keep the soonest-firing
    /// and drop the rest silently [D]; ios6 refuses the request past 128 [S].
    public var overflow: LocalNotificationOverflow
    /// Shortest repeat interval for a repeating notification: 60 s [O].
    public var minimumRepeatInterval: Nanoseconds
    /// A custom alert sound this long or longer is replaced by the default: 30 s [D].
    public var maximumAlertSoundLength: Nanoseconds

    public init(limit: Int = 64, overflow: LocalNotificationOverflow = .keepSoonest,
                minimumRepeatInterval: Nanoseconds = Time.seconds(60),
                maximumAlertSoundLength: Nanoseconds = Time.seconds(30)) {
        self.limit = limit
        self.overflow = overflow
        self.minimumRepeatInterval = minimumRepeatInterval
        self.maximumAlertSoundLength = maximumAlertSoundLength
    }
}

/// rules §9: what becomes of a notification past an app's limit.
public enum LocalNotificationOverflow: Sendable, Equatable, Codable {
    /// Every request is taken; only the soonest-firing are kept.
    case keepSoonest
    /// A request past the limit is refused.
    case refuseNew
}
