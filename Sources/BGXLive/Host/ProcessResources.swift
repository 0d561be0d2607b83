import BGXCore
import Glibc

/// What an app's processes really use, read from the kernel: CPU time from
/// the leaf cgroup's `cpu.stat` (every process of the app, children too) or
/// else `/proc/PID/stat`; resident size as the sum of `VmRSS` over the
/// leaf's `cgroup.procs` (else the one process).
enum ProcessResources {
    static let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))

    /// CPU time used so far, in nanoseconds.
    static func cpuTime(pid: pid_t, cgroup: String?) -> Int64? {
        if let cgroup, let stat = CgroupFiles.read(cgroup + "/cpu.stat") {
            for line in stat.split(separator: "\n") where line.hasPrefix("usage_usec ") {
                return line.split(separator: " ").last.flatMap { Int64($0) }.map { $0 * 1000 }
            }
        }
        guard let stat = CgroupFiles.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: utime and stime are fields 14 and 15 (1-based, counting pid and name).
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        return (user + system) * (1_000_000_000 / ticksPerSecond)
    }

    /// Resident bytes of the app's processes.
    static func residentBytes(pid: pid_t, cgroup: String?) -> Int64? {
        var pids = [pid]
        if let cgroup, let procs = CgroupFiles.read(cgroup + "/cgroup.procs") {
            pids = procs.split(separator: "\n").compactMap { pid_t($0) }
        }
        var total: Int64 = 0
        var any = false
        for p in pids {
            guard let status = CgroupFiles.read("/proc/\(p)/status"),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                  let kb = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) }) else { continue }
            total += kb * 1024
            any = true
        }
        return any ? total : nil
    }
}

/// Pressure stall information for memory (`/proc/pressure/memory`, a
/// cgroup's `memory.pressure`): the share of recent time in which some task
/// (`some`) or every task (`full`) waited for memory. Android's lmkd reads
/// the same file; its default thresholds — 70 ms of partial stall and
/// 700 ms of complete stall per second — are the bounds here for the
/// engine's `warning` and `critical`.
struct PressureStall: Equatable {
    /// avg10: percent of the last 10 s.
    var some: Double
    var full: Double

    init(some: Double, full: Double) {
        self.some = some
        self.full = full
    }

    /// Parses `some avg10=… avg60=… avg300=… total=…` / `full …` lines.
    init?(text: String) {
        var some: Double?, full = 0.0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let kind = words.first,
                  let avg10 = words.first(where: { $0.hasPrefix("avg10=") }).flatMap({ Double($0.dropFirst(6)) }) else { continue }
            if kind == "some" { some = avg10 } else if kind == "full" { full = avg10 }
        }
        guard let some else { return nil }
        self.init(some: some, full: full)
    }

    static func read(_ path: String = "/proc/pressure/memory") -> PressureStall? {
        CgroupFiles.read(path).flatMap { PressureStall(text: $0) }
    }

    var level: DeviceState.MemoryPressure {
        if full >= 70 { return .critical }
        if some >= 7 { return .warning }
        return .normal
    }
}
