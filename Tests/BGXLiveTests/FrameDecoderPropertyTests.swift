import BGXLive
import PropertyBased
import Testing

/// Whatever a peer sends, the daemon's frame decoder gives a payload, asks
/// for more bytes, or refuses the stream with a reason — and how the bytes
/// are cut into reads never changes which. Checked against a model of the
/// format read straight from its definition (magic, version, length, payload).
@Suite("live protocol frames, any bytes")
struct FrameDecoderPropertyTests {
    enum End: Equatable {
        case needsMore
        case refused(FrameError)
    }

    /// What a stream of bytes is, frame by frame, read whole.
    static func model(_ bytes: [UInt8]) -> (payloads: [[UInt8]], end: End) {
        var payloads: [[UInt8]] = []
        var at = 0
        while true {
            let rest = Array(bytes[at...])
            if rest.count < Frame.headerSize {
                return (payloads, zip(rest, [0x42, 0x47, 0x58]).allSatisfy { $0 == $1 } ? .needsMore : .refused(.badMagic))
            }
            guard rest[0] == 0x42, rest[1] == 0x47, rest[2] == 0x58 else { return (payloads, .refused(.badMagic)) }
            guard rest[3] == Frame.version else { return (payloads, .refused(.unsupportedVersion(rest[3]))) }
            let length = rest[4..<8].reduce(0) { $0 << 8 | Int($1) }
            guard length <= Frame.maximumPayload else { return (payloads, .refused(.oversized(length))) }
            guard rest.count >= Frame.headerSize + length else { return (payloads, .needsMore) }
            payloads.append(Array(rest[Frame.headerSize..<Frame.headerSize + length]))
            at += Frame.headerSize + length
        }
    }

    /// The decoder fed `bytes` in reads of the given sizes, asked for frames after each read, as the daemon does.
    static func decode(_ bytes: [UInt8], reads: [Int]) -> (payloads: [[UInt8]], end: End) {
        var decoder = FrameDecoder()
        var payloads: [[UInt8]] = []
        var at = 0, read = 0
        while true {
            let n = at == bytes.count ? 0 : max(1, reads.isEmpty ? bytes.count : reads[read % reads.count])
            decoder.append(bytes[at..<min(bytes.count, at + n)])
            at = min(bytes.count, at + n)
            read += 1
            do {
                while let payload = try decoder.next() { payloads.append(payload) }
            } catch {
                return (payloads, .refused(error))
            }
            if at == bytes.count { return (payloads, .needsMore) }
        }
    }

    /// A stream built from `genes`: whole frames (some payloads messages, some not), headers that lie
    /// (another version, an oversized or a short length), and loose bytes — the mistakes a peer makes.
    static func stream(_ genes: [UInt64]) -> [UInt8] {
        var out: [UInt8] = []
        for gene in genes {
            let a = UInt8(truncatingIfNeeded: gene >> 8), n = Int(gene >> 16 & 0xff)
            switch gene % 8 {
            case 0, 1: out += LiveMessage(type: "call", seq: Int(a), name: "n\(n)", args: ["k": String(repeating: "é", count: n)]).frame()!
            case 2: out += Frame.encode((0..<n).map { UInt8(truncatingIfNeeded: gene >> UInt64($0 % 56)) })
            case 3: out += [0x42, 0x47, 0x58, a % 4, 0, 0, 0, UInt8(n)]  // maybe another version
            case 4: out += [0x42, 0x47, 0x58, Frame.version, a, UInt8(n), 0, 1]  // maybe over the bound
            case 5: out += Array(LiveMessage(type: "ack", seq: n).frame()!.prefix(n % 12))  // cut short
            case 6: out += [a]
            default: out += Array("{\"type\":\"hello\"}".utf8.prefix(n % 17))
            }
        }
        return out
    }

    @Test("any stream, read in any pieces: the same payloads and the same ending as the format says — never a trap")
    func anyStreamInAnyPieces() async {
        await propertyCheck(count: 600, input: Gen.uint64(in: 0...UInt64.max).array(of: 0...8),
                            Gen.int(in: 1...40).array(of: 0...6)) { genes, reads in
            let bytes = Self.stream(genes)
            let expected = Self.model(bytes)
            let got = Self.decode(bytes, reads: reads)
            #expect(got.payloads == expected.payloads)
            #expect(got.end == expected.end, "\(bytes)")
            // Every payload is a message or is refused as malformed, with its reason.
            for payload in got.payloads {
                do { _ = try LiveMessage.decode(payload) } catch let error as FrameError {
                    guard case let .malformed(why) = error else { Issue.record("\(error)"); continue }
                    #expect(!why.isEmpty)
                } catch {
                    Issue.record("not a FrameError: \(error)")
                }
            }
        }
    }

    @Test("random bytes: refused with a reason or waiting for more, never a trap")
    func randomBytes() async {
        await propertyCheck(count: 600, input: Gen.uint8(in: 0...255).array(of: 0...64), Gen.int(in: 1...9).array(of: 0...4)) {
            bytes, reads in
            // Half the time the bytes start like a frame, so the decoder gets past the magic.
            for prefix in [[], [0x42, 0x47, 0x58, Frame.version]] as [[UInt8]] {
                let got = Self.decode(prefix + bytes, reads: reads)
                #expect(got.payloads == Self.model(prefix + bytes).payloads)
                #expect(got.end == Self.model(prefix + bytes).end)
                if case let .refused(error) = got.end { #expect(!error.description.isEmpty) }
            }
        }
    }
}
