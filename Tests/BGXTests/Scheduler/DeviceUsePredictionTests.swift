@testable import BGXCore
import Testing

/// `DeviceUsePrediction.usedSoon` builds, with bit shifts, what the rule says
/// bin by bin: quarter-hour b counts as "used soon" when the device was used
/// in one of the h quarter-hours from b on, running into the next day.
@Suite("Device use prediction: the hour after each quarter-hour, by bits")
struct DeviceUsePredictionTests {
    /// The rule, written the plain way.
    static func usedSoonByBins(_ today: UsageHistory.DayUse?, _ next: UsageHistory.DayUse?, h: Int) -> [Bool] {
        let bins = UsageHistory.binsPerDay
        return (0..<bins).map { b in
            (0..<h).contains { k in
                let slot = b + k
                if slot < bins { return today?.used(inBin: slot) ?? false }
                return slot - bins < bins ? next?.used(inBin: slot - bins) ?? false : false
            }
        }
    }

    static func day(_ rng: inout SplitMix, density: UInt64) -> UsageHistory.DayUse? {
        if rng.next() % 5 == 0 { return nil }   // a day the ring no longer holds
        var d = UsageHistory.DayUse()
        for b in 0..<UsageHistory.binsPerDay where rng.next() % 100 < density { d.noteBin(b) }
        return d
    }

    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("rules §6: the bits agree with the rule bin by bin, for horizons of 1 to 40 quarter-hours and days sparse to full",
          arguments: [1, 2, 3, 4, 8, 31, 32, 33, 40])
    func bitsAgreeWithTheRule(h: Int) {
        var rng = SplitMix(state: UInt64(h))
        for round in 0..<300 {
            let density = [0, 2, 10, 50, 95, 100][round % 6]
            let today = Self.day(&rng, density: UInt64(density)), next = Self.day(&rng, density: UInt64(density))
            let soon = DeviceUsePrediction.usedSoon(today, next, horizonBins: h)
            let expected = Self.usedSoonByBins(today, next, h: h)
            let got = (0..<UsageHistory.binsPerDay).map { soon.used(inBin: $0) }
            #expect(got == expected, "h \(h), round \(round)")
            if got != expected { return }
        }
    }
}

/// `UsageHistory.predictedUse` compares counts with the fewest days that reach
/// the threshold; the rule is the share of the observed days, scanned over two days.
@Suite("Predicted use: counts against the threshold's share")
struct PredictedUseTests {
    static func byShares(afterWall wall: Int64, counts: [UInt8], observed: Int64, threshold: Double) -> Int64? {
        guard observed > 0 else { return nil }
        let bin = UsageHistory.bin, bins = UsageHistory.binsPerDay
        let start = wall - wall % bin
        let first = Int((start % Time.days(1)) / bin)
        for k in 0..<(2 * bins) where Double(counts[(first + k) % bins]) / Double(observed) >= threshold {
            return start + Int64(k) * bin
        }
        return nil
    }

    @Test("rules §6: the same quarter-hour as the shares give, for any counts, days observed and threshold")
    func sameAsTheShares() {
        var rng = DeviceUsePredictionTests.SplitMix(state: 7)
        let thresholds = [0, 0.1, 0.25, 1.0 / 3, 0.5, 0.6, 2.0 / 3, 0.75, 0.9, 1, 1.5, -1, .infinity, .nan]
        for round in 0..<4000 {
            let observed = Int64(rng.next() % 15)
            let counts = (0..<UsageHistory.binsPerDay).map { _ in UInt8(rng.next() % UInt64(max(1, observed + 1))) }
            let threshold = round % 3 == 0 ? thresholds[round % thresholds.count] : Double(rng.next() % 1001) / 1000
            let wall = Int64(rng.next() % UInt64(Time.days(30)))
            let got = UsageHistory.predictedUse(afterWall: wall, counts: counts, observed: observed, threshold: threshold)
            let expected = Self.byShares(afterWall: wall, counts: counts, observed: observed, threshold: threshold)
            #expect(got == expected, "observed \(observed), threshold \(threshold), wall \(wall)")
            if got != expected { return }
        }
    }
}
