import BGXCore
import Foundation

/// The small languages of scenario values: durations, sizes, percentages,
/// times of day. Each returns nil on bad input; the parser reports where.
public enum Units {
    /// `500ms` `30s` `15m` `2h` `7d` `1h30m` `1.5s`.
    public static func duration(_ text: String) -> Nanoseconds? {
        guard let seconds = durationSeconds(text), seconds <= Time.toSeconds(ScenarioLimits.longestDuration) else { return nil }
        return Time.seconds(seconds)
    }

    /// A well-formed duration longer than `ScenarioLimits.longestDuration`.
    public static func isDurationOutOfRange(_ text: String) -> Bool {
        durationSeconds(text).map { $0 > Time.toSeconds(ScenarioLimits.longestDuration) } ?? false
    }

    static func durationSeconds(_ text: String) -> Double? {
        let s = text.trimmingCharacters(in: .whitespaces)
        guard !s.isEmpty else { return nil }
        var total: Double = 0
        var rest = Substring(s)
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            let scale: Double
            switch unit {
            case "ms": scale = 1e-3
            case "s": scale = 1
            case "m", "min": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            default: return nil
            }
            total += value * scale
        }
        guard total.isFinite else { return nil }
        return total
    }

    /// `150MB` `2GB` `512KB` `100B` (binary units).
    public static func size(_ text: String) -> Int64? {
        let s = text.trimmingCharacters(in: .whitespaces)
        let number = s.prefix { $0.isNumber || $0 == "." }
        guard !number.isEmpty, let value = Double(number), value >= 0 else { return nil }
        let scale: Double
        switch s.dropFirst(number.count).trimmingCharacters(in: .whitespaces).uppercased() {
        case "B", "": scale = 1
        case "KB": scale = 1024
        case "MB": scale = 1024 * 1024
        case "GB": scale = 1024 * 1024 * 1024
        case "TB": scale = 1024 * 1024 * 1024 * 1024
        default: return nil
        }
        let bytes = value * scale
        guard bytes.isFinite, bytes < 9e18 else { return nil }
        return Int64(bytes.rounded())
    }

    /// `2MB/s`.
    public static func bandwidth(_ text: String) -> Int64? {
        guard text.hasSuffix("/s") else { return nil }
        return size(String(text.dropLast(2)))
    }

    /// `80%` or `80`.
    public static func percent(_ text: String) -> Int? {
        let s = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let v = Int(s.trimmingCharacters(in: .whitespaces)), (0...100).contains(v) else { return nil }
        return v
    }

    /// The wall-clock time of day of an instant (UTC): what t = 0 is, for a
    /// scenario starting then.
    public static func timeOfDay(of date: Date) -> Nanoseconds {
        let seconds = Int64(date.timeIntervalSince1970.rounded())
        return Time.seconds(Int(((seconds % 86_400) + 86_400) % 86_400))
    }

    /// `HH:MM` or `HH:MM:SS` as time after midnight.
    public static func timeOfDay(_ text: String) -> Nanoseconds? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m),
              parts[1].count == 2 else { return nil }
        var s = 0
        if parts.count == 3 {
            guard let sec = Int(parts[2]), (0..<60).contains(sec) else { return nil }
            s = sec
        }
        return Time.seconds(h * 3600 + m * 60 + s)
    }

    /// A moment of the run: `HH:MM` on day 0, `Nd HH:MM`, `Tue HH:MM` (the
    /// first such moment at or after the start, when `start` is given), or a
    /// duration from the start (`90s`, `2h`). `startOffset` is the start's
    /// time after midnight. The scenario's `at:`, `between:` and `bgx
    /// explain --at` all read moments here.
    public static func moment(_ text: String, startOffset: Nanoseconds, start: Date? = nil) -> Nanoseconds? {
        // The timeline's usual forms, read byte by byte: a scenario of megabytes has hundreds of thousands.
        if let (day, tod) = dayAndClock(text) { return Time.days(day) + tod - startOffset }
        return momentTheLongWay(text, startOffset: startOffset, start: start)
    }

    /// Every form `moment` reads, with Foundation's trimming and splitting.
    static func momentTheLongWay(_ text: String, startOffset: Nanoseconds, start: Date?) -> Nanoseconds? {
        let s = text.trimmingCharacters(in: .whitespaces)
        if !s.contains(":") { return duration(s) }
        let pieces = s.split(separator: " ")
        var day = 0
        var clock = Substring(s)
        if pieces.count == 2 {
            clock = pieces[1]
            if let weekday = weekdays.firstIndex(of: String(pieces[0])), let start {
                guard let tod = timeOfDay(String(clock)) else { return nil }
                let startDay = Int64((start.timeIntervalSince1970 / 86_400).rounded(.down))
                let startWeekday = CivilDate.weekday(ofDay: startDay) - 1     // 0 = Sunday, as `weekdays`
                var t = Time.days((weekday - startWeekday + 7) % 7) + tod - startOffset
                if t < 0 { t += Time.days(7) }
                return t
            }
            guard pieces[0].hasSuffix("d"), let d = Int(pieces[0].dropLast()), (0...36_500).contains(d) else { return nil }
            day = d
        } else if pieces.count != 1 {
            return nil
        }
        guard let tod = timeOfDay(String(clock)) else { return nil }
        return Time.days(day) + tod - startOffset
    }

    /// `HH:MM`, `HH:MM:SS`, `Nd HH:MM` or `Nd HH:MM:SS` with nothing around them: (day, time of day);
    /// nil for anything else, which `moment` then reads the long way (and refuses if it must).
    static func dayAndClock(_ text: String) -> (Int, Nanoseconds)? {
        var text = text
        return text.withUTF8 { b -> (Int, Nanoseconds)? in
            var i = 0, day = 0
            func digits(_ count: Int) -> Int? {
                guard i + count <= b.count else { return nil }
                var v = 0
                for k in i..<(i + count) {
                    guard b[k] >= 48 && b[k] <= 57 else { return nil }
                    v = v * 10 + Int(b[k] - 48)
                }
                i += count
                return v
            }
            if let d = b.firstIndex(of: UInt8(ascii: "d")) {
                guard d > 0, d <= 5, d + 1 < b.count, b[d + 1] == UInt8(ascii: " "), let n = digits(d),
                      n <= 36_500 else { return nil }
                day = n
                i = d + 2
            }
            guard let h = digits(2), h < 24, i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard let m = digits(2), m < 60 else { return nil }
            var sec = 0
            if i < b.count {
                guard b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                guard let s = digits(2), s < 60 else { return nil }
                sec = s
            }
            guard i == b.count else { return nil }
            return (day, Time.seconds(h * 3600 + m * 60 + sec))
        }
    }

    /// The known word nearest a misspelt one, for "did you mean …?" (nil when none is near).
    public static func nearest(_ word: String, in candidates: [String]) -> String? {
        BGXSimulation.nearest(word, in: candidates)
    }

    /// Day names as the scenario writes them (`Mon 08:00`), Sunday first.
    public static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
}

/// The nearest known word, for "did you mean …?".
func nearest(_ word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
    let w = Array(word.lowercased())
    let best = candidates.map { ($0, distance(w, Array($0.lowercased()))) }.min { $0.1 < $1.1 }
    guard let (candidate, d) = best, d <= max(2, word.count / 3) else { return nil }
    return candidate
}
