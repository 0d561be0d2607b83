import BGXCore
import Foundation

/// The report's wall clock: virtual time shown as the scenario's time of day
/// and calendar date, computed by hand from the start instant (UTC) so the
/// output never depends on the machine's locale or time zone.
struct ReportClock {
    /// Nanoseconds from the start day's midnight (UTC) to t = 0.
    let startOffset: Nanoseconds
    /// Days since 1970-01-01 of the start day.
    let startEpochDay: Int64

    init(start: Date) {
        let epochSeconds = Int64(start.timeIntervalSince1970.rounded())
        let day = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
        startEpochDay = day
        startOffset = Units.timeOfDay(of: start)
    }

    /// Wall-clock nanoseconds since the start day's midnight.
    func wall(_ t: Nanoseconds) -> Nanoseconds { t + startOffset }

    /// `08:00`, `08:00:05`, or `1d 08:00:05` with the day when asked.
    func clock(_ t: Nanoseconds, seconds: Bool = true, day: Bool = true) -> String {
        Time.wallClock(wall(t), seconds: seconds, day: day)
    }

    /// `Mon 2026-01-05` for the n-th calendar day of the run (0 = the start day).
    func date(ofDay n: Int64) -> String {
        let days = startEpochDay + n
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let date = CivilDate(day: days)
        return "\(weekdays[CivilDate.weekday(ofDay: days) - 1]) \(date.year)-\(Self.two(Int64(date.month)))-"
            + Self.two(Int64(date.day))
    }

    static func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

enum ReportFormat {
    /// Text made safe for HTML element content and attribute values.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// An SVG coordinate rounded to one decimal, without a trailing `.0`:
    /// short, and the same bytes on every platform.
    static func coordinate(_ x: Double) -> String {
        let tenths = Int64((x * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    /// A duration for people: `2m8s`, `0s`.
    static func duration(_ ns: Nanoseconds) -> String { Time.describe(ns) }
    static func duration(seconds: Double) -> String { Time.describe(Time.seconds(seconds)) }

    /// `user 2, fetch 1` — counts in a fixed order, `none` when empty.
    static func counts(_ pairs: [(String, Int)]) -> String {
        pairs.isEmpty ? "none" : pairs.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
}
