import BGXCore
import Foundation
import Yams

/// A recurring timeline entry (docs/scenarios.md, `timeline:`):
/// `{every: day, at: "23:00", from: 1d, for: 5d, device: {charging: true}}` —
/// the same input at a time of day on every chosen day of a span, so a week
/// of habits is a few lines instead of a generated list.
extension ScenarioParser {
    /// What `every:` accepts besides day names.
    static let recurrenceWords = ["day", "weekday", "weekend"]
    /// Day names as `every:` writes them, Sunday first (the index is the weekday, 0 = Sunday).
    static let recurrenceDays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The moments of a recurring entry, in time order.
    func recurrence(_ m: Mapping, _ context: MomentContext) throws -> [Nanoseconds] {
        let everyNode = m["every"]!
        let days = try recurrenceDays(everyNode)
        let atNode = m["at"]!
        let atText = try scalar(atNode, "at")
        guard let timeOfDay = Units.timeOfDay(atText) else {
            throw err(atNode, "at: with 'every:', 'at:' is a time of day like \"23:00\", got '\(atText)'")
        }
        var first = 0
        if let n = m["from"] { first = try dayNumber(n, "from") }
        let endDay = Int((context.startOffset + context.duration) / Time.days(1))
        var last = endDay
        if let n = m["for"] {
            let span = try duration(n, "for")
            guard span > 0, span % Time.days(1) == 0 else {
                throw err(n, "for: a span of whole days like 5d, got '\(try scalar(n, "for"))'")
            }
            last = first + Int(span / Time.days(1)) - 1
        }
        guard first <= endDay else {
            throw err(m["from"], "from: day \(first) is after the scenario ends on day \(endDay) "
                      + "(duration \(Time.describe(context.duration)))")
        }
        let startDay = Int64((context.start.timeIntervalSince1970 / 86_400).rounded(.down))
        let recurrence = Recurrence(on: days, at: timeOfDay, fromDay: first,
                                    forDays: m["for"] == nil ? nil : last - first + 1)
        let moments = recurrence.moments(startEpochDay: startDay, startOffset: context.startOffset,
                                         duration: context.duration, limit: limits.timelineEntries + 1)
        guard !moments.isEmpty else {
            throw err(everyNode, "every: this entry never happens: no chosen day has \(atText) within the run "
                      + "(\(Time.describe(context.duration)) from \(Time.wallClock(context.startOffset)) on day 0)")
        }
        return moments
    }

    /// `every: day | weekday | weekend | mon … sun | [mon, wed, …]`, as weekdays (0 = Sunday).
    func recurrenceDays(_ node: Node) throws -> Set<Int> {
        let items: [Node]
        if case .sequence = node { items = try sequence(node, "every") } else { items = [node] }
        guard !items.isEmpty else { throw err(node, "every: name at least one day") }
        var days = Set<Int>()
        for item in items {
            let word = try scalar(item, "every")
            switch word.lowercased() {
            case "day": days.formUnion(0...6)
            case "weekday": days.formUnion(1...5)
            case "weekend": days.formUnion([0, 6])
            case let name:
                guard let i = Self.recurrenceDays.firstIndex(of: String(name.prefix(3))),
                      name.count == 3 || Self.fullDayNames[i] == name else {
                    throw unknown(item, "'every:' day", word,
                                  Self.recurrenceWords + Self.recurrenceDays)
                }
                days.insert(i)
            }
        }
        return days
    }

    static let fullDayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// `from: 2d`: a day of the run (`0d` is the start's day).
    func dayNumber(_ node: Node, _ what: String) throws -> Int {
        let text = try scalar(node, what)
        guard text.hasSuffix("d"), let d = Int(text.dropLast()), d >= 0, d <= 36_500 else {
            throw err(node, "\(what): a day of the run like 0d or 2d, got '\(text)'")
        }
        return d
    }
}
