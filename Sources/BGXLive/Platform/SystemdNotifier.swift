import Foundation
import Glibc

/// systemd's `Type=notify` protocol without libsystemd: a datagram to
/// `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace) —
/// `READY=1` once the socket listens, `WATCHDOG=1` at half of
/// `$WATCHDOG_USEC`, `STOPPING=1` on shutdown, `STATUS=` in words.
public final class SystemdNotifier: @unchecked Sendable {  // the daemon's one thread uses it
    let fd: Int32
    let address: SocketAddress
    public let socketName: String
    /// Nanoseconds between watchdog pings (half the watchdog's interval); nil: no watchdog.
    public let watchdogInterval: Int64?
    /// When the next ping is due (monotonic ns).
    public private(set) var nextPing: Int64?
    /// Datagrams that could not be sent (the manager gone): counted, never fatal.
    public private(set) var failures = 0

    /// From the environment systemd gives a service; nil when not started by it.
    /// The variables are removed, as sd_notify's callers do, so no app inherits them.
    public static func fromEnvironment() throws -> SystemdNotifier? {
        guard let socket = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !socket.isEmpty else { return nil }
        var interval: Int64?
        if let usec = getenv("WATCHDOG_USEC").map({ String(cString: $0) }), let us = Int64(usec), us > 0 {
            // WATCHDOG_PID names the process meant, when set: another's watchdog is not ours.
            let pid = getenv("WATCHDOG_PID").map { String(cString: $0) }
            if pid == nil || pid_t(pid!) == getpid() { interval = us * 1000 / 2 }
        }
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) }
        return try SystemdNotifier(socket: socket, watchdogInterval: interval)
    }

    public init(socket: String, watchdogInterval: Int64?) throws {
        address = try SocketAddress(socket)
        socketName = socket
        self.watchdogInterval = watchdogInterval
        fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
    }

    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let n = address.withSockaddr { addr, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), addr, length) }
        }
        if n != bytes.count { failures += 1 }
        return n == bytes.count
    }

    /// The daemon is ready: READY=1, and the watchdog's clock starts.
    public func ready(status: String, now: Int64) {
        send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
        if let watchdogInterval { nextPing = now + watchdogInterval }
    }

    /// The loop is alive: WATCHDOG=1, if due.
    public func ping(now: Int64) {
        guard let interval = watchdogInterval, let due = nextPing, now >= due else { return }
        send("WATCHDOG=1")
        nextPing = now + interval
    }

    public func stopping() {
        send("STOPPING=1")
        nextPing = nil
    }

    deinit { Glibc.close(fd) }
}
