import CBGXLive
import Foundation
import Glibc

/// How the daemon suspends processes: `--freezer auto|cgroup2|cgroup1|sigstop`.
public enum FreezerMode: String, CaseIterable, Sendable {
    case auto, cgroup2, cgroup1, sigstop
}

/// Suspension and termination of real processes (suspended = frozen). Each
/// mechanism gives every app its own leaf (cgroups) and confirms a freeze
/// before reporting it: cgroup v2 by `frozen 1` in `cgroup.events`, the v1
/// freezer by `FROZEN` in `freezer.state`, SIGSTOP by the process state `T`.
protocol Freezer: AnyObject {
    /// `cgroup2`, `cgroup1` or `sigstop`.
    var mechanism: String { get }
    /// Where the daemon's apps live (its delegated subtree), for `status`.
    var root: String? { get }
    /// Makes the app's leaf; returns the `cgroup.procs` file the child moves itself into.
    func prepare(bundle: String) throws -> (cgroup: String, procs: String)?
    /// Freezes and waits (bounded) until the kernel says frozen.
    func freeze(_ process: LiveProcess) throws
    func thaw(_ process: LiveProcess) throws
    /// SIGKILL to every process of the app; returns how.
    func kill(_ process: LiveProcess) throws -> String
    /// Removes the app's leaf once its processes are gone.
    func release(_ process: LiveProcess)
    /// Removes the daemon's subtree.
    func removeRoot()
}

/// How long a freeze may take before the daemon gives up on it: the kernel
/// freezes a cgroup in microseconds to milliseconds; a task stuck in
/// uninterruptible sleep can hold it longer.
let freezeDeadline: Int64 = 2_000_000_000

enum CgroupFiles {
    static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw SystemError("write \(text) to \(path)") }
    }
    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
    /// Mount points from /proc/self/mounts: (type, mount point, options).
    static func mounts() -> [(type: String, path: String, options: [String])] {
        (read("/proc/self/mounts") ?? "").split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count >= 4 else { return nil }
            return (String(f[2]), String(f[1]), f[3].split(separator: ",").map(String.init))
        }
    }
    /// This process's cgroup in a hierarchy (`0::` for v2, or a v1 controller's line).
    static func ownCgroup(matching controller: String) -> String? {
        for line in (read("/proc/self/cgroup") ?? "").split(separator: "\n") {
            let f = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard f.count == 3 else { continue }
            if controller == "" ? f[0] == "0" && f[1].isEmpty : f[1].split(separator: ",").contains(Substring(controller)) {
                return String(f[2])
            }
        }
        return nil
    }
    /// The daemon's own subtree under the cgroup it runs in, on one hierarchy;
    /// nil unless it can be made and offers the freezer's file there.
    static func daemonSubtree(mount: String, controller: String, freezerFile: String) -> String? {
        guard let own = ownCgroup(matching: controller) else { return nil }
        let base = mount + (own == "/" ? "" : own) + "/bgx-daemon-\(getpid())"
        guard mkdir(base, 0o755) == 0 || errno == EEXIST else { return nil }
        guard FileManager.default.fileExists(atPath: base + "/" + freezerFile) else { rmdir(base); return nil }
        return base
    }

    /// The app's leaf in the daemon's subtree, and the `cgroup.procs` file its child moves into.
    static func makeLeaf(for bundle: String, in base: String) throws -> (cgroup: String, procs: String) {
        let dir = base + "/" + leaf(bundle)
        guard mkdir(dir, 0o755) == 0 || errno == EEXIST else { throw SystemError("mkdir \(dir)") }
        return (dir, dir + "/cgroup.procs")
    }

    /// A leaf name from a bundle identifier: escaped, never pasted (`BundleName`).
    static func leaf(_ bundle: String) -> String { BundleName.escaped(bundle) }
    /// Removes a cgroup directory; a cgroup whose last task has just been
    /// reaped can still be busy for a moment, so a few tries.
    static func remove(_ path: String) {
        for _ in 0..<100 {
            if rmdir(path) == 0 || errno == ENOENT { return }
            guard errno == EBUSY else { return }
            sched_yield()
        }
    }
}

/// The two cgroup hierarchies, as the freezer needs them: where each is mounted,
/// its freezer's file and words, and what the kernel offers besides — v2
/// signals a finished freeze (`cgroup.events`, POLLPRI) and kills a whole leaf
/// (`cgroup.kill`); v1 offers neither.
enum CgroupVersion {
    case v2, v1

    var mechanism: String { self == .v2 ? "cgroup2" : "cgroup1" }
    /// The line of /proc/self/cgroup that names the daemon's own cgroup ("" is v2's `0::`).
    var controller: String { self == .v2 ? "" : "freezer" }
    var freezeFile: String { self == .v2 ? "cgroup.freeze" : "freezer.state" }
    /// What is written to the freezer's file, and read back once it has taken.
    func word(frozen: Bool) -> String {
        switch self {
        case .v2: frozen ? "1" : "0"
        case .v1: frozen ? "FROZEN" : "THAWED"
        }
    }
    func isMount(type: String, options: [String]) -> Bool {
        self == .v2 ? type == "cgroup2" : type == "cgroup" && options.contains("freezer")
    }
}

/// A cgroup freezer, v2 or v1: each app a leaf in a subtree under the
/// daemon's own cgroup (`bgx-daemon-PID/APP`), frozen by its freezer's file
/// and confirmed by the kernel before the freeze is reported.
final class CgroupFreezer: Freezer {
    let version: CgroupVersion
    let base: String
    var mechanism: String { version.mechanism }
    var root: String? { base }

    /// nil when no writable hierarchy of this version with a freezer is here.
    init?(_ version: CgroupVersion) {
        guard let mount = CgroupFiles.mounts().first(where: { version.isMount(type: $0.type, options: $0.options) }),
              let base = CgroupFiles.daemonSubtree(mount: mount.path, controller: version.controller,
                                                   freezerFile: version.freezeFile)
        else { return nil }
        self.version = version
        self.base = base
    }

    func prepare(bundle: String) throws -> (cgroup: String, procs: String)? {
        try CgroupFiles.makeLeaf(for: bundle, in: base)
    }

    func freeze(_ process: LiveProcess) throws { try set(process, frozen: true) }
    func thaw(_ process: LiveProcess) throws { try set(process, frozen: false) }

    private func set(_ process: LiveProcess, frozen: Bool) throws {
        guard let dir = process.cgroup else { return }
        try CgroupFiles.write(version.word(frozen: frozen), to: dir + "/" + version.freezeFile)
        switch version {
        case .v2: try Self.wait(for: "frozen \(version.word(frozen: frozen))", in: dir + "/cgroup.events")
        case .v1: try Self.waitUntil(dir + "/freezer.state", reads: version.word(frozen: frozen))
        }
    }

    /// `cgroup.events` signals a change with POLLPRI: wait on it, not on a timer.
    static func wait(for line: String, in events: String) throws {
        let fd = open(events, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(events)") }
        defer { close(fd) }
        let deadline = MonotonicClock.now() + freezeDeadline
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let n = pread(fd, &buffer, buffer.count, 0)
            guard n >= 0 else { throw SystemError("read \(events)") }
            if String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").contains(Substring(line)) { return }
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { throw SystemError("\(events) did not say \(line) within 2s", code: ETIMEDOUT) }
            var p = pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)
            _ = poll(&p, 1, Int32(min(left / 1_000_000 + 1, 2000)))
        }
    }

    /// v1 offers no notification: `freezer.state` reads FREEZING until every
    /// task has stopped, so it is read again, yielding the CPU in between.
    static func waitUntil(_ path: String, reads state: String) throws {
        let deadline = MonotonicClock.now() + freezeDeadline
        while CgroupFiles.read(path)?.trimmingCharacters(in: .whitespacesAndNewlines) != state {
            guard MonotonicClock.now() < deadline else {
                throw SystemError("\(path) did not read \(state) within 2s", code: ETIMEDOUT)
            }
            sched_yield()
        }
    }

    func kill(_ process: LiveProcess) throws -> String {
        guard let dir = process.cgroup else { return "none" }
        if version == .v2 {
            try CgroupFiles.write("1", to: dir + "/cgroup.kill")
            return "cgroup.kill"
        }
        let pids = (CgroupFiles.read(dir + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { pid_t($0) }
        for pid in pids {
            // The leaf's own pidfd for the main process; others are opened now (they are frozen or ours).
            let fd = pid == process.pid ? process.pidfd : bgx_pidfd_open(pid)
            guard fd >= 0 else { continue }
            _ = bgx_pidfd_send_signal(fd, SIGKILL)
            if fd != process.pidfd { close(fd) }
        }
        // A frozen task dies only once thawed.
        if process.frozen { try? CgroupFiles.write(version.word(frozen: false), to: dir + "/" + version.freezeFile) }
        return "pidfd SIGKILL (cgroup v1 has no cgroup.kill)"
    }

    /// Removes the app's leaf once its processes are gone (v2 says so: `populated 0`).
    func release(_ process: LiveProcess) {
        guard let dir = process.cgroup else { return }
        if version == .v2 { try? Self.wait(for: "populated 0", in: dir + "/cgroup.events") }
        CgroupFiles.remove(dir)
    }
    func removeRoot() { CgroupFiles.remove(base) }
}

/// No usable cgroup: SIGSTOP and SIGCONT to the app's whole family — its
/// process group (the daemon starts each app as the leader of its own group,
/// and its children inherit it) and every descendant, found by parent pid in
/// /proc, so a child that left the group (`setsid`, `setpgid`) is stopped
/// with it too. The leader is signalled through its pidfd (the daemon holds
/// it unreaped, so the group's id cannot have been reused); every other
/// member through a pidfd opened and then checked to still be in the family,
/// so a pid that died and was reused meanwhile is never signalled. What no
/// walk finds: a process whose parent exited after it left the group (a
/// double fork) belongs to PID 1 now — only a cgroup holds every process.
final class SignalFreezer: Freezer {
    let mechanism = "sigstop"
    var root: String? { nil }

    func prepare(bundle: String) throws -> (cgroup: String, procs: String)? { nil }

    func freeze(_ process: LiveProcess) throws {
        let members = try signalFamily(process, SIGSTOP)
        try Self.wait(members, stopped: true)
    }

    func thaw(_ process: LiveProcess) throws {
        let members = try signalFamily(process, SIGCONT)
        try Self.wait(members, stopped: false)
    }

    /// The leader through its pidfd (proof that it is still ours), then its
    /// group, then each other member of its family; returns the members.
    @discardableResult
    func signalFamily(_ process: LiveProcess, _ signal: Int32) throws -> [pid_t] {
        // Found and held first: once the leader dies its children belong to PID 1.
        let members = Self.family(of: process.pid)
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for pid in members where pid != process.pid {
            let fd = bgx_pidfd_open(pid)
            guard fd >= 0 else { continue }   // gone already
            // Still the same process: its stat still places it in the family (a reused pid would not).
            if let entry = Self.stat(of: pid), entry.group == process.pid || members.contains(entry.parent) {
                held.append(fd)
            } else {
                close(fd)
            }
        }
        guard bgx_pidfd_send_signal(process.pidfd, signal) == 0 else { throw SystemError("pidfd_send_signal \(signal)") }
        if killpg(process.pid, signal) != 0, errno != ESRCH { throw SystemError("killpg \(signal)") }
        for fd in held { _ = bgx_pidfd_send_signal(fd, signal) }
        return members
    }

    /// Parent, process group and state of a process, from /proc/PID/stat.
    static func stat(of pid: pid_t) -> (parent: pid_t, group: pid_t, state: Character)? {
        guard let stat = CgroupFiles.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let parent = pid_t(fields[1]), let group = pid_t(fields[2])
        else { return nil }
        return (parent, group, state)
    }

    /// The leader, its process group, and every descendant of either, from one walk of /proc.
    static func family(of leader: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [leader] }
        var children: [pid_t: [pid_t]] = [:]
        var members: [pid_t] = [leader]
        for entry in entries {
            guard let pid = pid_t(entry), let s = stat(of: pid) else { continue }
            children[s.parent, default: []].append(pid)
            if s.group == leader, pid != leader { members.append(pid) }
        }
        var seen = Set(members)
        var next = 0
        while next < members.count {
            for child in children[members[next]] ?? [] where seen.insert(child).inserted { members.append(child) }
            next += 1
        }
        return members
    }

    /// The state letter in /proc/PID/stat (`T` once the stop has taken).
    static func state(of pid: pid_t) -> Character? { stat(of: pid)?.state }

    /// Until every member has (or has not) stopped.
    static func wait(_ pids: [pid_t], stopped: Bool) throws {
        let deadline = MonotonicClock.now() + freezeDeadline
        for pid in pids {
            while let s = state(of: pid), (s == "T") != stopped, s != "Z", s != "X" {
                guard MonotonicClock.now() < deadline else {
                    throw SystemError("process \(pid) did not \(stopped ? "stop" : "continue") within 2s", code: ETIMEDOUT)
                }
                sched_yield()
            }
        }
    }

    func kill(_ process: LiveProcess) throws -> String {
        try signalFamily(process, SIGKILL)
        return "pidfd SIGKILL to its process group and descendants"
    }

    func release(_ process: LiveProcess) {}
    func removeRoot() {}
}

enum FreezerChoice {
    /// The freezer for a mode, with a warning when `auto` had to settle for less.
    static func make(_ mode: FreezerMode) throws -> (Freezer, warning: String?) {
        switch mode {
        case .cgroup2:
            guard let f = CgroupFreezer(.v2) else { throw SystemError("no writable cgroup v2 hierarchy with cgroup.freeze", code: ENOTSUP) }
            return (f, nil)
        case .cgroup1:
            guard let f = CgroupFreezer(.v1) else { throw SystemError("no writable cgroup v1 freezer hierarchy", code: ENOTSUP) }
            return (f, nil)
        case .sigstop:
            return (SignalFreezer(), nil)
        case .auto:
            if let f = CgroupFreezer(.v2) { return (f, nil) }
            if let f = CgroupFreezer(.v1) { return (f, "warning: no writable cgroup v2 freezer here; using the cgroup v1 freezer") }
            return (SignalFreezer(), "warning: no writable cgroup freezer here (read-only cgroups?); suspending with SIGSTOP")
        }
    }
}
