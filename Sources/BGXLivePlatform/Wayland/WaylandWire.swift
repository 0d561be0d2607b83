/// The Wayland wire format, as far as a client that only listens needs it:
/// each message is the object's id, then its size (high 16 bits) and opcode,
/// then its arguments — 32-bit words, strings and arrays padded to four bytes.
struct WaylandMessage {
    var object: UInt32
    var opcode: UInt16
    var payload: [UInt8]

    /// A request's bytes: `words` are its 32-bit arguments in order, with strings where given.
    static func request(_ object: UInt32, _ opcode: UInt16, _ args: [WaylandArgument]) -> [UInt8] {
        var body: [UInt8] = []
        for arg in args {
            switch arg {
            case let .uint(v): body += le(v)
            case let .string(s):
                let bytes = Array(s.utf8) + [0]
                body += le(UInt32(bytes.count)) + bytes
                while body.count % 4 != 0 { body.append(0) }
            }
        }
        return le(object) + le(UInt32(8 + body.count) << 16 | UInt32(opcode)) + body
    }

    static func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)] }

    /// The whole messages at the start of `bytes`, and how many bytes they took.
    static func split(_ bytes: [UInt8]) throws -> (messages: [WaylandMessage], used: Int) {
        var messages: [WaylandMessage] = []
        var at = 0
        while bytes.count - at >= 8 {
            let object = word(bytes, at), header = word(bytes, at + 4)
            let size = Int(header >> 16)
            guard size >= 8, size % 4 == 0 else { throw WaylandError("a message of \(size) bytes") }
            guard bytes.count - at >= size else { break }
            messages.append(WaylandMessage(object: object, opcode: UInt16(header & 0xffff), payload: Array(bytes[at + 8..<at + size])))
            at += size
        }
        return (messages, at)
    }

    static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    /// Reads the arguments in order.
    struct Reader {
        var bytes: [UInt8]
        var at = 0
        mutating func uint() throws -> UInt32 {
            guard at + 4 <= bytes.count else { throw WaylandError("an argument cut short") }
            defer { at += 4 }
            return WaylandMessage.word(bytes, at)
        }
        mutating func array() throws -> [UInt8] {
            let n = Int(try uint())
            guard n <= bytes.count - at else { throw WaylandError("an array cut short") }
            defer { at += (n + 3) / 4 * 4 }
            return Array(bytes[at..<at + n])
        }
        /// A string (nil when the compositor sent none).
        mutating func string() throws -> String? {
            let raw = try array()
            guard !raw.isEmpty else { return nil }
            return String(decoding: raw.dropLast(), as: UTF8.self)
        }
    }
    var reader: Reader { Reader(bytes: payload) }
}

enum WaylandArgument {
    case uint(UInt32)
    case string(String)
}

struct WaylandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
