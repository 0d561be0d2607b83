import BGXCore

/// `bgx explain` and `bgx run`'s summary in the plugin's words: what the
/// plugin's task waits for, or what became of it, with iOS's reason beneath.
extension PluginExpansion {
    /// One line above `explain`'s iOS explanation of a plugin's task (nil for an identifier the plugin does not own).
    public func headline(_ e: TaskExplanation) -> String? {
        guard let name = name(of: e.identifier) else { return nil }
        switch e.status {
        case .pending:
            if e.wouldStartNow { return "\(name) starts now; iOS:" }
            if e.holds.isEmpty { return "\(name) is pending; iOS:" }
            return "\(name) waits for " + e.holds.map(\.waitsFor).joined(separator: "; and for ") + "; iOS:"
        case .running:
            return "\(name) is running: the \(plugin.language) callback has not finished; iOS:"
        case .notPending:
            guard let last = e.history.last else {
                return "\(name) was never submitted: the plugin submits it when the \(plugin.language) code runs after a launch; iOS:"
            }
            return "\(name) is not pending (last \(last.what)); iOS:"
        }
    }

    /// The summary's lines for the plugin's tasks, from the app's trace events.
    public func summaryLines(events: [TraceEvent], names: TraceRenderer) -> [String] {
        struct Tally { var starts = 0, expiries = 0, rejects: [String] = [], lastDefer: String? }
        var tally: [String: Tally] = [:]
        for event in events {
            let kind = event.traceKind
            guard kind.rawValue.hasPrefix("task.") else { continue }
            var identifier = "", reason = "", error = ""
            for (field, value) in names.fields(of: event) {
                guard case let .string(s) = value else { continue }
                switch field {
                case "identifier": identifier = s
                case "reason": reason = s
                case "error": error = s
                default: break
                }
            }
            guard task(identifier) != nil else { continue }
            switch kind {
            case .taskStart: tally[identifier, default: Tally()].starts += 1
            case .taskExpire: tally[identifier, default: Tally()].expiries += 1
            case .taskReject: tally[identifier, default: Tally()].rejects.append(error.isEmpty ? reason : error)
            case .taskDefer: tally[identifier, default: Tally()].lastDefer = reason
            default: break
            }
        }
        var lines = ["  \(plugin.name):"]
        for t in tasks {
            let n = tally[t.identifier] ?? Tally()
            var line = "    \(t.role) (`\(t.identifier)`) "
            if n.starts > 0 {
                line += "ran \(n.starts) time\(n.starts == 1 ? "" : "s")"
                if n.expiries > 0 { line += ", \(n.expiries) of them expired (iOS took the time back)" }
            } else if let reject = n.rejects.last {
                line += "never ran: iOS refused its request (\(reject))"
            } else if let wait = n.lastDefer {
                line += "never ran: it last waited for \(wait)"
            } else {
                line += "never ran: nothing submitted it in this run"
            }
            lines.append(line)
        }
        return lines
    }
}
