import BGXLive
import Glibc

/// A connection to a D-Bus message bus, in-process and in plain Swift: the
/// daemon's `ppoll` waits on its socket, replies come back to the closure
/// given with each call, and signals go to `onSignal`. Nothing here blocks
/// but the handshake at connect (a local socket, answered at once).
final class DBusConnection {
    let fd: Int32
    /// Our unique name on the bus (`:1.42`), once `Hello` is answered.
    private(set) var uniqueName: String?
    private var nextSerial: UInt32 = 1
    private var pending: [UInt32: (DBusMessage) -> Void] = [:]
    private var inbox: [UInt8] = []
    var onSignal: ((DBusMessage) -> Void)?

    /// The system bus's address: `$DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket.
    static var systemBusAddress: String {
        getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
    }

    /// Connects to the first `unix:` address in `address` that answers and authenticates
    /// as this process's uid (EXTERNAL: the bus reads it from the socket's credentials).
    init(address: String) throws {
        var lastError: Error = DBusFormatError("no unix: address in \(address)")
        var connected: Int32 = -1
        for entry in address.split(separator: ";") where entry.hasPrefix("unix:") {
            var keys: [String: String] = [:]
            for pair in entry.dropFirst(5).split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { keys[kv[0]] = Self.unescape(kv[1]) }
            }
            guard let path = keys["path"] ?? keys["abstract"].map({ "@" + $0 }) else { continue }
            do {
                connected = try SocketAddress(path).connectStream()
                break
            } catch { lastError = error }
        }
        guard connected >= 0 else { throw lastError }
        fd = connected
        do { try authenticate() } catch { Glibc.close(fd); throw error }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        call(.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")) { [weak self] reply in
            self?.uniqueName = reply.body.first?.string
        }
    }

    /// `%xx` escapes in an address's values.
    static func unescape(_ s: String) -> String {
        var out: [UInt8] = []
        var bytes = Array(s.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "%"), bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
                out.append(v)
                bytes = bytes.dropFirst(2)
            } else { out.append(b) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// SASL EXTERNAL, the line protocol before the first message.
    private func authenticate() throws {
        let uid = Array(String(getuid()).utf8).map { String(format2: $0) }.joined()
        try writeAll(Array("\0AUTH EXTERNAL \(uid)\r\n".utf8))
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var t = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        while line.count < 512 {
            guard recv(fd, &byte, 1, 0) == 1 else { throw SystemError("D-Bus authentication") }
            if byte == 10 { break }
            line.append(byte)
        }
        let answer = String(decoding: line, as: UTF8.self)
        guard answer.hasPrefix("OK ") else { throw DBusFormatError("the bus refused authentication: \(answer)") }
        try writeAll(Array("BEGIN\r\n".utf8))
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 1000)
                    continue
                }
                throw SystemError("D-Bus send")
            }
            sent += n
        }
    }

    /// Sends a call; `reply` gets its answer (a return or an error).
    func call(_ message: DBusMessage, reply: ((DBusMessage) -> Void)? = nil) {
        let serial = nextSerial
        nextSerial &+= 1
        guard let bytes = try? message.encoded(serial: serial) else { return }
        if let reply { pending[serial] = reply }
        try? writeAll(bytes)
    }

    /// `org.freedesktop.DBus.Properties.Get`; `value` gets nil when the property could not be read.
    func property(_ service: String, _ path: String, _ interface: String, _ name: String, _ value: @escaping (DBusValue?) -> Void) {
        call(.call(service, path, "org.freedesktop.DBus.Properties", "Get", signature: "ss", [.text(interface), .text(name)])) { reply in
            value(reply.kind == .methodReturn ? reply.body.first?.unwrapped : nil)
        }
    }

    /// A match rule: the bus sends us the signals it selects.
    func addMatch(_ rule: String) {
        call(.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", signature: "s", [.text(rule)]))
    }

    /// Reads what has arrived and dispatches each whole message; false when the bus hung up.
    func readAvailable() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var open = true
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { inbox += buffer[0..<n]; continue }
            if n < 0, errno == EINTR { continue }
            if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { open = false }
            break
        }
        while true {
            do {
                guard let length = try DBusMessage.length(of: inbox[...]) else { break }
                let message = try DBusMessage(decoding: inbox[0..<length])
                inbox.removeFirst(length)
                dispatch(message)
            } catch {
                return false   // the stream cannot be followed past a bad message
            }
        }
        return open
    }

    private func dispatch(_ message: DBusMessage) {
        switch message.kind {
        case .methodReturn, .error:
            if let serial = message.replySerial, let handler = pending.removeValue(forKey: serial) { handler(message) }
        case .signal: onSignal?(message)
        case .methodCall: break   // nothing is offered on the bus
        }
    }

    func close() { Glibc.close(fd) }
}

private extension String {
    /// A byte as two lowercase hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
