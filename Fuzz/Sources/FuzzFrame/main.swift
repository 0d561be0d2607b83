import BGXLive

/// Any bytes, fed to the frame decoder in pieces whose sizes the input's
/// first byte picks: each frame it yields is decoded as a message, which is
/// encoded again and must decode to itself. A rejection ends the connection,
/// as the daemon does; a trap is the bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrame(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: start, count: count)
    guard let first = input.first else { return 0 }
    let piece = Int(first % 16) + 1
    var decoder = FrameDecoder()
    var rest = input.dropFirst()[...]
    while true {
        decoder.append(rest.prefix(piece))
        rest = rest.dropFirst(piece)
        do {
            while let payload = try decoder.next() {
                guard let message = try? LiveMessage.decode(payload) else { continue }
                if let frame = message.frame() {
                    var again = FrameDecoder()
                    again.append(frame)
                    guard let back = try? again.next(), (try? LiveMessage.decode(back)) == message else {
                        fatalError("a message did not survive encoding: \(message)")
                    }
                }
            }
        } catch {
            _ = error.description
            return 0
        }
        if rest.isEmpty { return 0 }
    }
}
