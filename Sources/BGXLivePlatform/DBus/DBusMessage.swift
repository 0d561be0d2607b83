/// One D-Bus message: the header fields the sources use and the body's values.
struct DBusMessage {
    enum Kind: UInt8 { case methodCall = 1, methodReturn = 2, error = 3, signal = 4 }
    var kind: Kind
    var serial: UInt32 = 0
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var replySerial: UInt32?
    var destination: String?
    var sender: String?
    var signature = ""
    var body: [DBusValue] = []

    /// A method call whose arguments are strings (`s`), object paths (`o`) or unsigned integers (`u`).
    static func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
                     signature: String = "", _ args: [DBusValue] = []) -> DBusMessage {
        var m = DBusMessage(kind: .methodCall)
        m.destination = destination
        m.path = path
        m.interface = interface
        m.member = member
        m.signature = signature
        m.body = args
        return m
    }

    /// The wire bytes (little-endian), with `serial`.
    func encoded(serial: UInt32) throws -> [UInt8] {
        var body = DBusWriter()
        let types = try DBusSignature.split(signature)
        guard types.count == self.body.count else { throw DBusFormatError("\(member ?? "?"): \(self.body.count) values for \(signature)") }
        for (type, value) in zip(types, self.body) { try body.write(value, as: type) }
        var w = DBusWriter()
        w.bytes += [UInt8(ascii: "l"), kind.rawValue, 0, 1]
        w.uint32(UInt32(body.bytes.count))
        w.uint32(serial)
        var fields: [(UInt8, String, DBusValue)] = []
        if let path { fields.append((1, "o", .text(path))) }
        if let interface { fields.append((2, "s", .text(interface))) }
        if let member { fields.append((3, "s", .text(member))) }
        if let destination { fields.append((6, "s", .text(destination))) }
        if !signature.isEmpty { fields.append((8, "g", .text(signature))) }
        try w.array(elementAlignment: 8) { w in
            for (code, type, value) in fields {
                w.align(8)
                w.bytes.append(code)
                w.signature(type)
                try w.write(value, as: type)
            }
        }
        w.align(8)
        return w.bytes + body.bytes
    }

    /// How many bytes the message at the start of `bytes` takes; nil: not all there yet.
    static func length(of bytes: ArraySlice<UInt8>) throws -> Int? {
        guard bytes.count >= 16 else { return nil }
        let little = bytes[bytes.startIndex] == UInt8(ascii: "l")
        guard little || bytes[bytes.startIndex] == UInt8(ascii: "B") else { throw DBusFormatError("bad endianness byte") }
        func u32(_ at: Int) -> Int {
            let b = (0..<4).map { Int(bytes[bytes.startIndex + at + $0]) }
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
        }
        let bodyLength = u32(4), fieldsLength = u32(12)
        let total = (16 + fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= 128 * 1024 * 1024 else { throw DBusFormatError("message of \(total) bytes") }
        return bytes.count >= total ? total : nil
    }

    /// Reads one whole message.
    init(decoding bytes: ArraySlice<UInt8>) throws {
        var r = DBusReader(bytes: Array(bytes))
        r.littleEndian = bytes[bytes.startIndex] == UInt8(ascii: "l")
        r.offset = 1
        guard let kind = Kind(rawValue: try r.byte()) else { throw DBusFormatError("unknown message type") }
        self.kind = kind
        r.offset = 4
        let bodyLength = Int(try r.uint32())
        serial = try r.uint32()
        guard case let .array(fields) = try r.read("a(yv)") else { throw DBusFormatError("header fields") }
        for field in fields {
            guard case let .group(pair) = field, pair.count == 2, case let .unsigned(code) = pair[0] else { continue }
            let value = pair[1].unwrapped
            switch code {
            case 1: path = value.string
            case 2: interface = value.string
            case 3: member = value.string
            case 4: errorName = value.string
            case 5: if case let .unsigned(u) = value { replySerial = UInt32(truncatingIfNeeded: u) }
            case 6: destination = value.string
            case 7: sender = value.string
            case 8: signature = value.string ?? ""
            default: break
            }
        }
        r.align(8)
        let bodyStart = r.offset
        guard bodyStart + bodyLength <= r.bytes.count else { throw DBusFormatError("body cut short") }
        for type in try DBusSignature.split(signature) { body.append(try r.read(type)) }
        guard r.offset <= bodyStart + bodyLength else { throw DBusFormatError("body longer than said") }
    }

    private init(kind: Kind) { self.kind = kind }
}
