import Glibc

/// A directory only the daemon's user may change — the state directory, its
/// `logs`, the apps' containers' parent — opened so that nobody else can
/// steer what the daemon writes: made with the given mode if missing, and
/// refused when it is a symbolic link, owned by another user, writable by
/// its group or the world, or (`noSymlinks`) holds a symbolic link. Files in
/// it are opened relative to it with `O_NOFOLLOW` (`openFile`).
public struct PrivateDirectory {
    public let path: String
    /// Open on the directory itself (`O_DIRECTORY | O_NOFOLLOW`), for `openat`.
    public let fd: Int32

    public struct Refused: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens `path`, making it (and missing parents, as they would be made by
    /// `mkdir -p`) with `mode`; an existing one owned by the daemon's user is
    /// narrowed to `mode`.
    public init(_ path: String, mode: mode_t, noSymlinks: Bool = true, in parent: PrivateDirectory? = nil) throws {
        let shown = parent.map { $0.path + "/" + path } ?? path
        self.path = shown
        let base = parent?.fd ?? AT_FDCWD
        if mkdirat(base, path, mode) != 0, errno != EEXIST {
            if errno == ENOENT, parent == nil {
                try Self.makeParents(of: path)
                guard mkdirat(base, path, mode) == 0 || errno == EEXIST else { throw SystemError("mkdir \(shown)") }
            } else {
                throw SystemError("mkdir \(shown)")
            }
        }
        let fd = openat(base, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw Refused(description: "\(shown) is a symbolic link or not a directory; the daemon keeps its state only in a directory of its own")
            }
            throw SystemError("open \(shown)")
        }
        self.fd = fd
        do {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw SystemError("stat \(shown)") }
            guard st.st_uid == geteuid() else {
                throw Refused(description: "\(shown) is owned by uid \(st.st_uid), not the daemon's (\(geteuid())): another user could change what the daemon reads and writes")
            }
            guard st.st_mode & 0o022 == 0 else {
                throw Refused(description: "\(shown) is writable by its group or by anyone (mode \(String(st.st_mode & 0o7777, radix: 8))): make it 0700, or give another directory")
            }
            if st.st_mode & 0o7777 != mode { guard fchmod(fd, mode) == 0 else { throw SystemError("chmod \(shown)") } }
            if noSymlinks, let link = try firstSymlink() {
                throw Refused(description: "\(shown) holds a symbolic link, \(link): the daemon follows none in its state; remove it")
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    static func makeParents(of path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/").dropLast() {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir \(prefix)") }
        }
    }

    /// The first entry that is a symbolic link, if any.
    func firstSymlink() throws -> String? {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else { throw SystemError("read \(path)") }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            var st = stat()
            if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFLNK { return name }
        }
        return nil
    }

    /// Opens a file in the directory, never through a symbolic link, made
    /// with `mode`; an existing file is narrowed to it.
    public func openFile(_ name: String, flags: Int32, mode: mode_t = 0o600) throws -> Int32 {
        let fd = openat(self.fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_CREAT, mode)
        guard fd >= 0 else {
            if errno == ELOOP { throw Refused(description: "\(path)/\(name) is a symbolic link; the daemon follows none in its state") }
            throw SystemError("open \(path)/\(name)")
        }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & 0o7777 != mode { _ = fchmod(fd, mode) }
        return fd
    }

    public func close() { _ = Glibc.close(fd) }
}
