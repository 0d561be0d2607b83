/// Renders trace events as the JSON Lines docs/scenarios.md ("The trace") describes, byte for byte the same on
/// every run: fields in a fixed order, times as exact decimals.
public struct TraceRenderer: Sendable {
    public var names: TraceNames
    public var appNames: [String] { names.apps }

    public init(names: TraceNames) { self.names = names }

    public func fields(of event: TraceEvent) -> [(String, TraceField)] { event.fields(names) }

    /// Written by hand, not by `InlineJSONEncoder`: a line per engine event is the hot path (and a byte contract).
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
