import Foundation
import Glibc

/// What the daemon tells its transfer process, one JSON line each.
public enum TransferCommand: Sendable, Equatable, Codable {
    case start(LiveTransfer)
    case stop(task: Int32)
}

/// The daemon's transfer mover: the bytes move in a process of its own,
/// `bgx-transferd` (as iOS moves background sessions' bytes in nsurlsessiond,
/// not in the app), spawned at the first transfer and spoken to over two
/// pipes, a JSON line per command and per report. So the daemon never maps
/// the network stack (URLSession, libcurl, TLS: about 4 MB resident), and a
/// server's bytes are parsed outside it: if the transfer process dies or
/// hangs, each attempt it had ends as a retry with the bytes on disk kept,
/// and the next attempt starts a new process.
public final class TransferProcessMover: TransferMover, @unchecked Sendable {
    typealias Report = @Sendable (TransferAttemptReport) -> Void

    private struct Child {
        var pid: pid_t
        var input: Int32
    }

    /// The `bgx-transferd` executable.
    public let executable: String
    private let lock = NSLock()
    private var child: Child?
    private var running: [Int32: (transfer: LiveTransfer, report: Report)] = [:]

    public init(executable: String) {
        self.executable = executable
    }

    /// `bgx-transferd` beside the running executable, or nil if it is not there.
    public static func besideThisExecutable() -> TransferProcessMover? {
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("bgx-transferd").path
        return access(path, X_OK) == 0 ? TransferProcessMover(executable: path) : nil
    }

    /// The transfer process's pid, if one runs.
    public var processID: pid_t? { lock.withLock { child?.pid } }

    public func start(_ transfer: LiveTransfer, report: @escaping @Sendable (TransferAttemptReport) -> Void) {
        let failure: String? = lock.withLock {
            running[transfer.task] = (transfer, report)
            if child == nil {
                do { child = try spawn() } catch { return "\(error)" }
            }
            return send(.start(transfer))
        }
        if let failure { ended(transfer.task, because: failure) }
    }

    public func stop(_ task: Int32) {
        lock.withLock {
            guard running.removeValue(forKey: task) != nil else { return }
            _ = send(.stop(task: task))
        }
    }

    public func shutdown() {
        let gone = lock.withLock {
            defer { child = nil; running.removeAll() }
            return child
        }
        // Its bytes so far are on disk (written as they came); nothing is waited for.
        if let gone {
            close(gone.input)
            kill(gone.pid, SIGKILL)
        }
    }

    /// Writes a command (under the lock). A process that does not take it
    /// (dead, or hung with its pipe full) is killed: its attempts end as retries.
    private func send(_ command: TransferCommand) -> String? {
        guard let child else { return "the transfer process is not running" }
        guard var line = try? JSONEncoder().encode(command) else { return "the command could not be encoded" }
        line.append(10)
        let written = line.withUnsafeBytes { write(child.input, $0.baseAddress, $0.count) }
        if written == line.count { return nil }
        kill(child.pid, SIGKILL)
        return "the transfer process did not take the command (\(written < 0 ? String(cString: strerror(errno)) : "a part of it"))"
    }

    private func ended(_ task: Int32, because reason: String) {
        let entry = lock.withLock { running.removeValue(forKey: task) }
        guard let entry else { return }
        entry.report(.ended(task: task, .retry(reason: reason, offset: Self.bytesKept(entry.transfer))))
    }

    /// What the next attempt resumes from: a download's partial file (an upload starts again).
    private static func bytesKept(_ transfer: LiveTransfer) -> Int64 {
        guard !transfer.isUpload else { return 0 }
        var info = stat()
        return stat(transfer.partialPath, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Starts `bgx-transferd` with its standard input and output on pipes,
    /// and a thread that reads its reports until it ends.
    private func spawn() throws -> Child {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw LiveError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw LiveError("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // Apps are forked from the daemon's one thread, which is this one: nothing forks before these are set.
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A process that stops reading must not block the daemon: its pipe is written without waiting.
        _ = fcntl(toChild[1], F_SETFL, O_NONBLOCK)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        // The daemon's thread blocks SIGTERM, SIGINT and SIGPIPE (its signalfd): the child starts clean.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw LiveError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        let output = fromChild[0], child = pid
        Thread.detachNewThread { [self] in readReports(from: output, of: child) }
        return Child(pid: pid, input: toChild[1])
    }

    /// The child's reports, passed on for the attempts the daemon still runs;
    /// at its end, every attempt it had ends as a retry.
    private func readReports(from fd: Int32, of pid: pid_t) {
        defer { close(fd) }
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // read(2), not FileHandle's read(upToCount:), which waits for the whole count.
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[..<count])
            while let newline = pending.firstIndex(of: 10) {
                let line = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                guard let report = try? JSONDecoder().decode(TransferAttemptReport.self, from: line) else { continue }
                pass(report)
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let how = (status & 0x7f) == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
        let orphans: [Int32] = lock.withLock {
            guard child?.pid == pid else { return [] }  // shut down, or already replaced
            close(child!.input)
            child = nil
            return Array(running.keys).sorted()
        }
        for task in orphans { ended(task, because: "the transfer process ended (\(how)); the bytes so far are kept") }
    }

    private func pass(_ report: TransferAttemptReport) {
        switch report {
        case let .began(task, _):
            guard let entry = lock.withLock({ running[task] }) else { return }
            entry.report(report)
        case let .ended(task, _):
            // Once: an attempt the daemon stopped meanwhile reports nothing more.
            guard let entry = lock.withLock({ running.removeValue(forKey: task) }) else { return }
            entry.report(report)
        }
    }
}
