/// A journal entry's checksum (CRC-32, IEEE): the store keeps one with each
/// entry and checks it as it reads the entry back, so a corrupted entry is
/// found, never replayed (`JournalCorruption`).
public enum JournalChecksum {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func crc32<S: Sequence>(_ bytes: S, _ crc: UInt32 = 0) -> UInt32 where S.Element == UInt8 {
        var c = ~crc
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return ~c
    }

    /// Over the columns an entry is rebuilt from — all but its sequence number
    /// (whose gaps the daemon checks) and `kind` and `app`, which are copies
    /// of what `input` holds, for people to filter by (SQLite may hand back a
    /// text with a NUL in it cut short, so they are not compared).
    public static func of(steps: Int64, clock: Int64, traceOffset: Int64, monotonic: Int64, wall: Double, input: String) -> Int64 {
        // -0 and 0 are one value to SQLite.
        let text = "\(steps)|\(clock)|\(traceOffset)|\(monotonic)|\((wall == 0 ? 0 : wall).bitPattern)|\(input)"
        return Int64(crc32(text.utf8))
    }
}

/// The journal cannot be trusted from entry `seq` on: its checksum does not
/// match what it holds, it cannot be read, or it is missing (a gap in the sequence).
public struct JournalCorruption: Error, CustomStringConvertible {
    public var seq: Int64
    public var why: String
    public init(seq: Int64, why: String) {
        self.seq = seq
        self.why = why
    }
    public var description: String { "journal entry \(seq) \(why)" }
}
