/// D-Bus's type signatures: one complete type after another.
enum DBusSignature {
    /// The complete types of a signature ("sa{sv}" → ["s", "a{sv}"]).
    static func split(_ signature: String) throws -> [String] {
        let chars = Array(signature)
        var types: [String] = []
        var i = 0
        while i < chars.count {
            let end = try completeType(chars, from: i, depth: 0)
            types.append(String(chars[i..<end]))
            i = end
        }
        return types
    }

    /// Where the complete type starting at `i` ends.
    static func completeType(_ chars: [Character], from i: Int, depth: Int) throws -> Int {
        guard depth < 64, i < chars.count else { throw DBusFormatError("bad signature") }
        switch chars[i] {
        case "a": return try completeType(chars, from: i + 1, depth: depth + 1)
        case "(", "{":
            let close: Character = chars[i] == "(" ? ")" : "}"
            var j = i + 1
            while j < chars.count, chars[j] != close { j = try completeType(chars, from: j, depth: depth + 1) }
            guard j < chars.count, j > i + 1 else { throw DBusFormatError("bad signature") }
            return j + 1
        case "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "v", "h": return i + 1
        default: throw DBusFormatError("unknown type \(chars[i]) in signature")
        }
    }

    static func alignment(_ type: Character) -> Int {
        switch type {
        case "y", "g", "v": return 1
        case "n", "q": return 2
        case "x", "t", "d", "(", "{": return 8
        default: return 4
        }
    }
}

/// Little-endian D-Bus marshalling of what the sources send.
struct DBusWriter {
    var bytes: [UInt8] = []

    mutating func align(_ n: Int) { while bytes.count % n != 0 { bytes.append(0) } }
    mutating func uint32(_ v: UInt32) {
        align(4)
        bytes += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
    }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        uint32(UInt32(utf8.count))
        bytes += utf8 + [0]
    }
    mutating func signature(_ s: String) {
        let utf8 = Array(s.utf8)
        bytes.append(UInt8(utf8.count))
        bytes += utf8 + [0]
    }
    /// An array: its length in bytes, then its elements (aligned), written by `body`.
    mutating func array(elementAlignment: Int, _ body: (inout DBusWriter) throws -> Void) throws {
        uint32(0)
        let lengthAt = bytes.count - 4
        align(elementAlignment)
        let start = bytes.count
        try body(&self)
        let n = UInt32(bytes.count - start)
        for k in 0..<4 { bytes[lengthAt + k] = UInt8(n >> (8 * UInt32(k)) & 0xff) }
    }
    mutating func write(_ value: DBusValue, as type: String) throws {
        switch (type, value) {
        case ("s", let .text(s)), ("o", let .text(s)): string(s)
        case ("g", let .text(s)): signature(s)
        case ("u", let .unsigned(u)): uint32(UInt32(truncatingIfNeeded: u))
        case ("b", let .bool(b)): uint32(b ? 1 : 0)
        default: throw DBusFormatError("cannot write \(value) as \(type)")
        }
    }
}

/// D-Bus unmarshalling, either byte order, bounds checked: a bad message is an error, never a crash.
struct DBusReader {
    var bytes: [UInt8]
    var offset = 0
    var littleEndian = true

    mutating func align(_ n: Int) { offset = (offset + n - 1) / n * n }
    mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, offset + n <= bytes.count else { throw DBusFormatError("message cut short") }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }
    mutating func byte() throws -> UInt8 { try take(1).first! }
    mutating func unsigned(_ size: Int) throws -> UInt64 {
        align(size)
        let b = Array(try take(size))
        var v: UInt64 = 0
        for k in 0..<size { v |= UInt64(b[littleEndian ? k : size - 1 - k]) << (8 * UInt64(k)) }
        return v
    }
    mutating func uint32() throws -> UInt32 { UInt32(try unsigned(4)) }
    mutating func text(lengthSize: Int) throws -> String {
        let n = lengthSize == 1 ? Int(try byte()) : Int(try uint32())
        let s = String(decoding: try take(n), as: UTF8.self)
        _ = try take(1)
        return s
    }

    mutating func read(_ type: String, depth: Int = 0) throws -> DBusValue {
        guard depth < 64, let first = type.first else { throw DBusFormatError("nested too deep") }
        switch first {
        case "y": return .unsigned(UInt64(try byte()))
        case "b": return .bool(try unsigned(4) != 0)
        case "q", "u", "t", "h": return .unsigned(try unsigned(first == "q" ? 2 : first == "t" ? 8 : 4))
        case "n", "i", "x":
            let size = first == "n" ? 2 : first == "i" ? 4 : 8
            let u = try unsigned(size)
            let shift = UInt64(64 - 8 * size)
            return .integer(Int64(bitPattern: u << shift) >> Int64(shift))
        case "d": return .double(Double(bitPattern: try unsigned(8)))
        case "s", "o": align(4); return .text(try text(lengthSize: 4))
        case "g": return .text(try text(lengthSize: 1))
        case "v":
            let signature = try text(lengthSize: 1)
            let types = try DBusSignature.split(signature)
            guard types.count == 1 else { throw DBusFormatError("variant of \(signature)") }
            return .variant(try read(types[0], depth: depth + 1))
        case "a":
            let element = String(type.dropFirst())
            let length = Int(try uint32())
            align(DBusSignature.alignment(element.first ?? "y"))
            let end = offset + length
            guard length <= 64 * 1024 * 1024, end <= bytes.count else { throw DBusFormatError("array cut short") }
            var items: [DBusValue] = []
            while offset < end { items.append(try read(element, depth: depth + 1)) }
            return .array(items)
        case "(", "{":
            align(8)
            let inner = String(type.dropFirst().dropLast())
            return .group(try DBusSignature.split(inner).map { try read($0, depth: depth + 1) })
        default: throw DBusFormatError("unknown type \(first)")
        }
    }
}
