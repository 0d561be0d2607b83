/// A value in a D-Bus message, as far as the platform sources read them:
/// numbers, text, and the containers that hold them.
indirect enum DBusValue: Equatable, CustomStringConvertible {
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case bool(Bool)
    /// A string, an object path or a signature.
    case text(String)
    case array([DBusValue])
    /// A struct or a dict entry.
    case group([DBusValue])
    case variant(DBusValue)

    /// What a variant holds (a property's value).
    var unwrapped: DBusValue { if case let .variant(v) = self { return v.unwrapped } else { return self } }
    var string: String? { if case let .text(s) = unwrapped { return s } else { return nil } }
    var boolValue: Bool? { if case let .bool(b) = unwrapped { return b } else { return nil } }
    var number: Double? {
        switch unwrapped {
        case let .integer(i): return Double(i)
        case let .unsigned(u): return Double(u)
        case let .double(d): return d
        default: return nil
        }
    }
    var description: String {
        switch self {
        case let .integer(i): return "\(i)"
        case let .unsigned(u): return "\(u)"
        case let .double(d): return "\(d)"
        case let .bool(b): return "\(b)"
        case let .text(s): return "\"\(s)\""
        case let .array(a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case let .group(g): return "(" + g.map(\.description).joined(separator: ", ") + ")"
        case let .variant(v): return "<\(v)>"
        }
    }
}

/// A message that does not follow the D-Bus wire format.
struct DBusFormatError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
