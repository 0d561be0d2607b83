/// SPEC §6 / issue "the scheduler": learns when the person uses an app, by
/// quarter-hour of the day over the past days, from the launches it sees —
/// so refresh lands shortly before predicted use, and rarely used apps run
/// rarely.
struct UsageHistory: Sendable {
    static let binsPerDay = 96
    static let bin: Nanoseconds = Time.minutes(15)

    var firstUse: Nanoseconds?
    var lastUse: Nanoseconds?
    /// Ring of days: which quarter-hours had a use, and how many uses.
    var dayNumber: [Int64]
    var bitsLow: [UInt64]
    var bitsHigh: [UInt64]
    var uses: [Int]
    /// Uses recorded so far (a version number for caches).
    var useCount = 0

    init(days: Int) {
        dayNumber = Array(repeating: -1, count: days)
        bitsLow = Array(repeating: 0, count: days)
        bitsHigh = Array(repeating: 0, count: days)
        uses = Array(repeating: 0, count: days)
    }

    /// `wall` is wall-clock time (virtual time plus the start's time of day).
    mutating func noteUse(at t: Nanoseconds, wall: Nanoseconds) {
        if firstUse == nil { firstUse = t }
        lastUse = t
        useCount += 1
        let day = wall / Time.days(1)
        let slot = Int(day % Int64(dayNumber.count))
        if dayNumber[slot] != day {
            dayNumber[slot] = day
            bitsLow[slot] = 0
            bitsHigh[slot] = 0
            uses[slot] = 0
        }
        let b = Int((wall % Time.days(1)) / Self.bin)
        if b < 64 { bitsLow[slot] |= 1 << UInt64(b) } else { bitsHigh[slot] |= 1 << UInt64(b - 64) }
        uses[slot] += 1
    }

    func usedInBin(slot: Int, bin b: Int) -> Bool {
        b < 64 ? bitsLow[slot] & (1 << UInt64(b)) != 0 : bitsHigh[slot] & (1 << UInt64(b - 64)) != 0
    }

    /// Days of history the predictor can draw on before `day`.
    func daysObserved(before day: Int64, firstUseWall: Nanoseconds) -> Int64 {
        min(Int64(dayNumber.count), max(0, day - firstUseWall / Time.days(1)))
    }

    /// For each quarter-hour of the day, on how many of the observed days
    /// before `day` the app was used then.
    func binCounts(beforeDay day: Int64, firstUseWall: Nanoseconds) -> (counts: [UInt8], observed: Int64) {
        let observed = daysObserved(before: day, firstUseWall: firstUseWall)
        var counts = [UInt8](repeating: 0, count: Self.binsPerDay)
        for slot in dayNumber.indices where dayNumber[slot] < day && dayNumber[slot] >= day - observed {
            for b in 0..<Self.binsPerDay where usedInBin(slot: slot, bin: b) { counts[b] += 1 }
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
        guard observed > 0 else { return nil }
        let start = wall - wall % Self.bin
        let first = Int((start % Time.days(1)) / Self.bin)
        for k in 0..<(2 * Self.binsPerDay) where Double(counts[(first + k) % Self.binsPerDay]) / Double(observed) >= threshold {
            return start + Int64(k) * Self.bin
        }
        return nil
    }

    /// Average uses a day over the last week's full days (today alone, on the first day).
    func usesPerDay(todayWall wall: Nanoseconds, firstUseWall: Nanoseconds) -> Double {
        let today = wall / Time.days(1)
        let fullDays = min(7, today - firstUseWall / Time.days(1))
        let from = fullDays > 0 ? today - fullDays : today
        let to = fullDays > 0 ? today - 1 : today
        var total = 0
        for slot in dayNumber.indices where dayNumber[slot] >= from && dayNumber[slot] <= to {
            total += uses[slot]
        }
        return Double(total) / Double(max(1, fullDays))
    }
}
