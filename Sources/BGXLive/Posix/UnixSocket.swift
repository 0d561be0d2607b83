import CBGXLive
import Glibc

/// A system call that failed, with what it was doing.
public struct SystemError: Error, CustomStringConvertible {
    public var what: String
    public var code: Int32
    public init(_ what: String, code: Int32 = errno) {
        self.what = what
        self.code = code
    }
    public var description: String { "\(what): \(String(cString: strerror(code)))" }
}

/// Unix stream sockets: the daemon's listening socket and both ends of a connection.
public enum UnixSocket {
    static func address(_ path: String) throws -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw SystemError("socket path \(path) is too long", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return addr
    }

    /// Listens at `path` (replacing a stale socket file). Any local user may
    /// connect — apps run as their own users — and is told apart by the
    /// kernel's credentials (SO_PEERCRED), never by what it says.
    public static func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        var addr = try address(path)
        unlink(path)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { let e = SystemError("bind \(path)"); close(fd); throw e }
        chmod(path, 0o666)
        guard Glibc.listen(fd, 128) == 0 else { let e = SystemError("listen"); close(fd); throw e }
        return fd
    }

    /// A blocking connection to the socket at `path`; `timeout` (nanoseconds)
    /// bounds the connect and each send (SO_SNDTIMEO).
    public static func connect(to path: String, timeout: Int64? = nil) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        if let timeout {
            var t = timeval(tv_sec: Int(timeout / 1_000_000_000), tv_usec: Int(timeout % 1_000_000_000 / 1000))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        }
        var addr = try address(path)
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { let e = SystemError("connect \(path)"); close(fd); throw e }
        return fd
    }

    public static func accept(_ listener: Int32) -> Int32? {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    public static func peer(of fd: Int32) -> (pid: pid_t, uid: uid_t)? {
        var pid: pid_t = 0, uid: uid_t = 0
        return bgx_peer_credentials(fd, &pid, &uid) == 0 ? (pid, uid) : nil
    }

    /// Writes all of `bytes` to a blocking descriptor.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("write")
            }
            offset += n
        }
    }
}

/// The monotonic clock, in nanoseconds: the live engine's time source.
public enum MonotonicClock {
    public static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}
