import Glibc

/// Room kept on the state's disk for what must never be refused: a file of
/// `size` bytes (`STATE/reserve`, allocated for real with `fallocate`) given
/// back the moment a write finds the disk full, so an app's end or
/// completion, its journal entry and the audit line of a kill still go
/// down. While the disk is full, new work (installs, launches) is refused
/// with the reason; once there is room for the reserve again, it is taken
/// back and new work goes on.
struct DiskReserve {
    let directory: PrivateDirectory
    let size: Int64
    /// Why new work is refused now, or nil.
    private(set) var full: String?

    static let name = "reserve"

    init(directory: PrivateDirectory, size: Int64) throws {
        self.directory = directory
        self.size = size
        guard size > 0 else { return }
        if !take() {
            throw PrivateDirectory.Refused(description: "\(directory.path): no room for the \(size)-byte reserve kept for ends and "
                + "completions (\(Self.free(directory.fd)) bytes free): make room, or give a smaller --disk-reserve")
        }
    }

    /// Bytes free on the directory's file system for the daemon's user.
    static func free(_ fd: Int32) -> Int64 {
        var s = statvfs()
        guard fstatvfs(fd, &s) == 0 else { return .max }
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }

    /// Allocates the reserve (true: it is whole).
    @discardableResult
    mutating func take() -> Bool {
        guard size > 0, let fd = try? directory.openFile(Self.name, flags: O_WRONLY) else { return false }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, Int64(st.st_blocks) * 512 >= size { full = nil; return true }
        guard posix_fallocate(fd, 0, off_t(size)) == 0 else { return false }
        _ = fsync(fd)
        full = nil
        return true
    }

    /// A write found the disk full: the reserve is given back (once) so the
    /// write can be tried again, and new work stops. True: there was a reserve to give.
    mutating func release(_ why: String) -> Bool {
        full = "the disk holding \(directory.path) is full (\(why)): new work (installs, launches) is refused until there is room; "
            + "apps' ends and completions go on"
        guard size > 0 else { return false }
        let fd = openat(directory.fd, Self.name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_blocks > 0 else { return false }
        return ftruncate(fd, 0) == 0
    }

    /// Why new work must wait, or nil: the reserve is whole, or there is room to take it back.
    mutating func refusal() -> String? {
        if full == nil, size > 0, Self.free(directory.fd) < size {
            full = "the disk holding \(directory.path) is nearly full (\(Self.free(directory.fd)) bytes free, under the \(size)-byte reserve): "
                + "new work (installs, launches) is refused until there is room; apps' ends and completions go on"
        }
        guard full != nil else { return nil }
        if Self.free(directory.fd) > size, take() { return nil }
        return full
    }
}
