import Glibc

/// A Unix socket's address, a file's path or — starting with `@` — a name in
/// Linux's abstract namespace (as `NOTIFY_SOCKET` and D-Bus's `unix:abstract=` give it).
public struct SocketAddress {
    public var storage = sockaddr_un()
    public var length: socklen_t

    public init(_ path: String) throws {
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        // A path needs room for its NUL; an abstract name is exactly its bytes.
        guard bytes.count + (abstract ? 0 : 1) <= MemoryLayout.size(ofValue: storage.sun_path), !bytes.isEmpty else {
            throw SystemError("socket address \(path) is empty or too long", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        length = socklen_t(offset + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr`.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// A connected stream socket (close-on-exec; blocking unless `nonBlocking`).
    public func connectStream(nonBlocking: Bool = false) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        guard withSockaddr({ Glibc.connect(fd, $0, $1) }) == 0 else { let e = SystemError("connect"); Glibc.close(fd); throw e }
        if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return fd
    }
}
