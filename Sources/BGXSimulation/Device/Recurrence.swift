import BGXCore

/// When a recurring input happens: a time of day on chosen weekdays, over a
/// span of the run's days. The scenario language's `every:` entries
/// (docs/scenarios.md, "Recurring entries") and Swift's
/// `SimulatedDevice.schedule(_:every:until:)` (docs/own-app.md) both use it,
/// so the two give the same moments.
public struct Recurrence: Sendable, Equatable {
    /// Weekdays, 0 = Sunday … 6 = Saturday.
    public var weekdays: Set<Int>
    /// On the UTC clock, from midnight.
    public var timeOfDay: Nanoseconds
    /// The first day of the run it may happen on (0: the start's day).
    public var firstDay: Int
    /// How many days from `firstDay`; nil: to the end of the run.
    public var days: Int?

    public static let everyDay: Set<Int> = Set(0...6)
    public static let weekdays: Set<Int> = Set(1...5)
    public static let weekend: Set<Int> = [0, 6]

    public init(on weekdays: Set<Int>, at timeOfDay: Nanoseconds, fromDay firstDay: Int = 0, forDays days: Int? = nil) {
        self.weekdays = weekdays
        self.timeOfDay = timeOfDay
        self.firstDay = firstDay
        self.days = days
    }

    /// Its moments in a run that starts `startOffset` after midnight of the
    /// day `startEpochDay` (days since 1970-01-01) and lasts `duration`: in
    /// time order, within [0, duration], at most `limit` of them.
    public func moments(startEpochDay: Int64, startOffset: Nanoseconds, duration: Nanoseconds,
                        limit: Int = .max) -> [Nanoseconds] {
        let endDay = Int((startOffset + duration) / Time.days(1))
        let last = min(days.map { firstDay + $0 - 1 } ?? endDay, endDay)
        guard firstDay <= last else { return [] }
        var moments: [Nanoseconds] = []
        for day in firstDay...last {
            // `CivilDate` counts 1 = Sunday; a recurrence 0 = Sunday.
            guard weekdays.contains(CivilDate.weekday(ofDay: startEpochDay + Int64(day)) - 1) else { continue }
            let t = Time.days(day) + timeOfDay - startOffset
            guard t >= 0, t <= duration else { continue }
            moments.append(t)
            if moments.count >= limit { break }
        }
        return moments
    }
}

extension SimulatedDevice {
    /// The day the run started on, in days since 1970-01-01 (UTC).
    var startEpochDay: Int64 {
        Int64((Double(engine.startEpochSeconds) / 86_400).rounded(.down))
    }

    /// Schedules `event` at each moment of `recurrence` up to `end` (from the
    /// run's start): a scenario's `every:` entry, in Swift.
    public func schedule(_ event: EngineEvent, every recurrence: Recurrence, until end: Nanoseconds) {
        for t in recurrence.moments(startEpochDay: startEpochDay, startOffset: engine.wallClockOffset, duration: end) {
            schedule(event, at: t)
        }
    }

    /// The person's habit (a scenario's `usage:` entry, in Swift): every day
    /// up to `end`, at each session's time of day, open the app and go home
    /// when the session ends.
    public func scheduleDailyUse(of app: AppID, sessions: [(timeOfDay: Nanoseconds, length: Nanoseconds)],
                                 until end: Nanoseconds) {
        let startOffset = engine.wallClockOffset
        let days = Int((end + startOffset) / Time.days(1)) + 1
        for day in 0..<days {
            for session in sessions {
                let at = Time.days(day) + session.timeOfDay - startOffset
                guard at >= 0, at <= end else { continue }
                schedule(.user(.launch(app)), at: at)
                schedule(.user(.home), at: at + session.length)
            }
        }
    }
}
