import BGXLive
import Testing

@Suite("live protocol frames")
struct FrameTests {
    let message = LiveMessage(type: "callback", seq: 7, name: "didEnterBackground", args: ["queue": "main"])

    @Test("a message survives framing, however the bytes are cut")
    func roundTrip() throws {
        let frame = try #require(message.frame())
        for cut in [1, 3, 8, frame.count - 1] {
            var decoder = FrameDecoder()
            decoder.append(frame[..<cut])
            #expect(try decoder.next() == nil)
            decoder.append(frame[cut...])
            #expect(try LiveMessage.decode(#require(try decoder.next())) == message)
        }
    }

    @Test("two frames in one read come out as two messages")
    func twoInOne() throws {
        var decoder = FrameDecoder()
        decoder.append(try #require(message.frame()) + #require(LiveMessage(type: "ack", seq: 7).frame()))
        #expect(try LiveMessage.decode(#require(try decoder.next())).type == "callback")
        #expect(try LiveMessage.decode(#require(try decoder.next())) == LiveMessage(type: "ack", seq: 7))
        #expect(try decoder.next() == nil)
    }

    @Test("a frame announcing more than the bound is refused before its bytes arrive")
    func oversized() {
        var decoder = FrameDecoder()
        decoder.append([0x42, 0x47, 0x58, Frame.version, 0x00, 0x01, 0x00, 0x01])
        #expect(throws: FrameError.oversized(Frame.maximumPayload + 1)) { try decoder.next() }
    }

    @Test("bad magic, another version and a payload that is not a message are errors")
    func malformed() throws {
        var a = FrameDecoder()
        a.append(Array("GET / HTTP/1.1".utf8))
        #expect(throws: FrameError.badMagic) { try a.next() }
        var b = FrameDecoder()
        b.append([0x42, 0x47, 0x58, 9, 0, 0, 0, 0])
        #expect(throws: FrameError.unsupportedVersion(9)) { try b.next() }
        var c = FrameDecoder()
        c.append(Frame.encode(Array("[1, 2]".utf8)))
        let payload = try #require(try c.next())
        #expect(throws: FrameError.self) { try LiveMessage.decode(payload) }
    }
}

@Suite("live protocol messages")
struct MessageEncodingTests {
    @Test("a message written by hand reads back the same through JSONDecoder, whatever its strings hold")
    func handWrittenJSON() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t control \u{01} é ✓ 🚀"
        let message = LiveMessage(type: "reply", seq: 42, role: "app", app: tricky, name: "n\u{7f}",
                                  args: ["z": tricky, "a": "", "\u{0}k": "v"], ok: false, text: tricky)
        #expect(try LiveMessage.decode(message.encoded()) == message)
        let bare = LiveMessage(type: "ack")
        #expect(String(decoding: bare.encoded(), as: UTF8.self) == "{\"type\": \"ack\"}")
        #expect(try LiveMessage.decode(bare.encoded()) == bare)
    }
}
