/// rules §6: dasd's prediction of when the person uses the device, which
/// DeviceActivityPolicy scores processing by [O]. dasd does not count the
/// time since the lock: it asks how likely the person is to pick the device
/// up soon, from a timeline by quarter-hour learned from their past days —
/// low in the evening, while they keep coming back to the phone, high in
/// the night. The best moment that timeline promises in a request's window
/// also sets the request's threshold (`SchedulingPolicies.thresholdScore`).
///
/// bgx learns from the device's unlocked periods: every quarter-hour the
/// device spent unlocked on a past day counts as a quarter-hour of use. A
/// quarter-hour's quietness is the share of the observed past days on which
/// the device was not used in the hour that starts there
/// (`deviceUseHorizon`). It learns when the device charges the same way: the
/// best moment is the quarter-hour the past days promise the highest score
/// from the two (quiet, and on the charger), the policies that change most
/// between evening and night. Without a past day to learn from there is no
/// prediction, and the policy falls back to the idle rule alone.
struct DeviceUsePrediction: Sendable, Codable {
    /// The quarter-hours of each past day the device spent in one state
    /// (unlocked; on the charger), and since when it is in it now.
    struct Periods: Sendable, Codable {
        private(set) var since: Nanoseconds?
        private(set) var history: UsageHistory

        init(days: Int, since: Nanoseconds?) {
            history = UsageHistory(days: days)
            self.since = since
        }

        mutating func began(at now: Nanoseconds) {
            if since == nil { since = now }
        }

        mutating func ended(at now: Nanoseconds, wallClockOffset: Nanoseconds) {
            note(until: now, wallClockOffset: wallClockOffset)
            since = nil
        }

        /// Marks each quarter-hour the current period has touched; it goes on from now.
        mutating func note(until now: Nanoseconds, wallClockOffset: Nanoseconds) {
            guard let from = since else { return }
            let bin = UsageHistory.bin
            var start = (from + wallClockOffset) / bin * bin
            let end = now + wallClockOffset
            repeat {
                history.noteUse(at: max(from, start - wallClockOffset), wall: start)
                start += bin
            } while start < end
            since = now
        }
    }

    /// The device unlocked (in use), and on the charger.
    private(set) var use: Periods
    private(set) var power: Periods
    /// Quietness by quarter-hour of the day (empty: nothing observed yet):
    /// the share of the past days on which the device was not used in the
    /// `deviceUseHorizon` from then. A day's quarter-hour counts only when
    /// the whole horizon after it was seen — after the run began, and before
    /// now. Rebuilt by `refresh` when the day or the history moves;
    /// judgements only read it.
    private(set) var quiet: [Double] = []
    /// By quarter-hour: on how many past days it was seen, and used soon after.
    private(set) var observed: [Int] = []
    private(set) var usedSoon: [Int] = []
    /// By quarter-hour: the share of the days seen then that had the device on the charger.
    private(set) var plugged: [Double] = []
    /// When the device began to be watched (wall time of the run's start).
    private var watchedFrom: Nanoseconds?
    private var tableDay: Int64 = -1
    private var tableVersion = -1
    private var tableBin: Int64 = -1
    private var horizonBins = 4

    init(days: Int) {
        use = Periods(days: days, since: nil)
        power = Periods(days: days, since: nil)
    }

    /// The run began: quarter-hours before this were never seen.
    mutating func watch(fromWall wall: Nanoseconds) {
        if watchedFrom == nil { watchedFrom = wall }
    }

    mutating func unlocked(at now: Nanoseconds) { use.began(at: now) }
    mutating func locked(at now: Nanoseconds, wallClockOffset: Nanoseconds) {
        use.ended(at: now, wallClockOffset: wallClockOffset)
    }
    mutating func plugged(in charging: Bool, at now: Nanoseconds, wallClockOffset: Nanoseconds) {
        if charging { power.began(at: now) } else { power.ended(at: now, wallClockOffset: wallClockOffset) }
    }

    /// Brings the tables to now (the scheduler's loop calls it before
    /// judging): at each new day, when the history moves, and each
    /// quarter-hour of the first horizon after midnight, while yesterday's
    /// last quarter-hours are still being seen.
    mutating func refresh(now: Nanoseconds, wallClockOffset: Nanoseconds, horizonBins: Int) {
        let nowWall = now + wallClockOffset
        let day = nowWall / Time.days(1), bin = nowWall / UsageHistory.bin
        let settling = nowWall % Time.days(1) < Int64(horizonBins) * UsageHistory.bin
        if day != tableDay || (settling && bin != tableBin) {
            use.note(until: now, wallClockOffset: wallClockOffset)
            power.note(until: now, wallClockOffset: wallClockOffset)
        }
        let version = use.history.version &+ power.history.version &* 1_000_003
        guard day != tableDay || version != tableVersion || (settling && bin != tableBin) else { return }
        tableDay = day
        tableVersion = version
        tableBin = bin
        self.horizonBins = horizonBins
        let bins = UsageHistory.binsPerDay
        let firsts = [use.history.firstUse, power.history.firstUse].compactMap { $0 }
        guard let first = firsts.min(), let from = watchedFrom else { quiet = []; return }
        let days = use.history.daysObserved(before: day, firstUseWall: first + wallClockOffset)
        guard days > 0 else { quiet = []; return }
        var seen = [Int](repeating: 0, count: bins), used = seen, charging = seen
        let horizon = Int64(horizonBins) * UsageHistory.bin
        let binLength = UsageHistory.bin
        for d in day - days..<day {
            let soon = Self.usedSoon(use.history.day(d), use.history.day(d + 1), horizonBins: horizonBins)
            let power = power.history.day(d) ?? UsageHistory.DayUse()
            // The quarter-hours of day d seen whole: from the run's start, with the horizon after them before now.
            let dayStart = d * Time.days(1)
            let low = from <= dayStart ? 0 : Int(min(Int64(bins), (from - dayStart + binLength - 1) / binLength))
            let last = nowWall - horizon - dayStart
            let high = last < 0 ? 0 : Int(min(Int64(bins), last / binLength + 1))
            guard low < high else { continue }
            for b in low..<high {
                seen[b] += 1
                if soon.used(inBin: b) { used[b] += 1 }
                if power.used(inBin: b) { charging[b] += 1 }
            }
        }
        guard seen.contains(where: { $0 > 0 }) else { quiet = []; return }
        observed = seen
        usedSoon = used
        // A quarter-hour never seen promises nothing either way: as quiet as no history says.
        // (Typed closures: inferring these two took the compiler about 0.8 s.)
        quiet = (0..<bins).map { (b: Int) -> Double in seen[b] == 0 ? 1 : 1 - Double(used[b]) / Double(seen[b]) }
        plugged = (0..<bins).map { (b: Int) -> Double in seen[b] == 0 ? 0 : Double(charging[b]) / Double(seen[b]) }
    }

    /// The quarter-hours of a day (as a day's record) from which the device
    /// was used within `horizonBins`, the horizon running into the next day:
    /// the day's bits, then the next day's, each shifted by 0 to h − 1 and or-ed.
    static func usedSoon(_ today: UsageHistory.DayUse?, _ next: UsageHistory.DayUse?,
                         horizonBins h: Int) -> UsageHistory.DayUse {
        let bins = UsageHistory.binsPerDay
        // Bins 0–63 in `low`; 64–95, then the next day's from 0, in `high` (so up to 32 of them).
        let low = today?.bitsLow ?? 0
        let high = (today?.bitsHigh ?? 0) & 0xFFFF_FFFF | (next?.bitsLow ?? 0) << 32
        var soon = UsageHistory.DayUse()
        if h <= 32 {
            for k in 0..<h {
                soon.bitsLow |= k == 0 ? low : low >> UInt64(k) | high << UInt64(64 - k)
                soon.bitsHigh |= high >> UInt64(k)
            }
            soon.bitsHigh &= 0xFFFF_FFFF
            return soon
        }
        // A horizon longer than 8 hours: bin by bin.
        for b in 0..<bins {
            for k in 0..<h {
                let slot = b + k
                let used = slot < bins ? today?.used(inBin: slot) ?? false
                    : slot - bins < bins ? next?.used(inBin: slot - bins) ?? false : false
                if used { soon.noteBin(b); break }
            }
        }
        return soon
    }

    /// The quietness predicted for the quarter-hour holding `wall`, with on
    /// how many of the days it was seen the device was used in the horizon
    /// from then (nil: no prediction for that quarter-hour).
    func prediction(atWall wall: Nanoseconds) -> (quiet: Double, usedDays: Int, observed: Int)? {
        guard !quiet.isEmpty else { return nil }
        let b = Int((wall % Time.days(1)) / UsageHistory.bin)
        guard observed[b] > 0 else { return nil }
        return (quiet[b], usedSoon[b], observed[b])
    }

    /// When `prediction(atWall:)` may next answer differently: the next
    /// quarter-hour that predicts otherwise, each quarter-hour of the first
    /// horizon after midnight (yesterday's last ones still being seen), and
    /// midnight at the latest, when a new day joins the history.
    func predictionChanges(afterWall wall: Nanoseconds) -> Nanoseconds {
        let bins = UsageHistory.binsPerDay
        let bin = UsageHistory.bin
        let midnight = wall - wall % Time.days(1) + Time.days(1)
        let next = wall - wall % bin + bin
        if wall % Time.days(1) < Int64(horizonBins) * bin { return next }
        guard !quiet.isEmpty else { return midnight }
        let first = Int((wall % Time.days(1)) / bin)
        var changesAt = next
        var b = first + 1
        while b < bins, quiet[b] == quiet[first], (observed[b] > 0) == (observed[first] > 0) { b += 1; changesAt += bin }
        return min(changesAt, midnight)
    }

    /// The first quarter-hour at or after `wall` at which the past days
    /// promise the best score from DeviceActivityPolicy (quiet, at least
    /// `floor`) and ChargerPluggedInPolicy (on the charger), weighed as the
    /// scheduler weighs them (nil: no prediction). Tomorrow is predicted from
    /// the same days as today.
    func bestMoment(atOrAfterWall wall: Nanoseconds, floor: Double,
                    deviceActivityWeight: Double, chargerWeight: Double) -> Nanoseconds? {
        guard !quiet.isEmpty else { return nil }
        let bins = UsageHistory.binsPerDay
        func promise(_ b: Int) -> Double { deviceActivityWeight * max(floor, quiet[b]) + chargerWeight * plugged[b] }
        let best = (0..<bins).map(promise).max() ?? 0
        let start = wall - wall % UsageHistory.bin
        let first = Int((start % Time.days(1)) / UsageHistory.bin)
        for k in 0..<bins where promise((first + k) % bins) >= best {
            return k == 0 ? wall : start + Int64(k) * UsageHistory.bin
        }
        return nil
    }
}
