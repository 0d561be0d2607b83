/// rules §6 / issue "the scheduler": learns when the person uses an app, by
/// quarter-hour of the day over the past days, from the launches it sees —
/// so refresh lands shortly before predicted use, and rarely used apps run
/// rarely.
struct UsageHistory: Sendable, Codable {
    static let binsPerDay = 96
    static let bin: Nanoseconds = Time.minutes(15)

    var firstUse: Nanoseconds?
    var lastUse: Nanoseconds?
    /// Ring of days: which quarter-hours had a use, and how many uses. One
    /// array of records, not one per field: the history is copied with the
    /// app's record more often than one would like, and each array is a retain.
    var days: [DayUse]
    /// A version number for caches of what the past days say: it moves only
    /// when a day's first use resets a slot of the ring (and with the very
    /// first use). Later uses of the day change only today, which no
    /// prediction reads, so they leave the caches valid.
    var version = 0

    struct DayUse: Sendable, Codable {
        var day: Int64 = -1
        var bitsLow: UInt64 = 0
        var bitsHigh: UInt64 = 0
        var uses = 0

        func used(inBin b: Int) -> Bool {
            b < 64 ? bitsLow & (1 << UInt64(b)) != 0 : bitsHigh & (1 << UInt64(b - 64)) != 0
        }

        mutating func noteBin(_ b: Int) {
            if b < 64 { bitsLow |= 1 << UInt64(b) } else { bitsHigh |= 1 << UInt64(b - 64) }
        }
    }

    init(days count: Int) {
        days = Array(repeating: DayUse(), count: count)
    }

    /// `wall` is wall-clock time (virtual time plus the start's time of day).
    mutating func noteUse(at t: Nanoseconds, wall: Nanoseconds) {
        if firstUse == nil { firstUse = t; version += 1 }
        lastUse = t
        let day = wall / Time.days(1)
        let slot = Int(day % Int64(days.count))
        if days[slot].day != day { version += 1 }
        let b = Int((wall % Time.days(1)) / Self.bin)
        // One access to the ring for the whole update.
        Self.tally(&days[slot], day: day, bin: b)
    }

    private static func tally(_ d: inout DayUse, day: Int64, bin b: Int) {
        if d.day != day { d = DayUse(day: day) }
        d.noteBin(b)
        d.uses += 1
    }

    /// The record of day `d`, if the ring still holds it.
    func day(_ d: Int64) -> DayUse? {
        let record = days[Int(d % Int64(days.count))]
        return record.day == d ? record : nil
    }

    /// Days of history the predictor can draw on before `day`.
    func daysObserved(before day: Int64, firstUseWall: Nanoseconds) -> Int64 {
        min(Int64(days.count), max(0, day - firstUseWall / Time.days(1)))
    }

    /// For each quarter-hour of the day, on how many of the observed days
    /// before `day` the app was used then.
    func binCounts(beforeDay day: Int64, firstUseWall: Nanoseconds) -> (counts: [UInt8], observed: Int64) {
        let observed = daysObserved(before: day, firstUseWall: firstUseWall)
        var counts = [UInt8](repeating: 0, count: Self.binsPerDay)
        for d in days where d.day < day && d.day >= day - observed {
            for b in 0..<Self.binsPerDay where d.used(inBin: b) { counts[b] += 1 }
        }
        return (counts, observed)
    }

    /// The first quarter-hour at or after `wall` (within two days) in which the
    /// app was used on at least `threshold` of the observed past days; as wall
    /// time. Tomorrow is predicted from the same days as today.
    func predictedUse(afterWall wall: Nanoseconds, firstUseWall: Nanoseconds, threshold: Double) -> Nanoseconds? {
        let (counts, observed) = binCounts(beforeDay: wall / Time.days(1), firstUseWall: firstUseWall)
        return Self.predictedUse(afterWall: wall, counts: counts, observed: observed, threshold: threshold)
    }

    static func predictedUse(afterWall wall: Nanoseconds, counts: [UInt8], observed: Int64,
                             threshold: Double) -> Nanoseconds? {
        guard observed > 0, !threshold.isNaN else { return nil }
        // The fewest days of use that reach the threshold, found once, so the
        // search compares counts (the share grows with the count).
        let estimate = threshold * Double(observed)
        var enough = estimate.isFinite ? max(0, Int(min(estimate, 256).rounded(.down)) - 1) : (estimate > 0 ? 256 : 0)
        while enough <= Int(UInt8.max), Double(enough) / Double(observed) < threshold { enough += 1 }
        guard enough <= Int(UInt8.max) else { return nil }
        let start = wall - wall % Self.bin
        let first = Int((start % Time.days(1)) / Self.bin)
        // Tomorrow's quarter-hours repeat today's: a day from `first` covers both —
        // the rest of today, then today's from midnight.
        let bins = Self.binsPerDay
        let k: Int? = counts.withUnsafeBufferPointer { c in
            let need = UInt8(enough)
            if let b = c[first..<bins].firstIndex(where: { $0 >= need }) { return b - first }
            return c[0..<first].firstIndex(where: { $0 >= need }).map { $0 + bins - first }
        }
        return k.map { start + Int64($0) * Self.bin }
    }

    /// Average uses a day over the last week's full days (today alone, on the first day).
    func usesPerDay(todayWall wall: Nanoseconds, firstUseWall: Nanoseconds) -> Double {
        let today = wall / Time.days(1)
        let fullDays = min(7, today - firstUseWall / Time.days(1))
        let from = fullDays > 0 ? today - fullDays : today
        let to = fullDays > 0 ? today - 1 : today
        var total = 0
        for d in days where d.day >= from && d.day <= to { total += d.uses }
        return Double(total) / Double(max(1, fullDays))
    }
}
