import BGXCore
import Foundation

/// What the system decided in a run, told per app for a person: repeated
/// decisions grouped (26 refresh launches, how many came shortly before a
/// predicted use, what held the rest back and how often), rare ones — kills,
/// expiries, held and dropped pushes — one line each, every time written
/// as the scenario writes moments (`0d 23:30`). The trace has every event;
/// this is what `bgx demo` prints.
public struct DecisionStory {
    let device: SimulatedDevice
    let offset: Nanoseconds

    public init(device: SimulatedDevice) {
        self.device = device
        offset = device.engine.wallClockOffset
    }

    /// A run's moment as the scenario writes it (`Engine.momentText`).
    public func clock(_ t: Nanoseconds) -> String { device.engine.momentText(t) }

    /// One trace event with its fields as strings.
    struct Event {
        var time: Nanoseconds
        var kind: TraceKind
        var fields: [String: String]
        subscript(_ name: String) -> String { fields[name] ?? "" }
    }

    public var lines: [String] {
        let renderer = device.renderer
        var byApp: [Int: [Event]] = [:]
        for e in device.trace {
            guard let app = e.app else { continue }
            var fields: [String: String] = [:]
            for (name, value) in renderer.fields(of: e) {
                switch value {
                case let .string(s): fields[name] = s
                case let .bool(b): fields[name] = b ? "true" : "false"
                case let .number(n): fields[name] = n == n.rounded() ? String(Int64(n)) : String(n)
                }
            }
            byApp[Int(app.index), default: []].append(Event(time: e.time, kind: e.traceKind, fields: fields))
        }
        var out: [String] = []
        for (i, name) in renderer.appNames.enumerated() {
            let told = app(byApp[i] ?? [])
            guard !told.isEmpty else { continue }
            out.append(name)
            out += told.map { "  " + $0 }
        }
        return out
    }

    // MARK: One app

    func app(_ events: [Event]) -> [String] {
        var out: [String] = []
        var identifiers: [String] = []
        for e in events where e.kind.rawValue.hasPrefix("task.") && !identifiers.contains(e["identifier"]) {
            identifiers.append(e["identifier"])
        }
        for id in identifiers { out += task(id, events.filter { $0.kind.rawValue.hasPrefix("task.") && $0["identifier"] == id }) }
        out += fetches(events)
        out += pushes(events)
        out += rare(events)
        return out
    }

    /// A BGTaskScheduler request's launches and what held it back.
    func task(_ id: String, _ events: [Event]) -> [String] {
        let type = events.first { $0.kind == .taskSubmit }?["type"] ?? ""
        let starts = events.filter { $0.kind == .taskStart }
        var out: [String] = []
        let what = type == "processing" ? "processing task" : type == "appRefresh" ? "app refresh" : "task"
        if starts.isEmpty {
            out.append("\(id) (\(what)): never launched")
        } else if starts.count <= 3 {
            out.append("\(id) (\(what)): \(count(starts.count, "launch", "launches"))")
            for s in starts { out.append("  \(clock(s.time))  \(s["reason"])") }
        } else {
            out.append("\(id) (\(what)): \(count(starts.count, "launch", "launches")), "
                       + "\(clock(starts.first!.time)) to \(clock(starts.last!.time))")
            out += startGroups(starts).map { "  " + $0 }
        }
        let defers = events.filter { $0.kind == .taskDefer }
        if !defers.isEmpty {
            out.append("  deferred \(count(defers.count, "time", "times")) (a deferral is recorded each time "
                       + "what holds it back changes), by the deciding policy:")
            out += byPolicy(defers).map { "    " + $0 }
        }
        for e in events where e.kind == .taskReject {
            out.append("  \(clock(e.time))  submit refused: \(e["error"]) (\(e["code"])) — \(e["reason"])")
        }
        let expired = events.filter { $0.kind == .taskExpire }
        if !expired.isEmpty {
            out.append("  expired \(count(expired.count, "time", "times")): "
                       + expired.prefix(3).map { clock($0.time) }.joined(separator: ", ")
                       + (expired.count > 3 ? ", …" : ""))
        }
        let failed = events.filter { $0.kind == .taskComplete && $0["success"] == "false" }
        if !failed.isEmpty { out.append("  completed unsuccessfully \(count(failed.count, "time", "times"))") }
        return out
    }

    /// Launches grouped by why they came then; for "predicted use", how
    /// close before the use they came and which habits the scheduler learned.
    func startGroups(_ starts: [Event]) -> [String] {
        var groups: [(key: String, events: [Event])] = []
        for s in starts {
            let key = Self.reasonKey(s["reason"])
            if let i = groups.firstIndex(where: { $0.key == key }) { groups[i].events.append(s) }
            else { groups.append((key, [s])) }
        }
        return groups.sorted { $0.events.count > $1.events.count }.map { key, events in
            let predicted = events.compactMap { e -> (lead: Nanoseconds, use: Nanoseconds)? in
                guard let text = Self.moment(after: "predicted use at ", in: e["reason"]),
                      let use = Units.moment(text, startOffset: offset) else { return nil }
                return (use - e.time, use)
            }
            if predicted.count == events.count, let lead = predicted.map(\.lead).max() {
                let habits = Set(predicted.map { Time.wallClock($0.use + offset, day: false) }).sorted()
                return "\(events.count) of them within \(Time.describe(lead)) before a predicted use "
                    + "(the person's habits it learned: \(habits.joined(separator: ", ")))"
            }
            return "\(events.count) of them: \(key)"
        }
    }

    /// Deferrals by the policy that decided, most frequent first.
    func byPolicy(_ events: [Event]) -> [String] {
        var groups: [(policy: String, count: Int, example: String)] = []
        var reasons: [String: [String: (count: Int, first: String)]] = [:]
        for e in events {
            let reason = Self.policyPart(e["reason"])
            let policy = String(reason.prefix { $0 != ":" })
            if let i = groups.firstIndex(where: { $0.policy == policy }) { groups[i].count += 1 }
            else { groups.append((policy, 1, reason)) }
            reasons[policy, default: [:]][Self.reasonKey(reason), default: (0, reason)].count += 1
        }
        // The example is the policy's most frequent reason (the first seen of equals).
        for i in groups.indices {
            let byKey = reasons[groups[i].policy] ?? [:]
            if let top = byKey.max(by: { a, b in a.value.count != b.value.count ? a.value.count < b.value.count : a.key > b.key }) {
                groups[i].example = top.value.first
            }
        }
        let width = groups.map(\.policy.count).max() ?? 0
        return groups.sorted { $0.count > $1.count }.map {
            "\($0.policy.padding(toLength: width, withPad: " ", startingAt: 0)) \(String($0.count).leftPadded(3))  "
                + "e.g. \(String($0.example.dropFirst($0.policy.count + 1)).trimmingCharacters(in: .whitespaces))"
        }
    }

    /// Legacy background fetch: launches and what held it back.
    func fetches(_ events: [Event]) -> [String] {
        let starts = events.filter { $0.kind == .fetchStart }
        let defers = events.filter { $0.kind == .fetchDefer }
        guard !starts.isEmpty || !defers.isEmpty else { return [] }
        var out = ["background fetch: \(count(starts.count, "launch", "launches"))"]
        if !defers.isEmpty {
            out.append("  deferred \(count(defers.count, "time", "times")), by the deciding policy:")
            out += byPolicy(defers).map { "    " + $0 }
        }
        return out
    }

    /// Pushes: how many of each type reached the app or the person, and
    /// each one held or dropped, with what became of the held ones.
    func pushes(_ events: [Event]) -> [String] {
        let delivered = events.filter { $0.kind == .pushDeliver }
        let dropped = events.filter { $0.kind == .pushDrop }
        guard !delivered.isEmpty || !dropped.isEmpty else { return [] }
        var out: [String] = []
        var types: [String] = []
        for e in delivered + dropped where !types.contains(e["type"]) { types.append(e["type"]) }
        for type in types {
            let d = delivered.filter { $0["type"] == type }
            let toUser = d.filter { $0["to"] == "user" }.count
            out.append("\(type) pushes: \(d.count) delivered"
                       + (toUser > 0 ? " (\(toUser) shown to the person)" : ""))
            // Events are in time order: one pass finds, for each held push, the next delivery to the app
            // and whether a newer push replaced it before then (a scan per push was quadratic).
            let toApp = d.filter { $0["to"] == "app" }.map(\.time)
            let replaced = dropped.filter { $0["type"] == type && $0["held"] == "false" && $0["reason"].hasPrefix("replaced") }
                .map(\.time)
            var nextDelivery = 0, nextReplaced = 0, shown = 0, more = 0
            for e in dropped where e["type"] == type {
                guard shown < Self.pushLinesPerType else { more += 1; continue }
                shown += 1
                var line = "  \(clock(e.time))  \(e["held"] == "true" ? "" : "dropped: ")\(e["reason"])"
                while nextDelivery < toApp.count, toApp[nextDelivery] <= e.time { nextDelivery += 1 }
                while nextReplaced < replaced.count, replaced[nextReplaced] <= e.time { nextReplaced += 1 }
                if e["held"] == "true", nextDelivery < toApp.count,
                   !(nextReplaced < replaced.count && replaced[nextReplaced] <= toApp[nextDelivery]) {
                    line += " → delivered \(clock(toApp[nextDelivery]))"
                }
                out.append(line)
            }
            if more > 0 { out.append("  … and \(more) more held or dropped (every one is in --trace)") }
        }
        return out
    }

    /// Held and dropped pushes listed one by one, per push type; the rest are counted.
    public static let pushLinesPerType = 40

    /// One line each: background tasks expired (with their names), kills,
    /// lost changes, and every other refusal or drop, grouped by reason.
    func rare(_ events: [Event]) -> [String] {
        var names: [String: String] = [:]
        var out: [String] = []
        var others: [(key: String, first: Nanoseconds, count: Int)] = []
        for e in events {
            switch e.kind {
            case .bgtaskBegin: names[e["id"]] = e["name"]
            case .bgtaskExpire:
                let named = e["name"].isEmpty ? names[e["id"]] : e["name"]
                let name = named.map { "\"\($0)\"" } ?? "#\(e["id"])"
                out.append("\(clock(e.time))  background task \(name) expired: its time is ending, "
                           + "the expiration handler runs")
            case .bgtaskInvalid:
                out.append("\(clock(e.time))  beginBackgroundTask \"\(e["name"])\" refused: \(e["reason"])")
            case .terminate:
                let code = e["code"].isEmpty ? "" : " (\(e["code"]))"
                let detail = e["detail"].isEmpty ? "" : " — \(e["detail"])"
                out.append("\(clock(e.time))  ended: \(e["reason"])\(code)\(detail)")
            case .changesLost:
                out.append("\(clock(e.time))  unsaved changes lost: \(e["reason"])")
            default:
                guard !e["reason"].isEmpty, !e.kind.rawValue.hasPrefix("task."), !e.kind.rawValue.hasPrefix("push."),
                      !e.kind.rawValue.hasPrefix("fetch."), e.kind != .state, e.kind != .bgtaskInvalid,
                      ["drop", "refuse", "reject", "fail", "defer", "cancel", "hold", "disconnect", "close"]
                        .contains(where: { e.kind.rawValue.hasSuffix("." + $0) }) else { continue }
                let key = "\(e.kind.rawValue): \(e["reason"])"
                if let i = others.firstIndex(where: { $0.key == key }) { others[i].count += 1 }
                else { others.append((key, e.time, 1)) }
            }
        }
        for o in others {
            out.append("\(clock(o.first))  \(o.key)" + (o.count > 1 ? " (\(o.count) times from then)" : ""))
        }
        return out
    }

    // MARK: Words

    func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    /// "score 0.9 ≥ 0.5 — ApplicationPolicy: …" → "ApplicationPolicy: …".
    static func policyPart(_ reason: String) -> String {
        guard let r = reason.range(of: " — ") else { return reason }
        return String(reason[r.upperBound...])
    }

    /// A reason without its score and moments: what groups launches.
    static func reasonKey(_ reason: String) -> String {
        var words = policyPart(reason).split(separator: " ").map(String.init)
        words.removeAll { w in
            let t = w.trimmingCharacters(in: CharacterSet(charactersIn: "()[]{},;"))
            return (t.hasSuffix("d") && Int(t.dropLast()) != nil) || Units.timeOfDay(t) != nil
        }
        if words.last == "at" { words.removeLast() }
        return words.joined(separator: " ")
    }

    /// The moment (`2d 08:00`) written after `prefix` in a reason.
    static func moment(after prefix: String, in reason: String) -> String? {
        guard let r = reason.range(of: prefix) else { return nil }
        let words = reason[r.upperBound...].split(separator: " ").prefix(2)
        return words.count == 2 ? words.joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: "()[]{},;"))
            : nil
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
