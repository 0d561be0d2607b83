import Glibc

/// A blocking connection speaking the live protocol: what an app and
/// `bgx ctl` hold (the daemon's side is non-blocking, see `LiveDaemon`).
public final class LiveConnection {
    public let fd: Int32
    var decoder = FrameDecoder()
    var closed = false
    /// The daemon closed its end (a receive returned end of stream).
    public private(set) var peerClosed = false

    /// `timeout` (nanoseconds) bounds the connect and every send: a stopped
    /// daemon whose queue of connections is full is not waited for forever.
    public init(socket path: String, timeout: Int64? = nil) throws { fd = try UnixSocket.connect(to: path, timeout: timeout) }
    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    public func send(_ message: LiveMessage) throws {
        guard let frame = message.frame() else { throw SystemError("message over the frame bound", code: EMSGSIZE) }
        try UnixSocket.writeAll(fd, frame)
    }

    /// Raw bytes, for tests of what the daemon does with bad frames.
    public func sendRaw(_ bytes: [UInt8]) throws { try UnixSocket.writeAll(fd, bytes) }

    /// The next message; nil when the peer closed the connection or
    /// `deadline` (monotonic nanoseconds) passed.
    public func receive(until deadline: Int64? = nil) throws -> LiveMessage? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let payload = try decoder.next() { return try LiveMessage.decode(payload) }
            if let deadline {
                let left = deadline - MonotonicClock.now()
                guard left > 0 else { return nil }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, Int32(min(left / 1_000_000 + 1, 60_000)))
                if r < 0, errno != EINTR { throw SystemError("poll") }
                if r <= 0 { continue }
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("read")
            }
            if n == 0 { peerClosed = true; return nil }
            decoder.append(buffer[0..<n])
        }
    }
}
