import Glibc

/// The trace and each app's log rotate at `--rotate-size`: the file becomes
/// `NAME.1` (the one before is dropped) and a new one starts, so neither
/// grows without bound.
extension LiveDaemon {
    /// Rotates the trace if it is over the size. Called only as an input is
    /// journaled, before its trace offset is taken: the newest entry's lines
    /// are then all in one file, and a restart finds the stretch after an
    /// older entry in `trace.jsonl.1` (`TraceTail`).
    func rotateTraceIfDue() {
        guard options.rotateSize > 0, lseek(traceFD, 0, SEEK_END) >= options.rotateSize else { return }
        guard renameat(stateDirectory.fd, "trace.jsonl", stateDirectory.fd, "trace.jsonl.1") == 0,
              let fresh = try? stateDirectory.openFile("trace.jsonl", flags: O_RDWR | O_APPEND | O_TRUNC) else {
            log("bgx daemon: could not rotate the trace: \(SystemError("rename"))")
            return
        }
        close(traceFD)
        traceFD = fresh
        rotations += 1
        log("bgx daemon: the trace reached \(options.rotateSize) bytes: the rest of it is in trace.jsonl.1")
    }

    /// Rotates a running app's log when it is over the size, as logrotate's
    /// `copytruncate` does: the app holds the file open (its standard output
    /// and error, appending), so it is copied to `NAME.log.1` and emptied in
    /// place. Checked with each sample of the app's resources.
    func rotateLogIfDue(_ p: LiveProcess) {
        guard options.rotateSize > 0 else { return }
        let name = CgroupFiles.leaf(p.bundle) + ".log"
        var st = stat()
        guard fstatat(logsDirectory.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, Int64(st.st_size) >= options.rotateSize,
              let log = try? logsDirectory.openFile(name, flags: O_RDWR),
              let old = try? logsDirectory.openFile(name + ".1", flags: O_WRONLY | O_TRUNC) else { return }
        defer { close(log); close(old) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while true {
            let n = pread(log, &buffer, buffer.count, offset)
            guard n > 0, write(old, buffer, n) == n else { break }
            offset += off_t(n)
        }
        _ = ftruncate(log, 0)
    }
}
