/// Virtual time. The engine never reads a clock: time is an input, counted in
/// integer nanoseconds since the run began, so arithmetic is exact and traces
/// are byte-identical from run to run.
public typealias Nanoseconds = Int64

public enum Time {
    public static let nanosecondsPerSecond: Nanoseconds = 1_000_000_000

    @inlinable public static func seconds(_ s: Double) -> Nanoseconds {
        Nanoseconds((s * 1e9).rounded())
    }
    /// Seconds that app code passed in: NaN is 0, and anything beyond ±100
    /// years is 100 years (`Date.distantFuture.timeIntervalSinceNow` would
    /// overflow `seconds(_:)`).
    public static func seconds(clamping s: Double) -> Nanoseconds {
        guard !s.isNaN else { return 0 }
        let limit = 100.0 * 366 * 86_400
        return seconds(min(max(s, -limit), limit))
    }
    @inlinable public static func seconds(_ s: Int) -> Nanoseconds { Nanoseconds(s) * nanosecondsPerSecond }
    @inlinable public static func minutes(_ m: Int) -> Nanoseconds { seconds(m * 60) }
    @inlinable public static func hours(_ h: Int) -> Nanoseconds { seconds(h * 3600) }
    @inlinable public static func days(_ d: Int) -> Nanoseconds { seconds(d * 86_400) }

    @inlinable public static func toSeconds(_ ns: Nanoseconds) -> Double { Double(ns) / 1e9 }

    /// Exact decimal seconds with trailing zeros trimmed: `312.5`, `0`, `1.000000001`.
    public static func format(_ ns: Nanoseconds) -> String {
        let negative = ns < 0
        let magnitude = ns.magnitude
        let whole = magnitude / 1_000_000_000
        var frac = magnitude % 1_000_000_000
        var text = negative ? "-\(whole)" : "\(whole)"
        if frac != 0 {
            var digits = 9
            while frac % 10 == 0 { frac /= 10; digits -= 1 }
            let f = String(frac)
            text += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }

    /// A short human form for messages: `30s`, `2m`, `1h30m`, `500ms`, `1m2.5s`.
    public static func describe(_ ns: Nanoseconds) -> String {
        if ns < 0 { return "-" + describe(-ns) }
        if ns == 0 { return "0s" }
        if ns < nanosecondsPerSecond, ns % 1_000_000 == 0 { return "\(ns / 1_000_000)ms" }
        var s = ns / nanosecondsPerSecond
        let fraction = ns % nanosecondsPerSecond
        var parts = ""
        // Unrolled: an array of units here was built on every call.
        if s >= 86_400 { parts += "\(s / 86_400)d"; s %= 86_400 }
        if s >= 3600 { parts += "\(s / 3600)h"; s %= 3600 }
        if s >= 60 { parts += "\(s / 60)m"; s %= 60 }
        if s > 0 || fraction > 0 { parts += format(s * nanosecondsPerSecond + fraction) + "s" }
        return parts
    }

    /// Wall-clock text for a moment `wall` nanoseconds after the start day's
    /// midnight: `1d 08:15`, `1d 08:15:05`, or `08:15` without the day. Built
    /// digit by digit: traces, reports and rationales are full of these.
    public static func wallClock(_ wall: Nanoseconds, seconds: Bool = false, day: Bool = true) -> String {
        let total = wall / nanosecondsPerSecond
        let d = total / 86_400, rest = Int(total % 86_400)
        // Written as bytes into the string's own storage: appending scalars
        // one by one was a measurable share of a simulated week.
        var dayDigits = 1, m = d.magnitude
        while m >= 10 { m /= 10; dayDigits += 1 }
        let length = (day ? dayDigits + (d < 0 ? 1 : 0) + 2 : 0) + (seconds ? 8 : 5)
        // The exact length: up to 15 bytes the string is stored inline, no allocation.
        return String(unsafeUninitializedCapacity: length) { buffer in
            var n = 0
            func put(_ byte: UInt8) { buffer[n] = byte; n += 1 }
            func two(_ v: Int) { put(UInt8(48 + v / 10)); put(UInt8(48 + v % 10)) }
            if day {
                if d < 0 { put(45) }
                var v = d.magnitude
                for k in stride(from: n + dayDigits - 1, through: n, by: -1) { buffer[k] = UInt8(48 + v % 10); v /= 10 }
                n += dayDigits
                put(100)  // d
                put(32)
            }
            two(rest / 3600)
            put(58)
            two(rest % 3600 / 60)
            if seconds {
                put(58)
                two(rest % 60)
            }
            return n
        }
    }
}
