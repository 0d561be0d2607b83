/// One frame of the live protocol: `B` `G` `X`, the protocol version (one
/// byte), the payload's length (four bytes, big-endian), then the payload —
/// one JSON object (`LiveMessage`). Frames are bounded: a peer that
/// announces more than `maximumPayload` bytes is cut off, not believed.
public enum Frame {
    public static let version: UInt8 = 1
    public static let headerSize = 8
    /// 64 KiB: a callback, a call or a trace line is far smaller.
    public static let maximumPayload = 64 * 1024
    static let magic: [UInt8] = [0x42, 0x47, 0x58]  // "BGX"

    public static func encode(_ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= maximumPayload, "a frame of \(payload.count) bytes is over the bound")
        let n = UInt32(payload.count)
        return magic + [version, UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + payload
    }
}

/// Why a connection's bytes are not frames; the connection is closed, the
/// daemon carries on.
public enum FrameError: Error, Equatable, CustomStringConvertible {
    case badMagic
    case unsupportedVersion(UInt8)
    case oversized(Int)
    case malformed(String)

    public var description: String {
        switch self {
        case .badMagic: "not a bgx frame (bad magic)"
        case let .unsupportedVersion(v): "unsupported protocol version \(v) (this side speaks \(Frame.version))"
        case let .oversized(n): "frame of \(n) bytes is over the \(Frame.maximumPayload)-byte bound"
        case let .malformed(why): "malformed frame: \(why)"
        }
    }
}

/// Cuts a byte stream into frame payloads, as bytes arrive in any pieces.
public struct FrameDecoder {
    var buffer: [UInt8] = []
    public init() {}

    public mutating func append(_ bytes: some Collection<UInt8>) { buffer.append(contentsOf: bytes) }

    /// Bytes received and not yet taken as frames.
    public var bufferedBytes: Int { buffer.count }

    /// A whole frame is waiting (or bytes that are not one, which `next` reports).
    public var hasWholeFrame: Bool {
        guard buffer.count >= Frame.headerSize else { return false }
        let length = Int(buffer[4]) << 24 | Int(buffer[5]) << 16 | Int(buffer[6]) << 8 | Int(buffer[7])
        return length > Frame.maximumPayload || buffer.count >= Frame.headerSize + length
            || Array(buffer[0..<3]) != Frame.magic || buffer[3] != Frame.version
    }

    /// The next whole payload, nil when more bytes are needed.
    public mutating func next() throws(FrameError) -> [UInt8]? {
        guard buffer.count >= Frame.headerSize else {
            // A wrong first byte is known before the header is complete.
            for (i, b) in buffer.prefix(3).enumerated() where b != Frame.magic[i] { throw .badMagic }
            return nil
        }
        guard Array(buffer[0..<3]) == Frame.magic else { throw .badMagic }
        guard buffer[3] == Frame.version else { throw .unsupportedVersion(buffer[3]) }
        let length = Int(buffer[4]) << 24 | Int(buffer[5]) << 16 | Int(buffer[6]) << 8 | Int(buffer[7])
        guard length <= Frame.maximumPayload else { throw .oversized(length) }
        guard buffer.count >= Frame.headerSize + length else { return nil }
        let payload = Array(buffer[Frame.headerSize..<Frame.headerSize + length])
        buffer.removeFirst(Frame.headerSize + length)
        return payload
    }
}
