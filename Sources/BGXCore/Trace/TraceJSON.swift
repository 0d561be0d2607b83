/// Renders trace events as the JSON Lines docs/scenarios.md ("The trace") describes, byte for byte the same on
/// every run: fields in a fixed order, times as exact decimals.
public struct TraceRenderer: Sendable {
    public var names: TraceNames
    public var appNames: [String] { names.apps }

    public init(names: TraceNames) { self.names = names }

    public func fields(of event: TraceEvent) -> [(String, TraceField)] { event.fields(names) }

    public func jsonLine(_ event: TraceEvent) -> String {
        var line = "{\"t\": " + Time.format(event.time)
        if let app = event.app {
            line += ", \"app\": "
            TraceRenderer.appendJSONString(names.app(app), to: &line)
        }
        line += ", \"kind\": \"" + event.kindName + "\""
        for (name, value) in fields(of: event) {
            line += ", \"" + name + "\": "
            switch value {
            case let .string(s): TraceRenderer.appendJSONString(s, to: &line)
            case let .bool(b): line += b ? "true" : "false"
            case let .number(n): line += TraceField.numberText(n)
            }
        }
        line += "}"
        return line
    }

    public static func appendJSONString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension Engine {
    public var traceNames: TraceNames {
        var names = TraceNames(apps: [], notifications: [], texts: [])
        updateTraceNames(&names)
        return names
    }

    /// Brings names made earlier up to date. Apps, notification identifiers
    /// and texts are only ever added (or a slot reused after `traceWritten`),
    /// so only what is new is put into words. A host that writes the trace as
    /// it runs (the live daemon) keeps one `TraceNames` and updates it before each write: making them
    /// afresh put every decision so far into words at every write, a cost
    /// that grew with the daemon's age (quadratic over a run, and over the
    /// replay of a long journal at restart).
    public func updateTraceNames(_ names: inout TraceNames) {
        if names.apps.count < apps.count {
            names.apps += apps[names.apps.count...].map(\.manifest.bundleIdentifier)
        }
        if names.notifications.count < notifications.names.count {
            names.notifications += notifications.names[names.notifications.count...]
        }
        let from = names.texts.count
        // Slots the engine let go and reused since (`traceWritten`) say something new.
        for i in texts.reusedSince where Int(i) < from {
            names.texts[Int(i)] = text(TextID(index: i))
            names.scores[i] = texts.decision(at: i).flatMap(\.scores)
        }
        guard from < texts.strings.count else { return }
        // Whole, the table is shared, not copied.
        if from == 0 { names.texts = texts.strings } else { names.texts += texts.strings[from...] }
        for k in texts.firstDecision(atOrAfter: Int32(from))..<texts.decisionIndices.count {
            let i = texts.decisionIndices[k], d = texts.decisions[k]
            names.texts[Int(i)] = d.text(wallClockOffset: wallClockOffset)
            if let scores = d.scores { names.scores[i] = scores }
        }
    }
    public var traceRenderer: TraceRenderer { TraceRenderer(names: traceNames) }
}

