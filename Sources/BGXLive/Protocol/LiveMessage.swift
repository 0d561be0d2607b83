import BGXCore
import Foundation

/// The live protocol's one schema, for both directions (docs/live-protocol.md):
/// the app's calls and the daemon's replies, the daemon's callbacks and the
/// app's acknowledgements, and `bgx ctl`'s commands.
public struct LiveMessage: Codable, Equatable, Sendable {
    /// `hello`, `welcome`, `call`, `reply`, `callback`, `ack`, `ctl`, `trace`, `end`.
    public var type: String
    /// Pairs a reply with its call, an ack with its callback.
    public var seq: Int?
    /// `hello`: `app` or `ctl`.
    public var role: String?
    /// `hello` from an app: its bundle identifier.
    public var app: String?
    /// The call's, callback's or ctl verb's name.
    public var name: String?
    /// Named arguments, as text.
    public var args: [String: String]?
    /// `reply` and `welcome`: whether it worked.
    public var ok: Bool?
    /// `reply`: what went wrong, or a ctl verb's output; `trace`: one line.
    public var text: String?

    public init(type: String, seq: Int? = nil, role: String? = nil, app: String? = nil, name: String? = nil,
                args: [String: String]? = nil, ok: Bool? = nil, text: String? = nil) {
        self.type = type
        self.seq = seq
        self.role = role
        self.app = app
        self.name = name
        self.args = args
        self.ok = ok
        self.text = text
    }

    public static func reply(to seq: Int?, ok: Bool, text: String? = nil, args: [String: String]? = nil) -> LiveMessage {
        LiveMessage(type: "reply", seq: seq, args: args, ok: ok, text: text)
    }

    /// The JSON object, keys sorted, written directly: a frame is encoded for
    /// every call, reply, callback and trace line, and Foundation's encoder
    /// cost more than the rest of a round trip.
    public func encoded() -> [UInt8] {
        var out = "{"
        var first = true
        func key(_ name: String) {
            if !first { out += ", " }
            first = false
            out += "\"" + name + "\": "
        }
        func string(_ name: String, _ value: String?) {
            guard let value else { return }
            key(name)
            TraceRenderer.appendJSONString(value, to: &out)
        }
        string("app", app)
        if let args {
            key("args")
            out += "{"
            for (i, name) in args.keys.sorted().enumerated() {
                if i > 0 { out += ", " }
                TraceRenderer.appendJSONString(name, to: &out)
                out += ": "
                TraceRenderer.appendJSONString(args[name]!, to: &out)
            }
            out += "}"
        }
        string("name", name)
        if let ok { key("ok"); out += ok ? "true" : "false" }
        string("role", role)
        if let seq { key("seq"); out += String(seq) }
        string("text", text)
        string("type", type)
        out += "}"
        return Array(out.utf8)
    }

    static let decoder = JSONDecoder()

    public static func decode(_ payload: [UInt8]) throws(FrameError) -> LiveMessage {
        do {
            return try decoder.decode(LiveMessage.self, from: Data(payload))
        } catch {
            throw .malformed("not a message object (\(Self.shortReason(error)))")
        }
    }

    static func shortReason(_ error: Error) -> String {
        switch error as? DecodingError {
        case let .keyNotFound(key, _)?: "no \"\(key.stringValue)\""
        case let .typeMismatch(_, context)?, let .valueNotFound(_, context)?:
            "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "not JSON"
        }
    }

    /// A frame ready to write, or nil when it would be over the bound.
    public func frame() -> [UInt8]? {
        let payload = encoded()
        return payload.count <= Frame.maximumPayload ? Frame.encode(payload) : nil
    }
}
