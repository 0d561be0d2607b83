import BGXCore

/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): device i's stream is a pure function of the
/// fleet's seed and i, so any device — and so any shard — can be run alone
/// and draw exactly what it drew in the whole fleet. No global random.
public struct FleetRandom: RandomNumberGenerator, Sendable {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The seed of device `index` of a fleet: its person's draws and its engine's seed.
    public static func deviceSeed(fleetSeed: UInt64, device index: Int) -> UInt64 {
        mix(fleetSeed &+ mix(UInt64(truncatingIfNeeded: index) &+ 0x9E37_79B9_7F4A_7C15))
    }

    /// SplitMix64's finaliser.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    public mutating func chance(_ share: Double) -> Bool { unit() < share }

    mutating func pick<V>(_ draw: Draw<V>, between: (V, V, Double) -> V) -> V {
        switch draw {
        case let .fixed(v): return v
        case let .between(lo, hi): return between(lo, hi, unit())
        case let .weighted(choices):
            var u = unit() * choices.reduce(0) { $0 + $1.1 }
            for (v, w) in choices {
                if u < w { return v }
                u -= w
            }
            return choices[choices.count - 1].0
        }
    }

    mutating func count(_ d: Draw<Int>) -> Int { pick(d) { lo, hi, u in lo + Int(u * Double(hi - lo + 1)) } }
    mutating func duration(_ d: Draw<Nanoseconds>) -> Nanoseconds {
        pick(d) { lo, hi, u in lo + Nanoseconds(u * Double(hi - lo)) }
    }
    /// Sizes in a range are drawn to the megabyte.
    mutating func size(_ d: Draw<Int64>) -> Int64 {
        pick(d) { lo, hi, u in ((lo + Int64(u * Double(hi - lo))) >> 20) << 20 }
    }
    mutating func choice<V>(_ d: Draw<V>) -> V { pick(d) { lo, _, _ in lo } }
    /// A moment inside a window of the day drawn from `d`.
    mutating func moment(in d: Draw<DayWindow>) -> Nanoseconds {
        let w = choice(d)
        return w.from + Nanoseconds(unit() * Double(w.to - w.from))
    }
}
