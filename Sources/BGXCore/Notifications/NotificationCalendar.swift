/// rules §9, "schedule at a date (with time zone)": the wall clocks a calendar
/// trigger is read on, and the matching of date components against them.
/// A time zone is plain data — its UTC offsets and when each begins — so the
/// engine needs no time-zone database; the host builds the table from one.
public struct TimeZoneRules: Sendable, Equatable, Codable {
    /// From `from` (Unix seconds) on, the local clock reads UTC + `seconds`.
    public struct Offset: Sendable, Equatable, Codable {
        public var from: Int64
        public var seconds: Int32
        public init(from: Int64, seconds: Int32) {
            self.from = from
            self.seconds = seconds
        }
    }
    /// An IANA name such as `Europe/Paris`.
    public var identifier: String
    /// Sorted by `from`; the first also applies before its start.
    public var offsets: [Offset]

    public init(identifier: String, offsets: [Offset]) {
        self.identifier = identifier
        self.offsets = offsets.isEmpty ? [Offset(from: .min, seconds: 0)] : offsets
    }

    public static let utc = TimeZoneRules(identifier: "UTC", offsets: [])

    /// Seconds the local clock is ahead of UTC at a Unix instant.
    public func offset(at unix: Int64) -> Int64 {
        var result = offsets[0].seconds
        for o in offsets.dropFirst() {
            guard o.from <= unix else { break }
            result = o.seconds
        }
        return Int64(result)
    }

    /// The Unix instant at which the local clock reads `local` (local seconds
    /// since 1970-01-01 00:00). A time skipped by a daylight-saving jump maps
    /// to the same distance past the jump.
    public func instant(atLocal local: Int64) -> Int64 {
        let guess = local - offset(at: local)
        return local - offset(at: guess)
    }

    public func local(_ unix: Int64) -> Int64 { unix + offset(at: unix) }
}

/// `DateComponents` as a calendar trigger matches them (Gregorian calendar).
/// A nil field above the most specific one given matches any value; below it,
/// its first value: `{hour: 8}` is every day at 08:00:00, `{minute: 30}` every
/// hour at :30, `{weekday: 2, hour: 9}` every Monday at 09:00.
public struct DateMatch: Sendable, Equatable, Codable {
    public var year: Int?
    public var month: Int?
    public var day: Int?
    /// 1 = Sunday … 7 = Saturday, as `Calendar` counts.
    public var weekday: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?

    public init(year: Int? = nil, month: Int? = nil, day: Int? = nil, weekday: Int? = nil,
                hour: Int? = nil, minute: Int? = nil, second: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.weekday = weekday
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    public var isEmpty: Bool { self == DateMatch() }

    /// The first instant strictly after `after` (Unix seconds) at which the
    /// clock in `zone` matches; nil when none does within four years (a date
    /// already past, or one that never exists).
    public func next(after: Int64, in zone: TimeZoneRules) -> Int64? {
        guard !isEmpty, isValid else { return nil }
        let times = timesOfDay()
        var day = CivilDate.floorDiv(zone.local(after), 86_400)
        for _ in 0..<(4 * 366 + 2) {
            if matches(day: day) {
                for t in times {
                    let instant = zone.instant(atLocal: day * 86_400 + t)
                    if instant > after { return instant }
                }
            }
            day += 1
        }
        return nil
    }

    /// Every given field is within its calendar range.
    public var isValid: Bool {
        func within(_ v: Int?, _ r: ClosedRange<Int>) -> Bool { v.map { r.contains($0) } ?? true }
        return within(month, 1...12) && within(day, 1...31) && within(weekday, 1...7)
            && within(hour, 0...23) && within(minute, 0...59) && within(second, 0...59)
    }

    func matches(day: Int64) -> Bool {
        if let weekday, CivilDate.weekday(ofDay: day) != weekday { return false }
        guard year != nil || month != nil || self.day != nil else { return true }
        let date = CivilDate(day: day)
        if let year, date.year != Int64(year) { return false }
        if let month, date.month != month { return false }
        if let d = self.day, date.day != d { return false }
        return true
    }

    /// The seconds after local midnight that match, in order.
    func timesOfDay() -> [Int64] {
        let hours = hour.map { [$0] } ?? (minute != nil || second != nil ? Array(0..<24) : [0])
        let minutes = minute.map { [$0] } ?? (second != nil ? Array(0..<60) : [0])
        let seconds = [second ?? 0]
        var times: [Int64] = []
        for h in hours { for m in minutes { for s in seconds { times.append(Int64(h * 3600 + m * 60 + s)) } } }
        return times
    }
}

/// A proleptic Gregorian date from a count of days since 1970-01-01
/// (Howard Hinnant's `civil_from_days` / `days_from_civil`).
public struct CivilDate: Sendable, Equatable {
    public var year: Int64
    public var month: Int
    public var day: Int

    public init(year: Int64, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public init(day z0: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: Int(m), day: Int(d))
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 1 = Sunday … 7 = Saturday (1970-01-01 was a Thursday).
    public static func weekday(ofDay day: Int64) -> Int { Int(((day + 4) % 7 + 7) % 7) + 1 }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

extension Engine {
    /// Unix seconds at a virtual moment (whole seconds, rounded down).
    public func unixSeconds(at t: Nanoseconds) -> Int64 {
        startEpochSeconds + CivilDate.floorDiv(t, Time.nanosecondsPerSecond)
    }

    /// The virtual moment of a Unix instant.
    public func virtualTime(ofUnix unix: Int64) -> Nanoseconds {
        (unix - startEpochSeconds) * Time.nanosecondsPerSecond
    }

    /// The local date `days` after the scenario's start date, on `zone`'s clock.
    public func date(daysAfterStart days: Int, in zone: TimeZoneRules) -> CivilDate {
        CivilDate(day: CivilDate.floorDiv(zone.local(startEpochSeconds), 86_400) + Int64(days))
    }
}
