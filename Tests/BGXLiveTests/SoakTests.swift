import BGXLive
import BGXTestKit
import BGXLiveStore
import Foundation
import Glibc
import Testing

/// Many real app processes under a stream of random user, device and push
/// inputs for a while: afterwards no state is lost, no process is left a
/// zombie, no cgroup or file descriptor is leaked, and the daemon's resident
/// size stays flat. `BGX_SOAK_APPS=N` (default 20) and `BGX_SOAK_SECONDS=S`
/// (default 20) size the run, `BGX_SOAK_SNAPSHOT_EVERY=N` (default 1,000, so
/// that the short run stores a few) the daemon's snapshots; docs/live.md gives
/// the hour-long one (100 apps, 3600 s, the daemon's default of 10,000) and
/// the figures it gave.
@Suite("the live host under a long random load", .serialized)
struct SoakTests {
    static func residentKB(_ pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }

    static func openFiles(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// Whether `pid` is still the daemon's child (running, or exited and not
    /// collected). Not merely whether the pid exists: pids are reused, and an
    /// hour of a busy machine wraps them (pid_max is 32768 here), so a pid
    /// the daemon started long ago may now be another process's.
    static func isChild(_ pid: pid_t, of parent: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let name = stat.lastIndex(of: ")") else { return false }
        // After the command's name: the state, then the parent's pid.
        let fields = stat[stat.index(after: name)...].split(separator: " ")
        return fields.count > 1 && pid_t(fields[1]) == parent
    }

    /// Reads the trace lines the daemon has sent so far (a follower that stops
    /// reading is cut off), without waiting for more than a moment.
    static func drain(_ host: LiveHost) {
        while case let message? = try? host.follower.connection.receive(until: MonotonicClock.now() + 1_000_000) {
            if message.type == "trace", let text = message.text,
               let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
                host.lines.append(object)
            }
        }
    }

    @Test("random inputs to many app processes: nothing lost, no zombie, no leaked cgroup or descriptor, resident size flat")
    func soak() throws {
        let environment = ProcessInfo.processInfo.environment
        let appCount = environment["BGX_SOAK_APPS"].flatMap(Int.init) ?? 20
        let seconds = environment["BGX_SOAK_SECONDS"].flatMap(Double.init) ?? 20
        let seed = environment["BGX_SOAK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let snapshotEvery = environment["BGX_SOAK_SNAPSHOT_EVERY"].flatMap(Int.init) ?? 1_000
        var g = RandomCrashTests.Generator(state: seed)
        let host = try LiveHost(timeScale: 10, extra: ["--snapshot-every", "\(snapshotEvery)"])
        let daemon = host.process.processIdentifier
        let behaviours = ["normal", "refresh", "notify", "polite"]
        var apps: [String] = []
        for i in 0..<appCount {
            let bundle = "com.example.soak\(i)"
            let behaviour = behaviours[i % behaviours.count]
            try host.install(bundle, behaviour: behaviour, modes: behaviour == "refresh" ? ["fetch", "remote-notification"] : ["remote-notification"],
                             permitted: behaviour == "refresh" ? ["com.example.refresh"] : [])
            apps.append(bundle)
        }
        let baselineFiles = Self.openFiles(daemon)
        var answered: [String: Int] = [:], inputs = 0
        var resident: [Int] = []
        let begun = MonotonicClock.now(), end = begun + Int64(seconds * 1e9)
        var nextReport = begun + 60_000_000_000
        while MonotonicClock.now() < end {
            let app = apps[g.below(apps.count)]
            let (verb, args): (String, [String]) = switch g.below(12) {
            case 0, 1, 2, 3: ("launch", [app])
            case 4, 5: ("home", [])
            case 6: ("lock", [])
            case 7: ("unlock", [])
            case 8, 9: ("push", [app, "background"])
            case 10: ("device", [["charging=true", "charging=false", "network=wifi", "network=cellular", "network=none"][g.below(5)]])
            default: ("forcequit", [app])
            }
            inputs += 1
            if let reply = try? ControlClient(socket: host.socket).send(verb, args), reply.ok == true {
                answered[verb, default: 0] += 1
            }
            if inputs % 25 == 0 {
                resident.append(Self.residentKB(daemon))
                Self.drain(host)
            }
            // A long run says how it is going once a minute (a run cut short still has its figures).
            if MonotonicClock.now() >= nextReport {
                nextReport += 60_000_000_000
                let elapsed = Int((MonotonicClock.now() - begun) / 1_000_000_000)
                print("soak: \(elapsed) s, \(inputs) inputs, resident \(Self.residentKB(daemon)) kB, "
                      + "descriptors \(Self.openFiles(daemon)), "
                      + "\(host.lines.filter { $0["kind"] as? String == "process.spawn" }.count) processes started")
                fflush(stdout)
            }
        }
        // Every app ended, so that what is left over is a leak.
        for app in apps { _ = try? host.ctl("forcequit", app) }
        let spawns = { host.lines.filter { $0["kind"] as? String == "process.spawn" } }
        _ = try host.ctl("status")
        try host.wait(for: ["kind": "user", "action": "forceQuit", "app": apps.last!])
        // Exits by pid, gathered once: an hour's trace has half a million lines and thousands of processes.
        func exits(_ lines: ArraySlice<[String: Any]>) -> [String] {
            lines.filter { $0["kind"] as? String == "process.exit" }.map { "\($0["pid"] ?? "")" }
        }
        var exited = Set(exits(host.lines[...]))
        for spawn in spawns() {
            let pid = "\(spawn["pid"] ?? "")"
            if !exited.contains(pid) {
                let from = host.lines.count
                try host.wait(for: ["kind": "process.exit", "pid": pid], after: from)
                exited.formUnion(exits(host.lines[from...]))
            }
        }
        let status = try host.ctl("status")
        let finalFiles = Self.openFiles(daemon)
        let finalResident = Self.residentKB(daemon)

        // No zombie: every process the daemon started is gone, collected.
        let pids = spawns().compactMap { ($0["pid"] as? Int).map { pid_t($0) } }
        #expect(pids.count > 0)
        let zombies = pids.filter { Self.isChild($0, of: daemon) }
        #expect(zombies.isEmpty, "processes not collected: \(zombies)")
        // No leaked cgroup: the daemon's subtree has no app leaf left.
        if let root = status.split(separator: "\n").first?.split(separator: "(").dropFirst().first?.dropLast() {
            let leaves = (try? FileManager.default.contentsOfDirectory(atPath: String(root)))?
                .filter { $0.hasPrefix("com.example.") } ?? []
            #expect(leaves.isEmpty, "cgroups left: \(leaves)")
        }
        // No leaked descriptor: back where it was before any app ran.
        #expect(finalFiles <= baselineFiles + 2, "descriptors: \(baselineFiles) before, \(finalFiles) after")
        // Resident size flat: the last samples no higher than the early ones by more than a margin.
        let early = resident.prefix(max(1, resident.count / 3)).max() ?? finalResident
        #expect(finalResident <= early * 5 / 4 + 4096, "resident size grew: \(early) kB early, \(finalResident) kB at the end")
        // The rules no run may break, read from the daemon's trace as it came (TraceInvariants).
        let broken = TraceInvariants.violations(inParsed: host.lines)
        #expect(broken.isEmpty, "\(broken.count) broken, first: \(broken.prefix(10).map(\.description).joined(separator: "\n"))")
        // Nothing answered is lost.
        for action in ["launch", "home", "lock", "unlock"] {
            let done = host.lines.filter { $0["kind"] as? String == "user" && $0["action"] as? String == action }.count
            #expect(done >= (answered[action] ?? 0), "\(action): \(answered[action] ?? 0) answered, \(done) in the trace")
        }
        let store = try SQLiteStore(path: host.directory + "/state/state.sqlite")
        let journaled = try store.lastEntry()?.seq ?? 0
        #expect(journaled >= Int64(answered.values.reduce(0, +)))
        // The journal holds what followed the latest snapshot, not everything ever journaled.
        let kept = try store.entries().count
        let snapshot = try store.latestSnapshot()
        if journaled > Int64(snapshotEvery) {
            #expect(snapshot != nil && kept <= snapshotEvery, "\(kept) entries kept of \(journaled)")
            #expect(status.contains("since the snapshot at entry"), "\(status)")
        }

        // Nothing lost across a crash either: killed with SIGKILL and started again on its
        // state, the daemon decodes its latest snapshot and replays the journal after it
        // into the same apps, flags and requests.
        host.crash()
        let restarting = MonotonicClock.now()
        let restarted = try LiveHost(timeScale: 10, directory: host.directory)
        let replay = Double(MonotonicClock.now() - restarting) / 1e9
        let after = try restarted.ctl("status")
        #expect(Self.appLines(after) == Self.appLines(status), "before the crash:\n\(status)\nafter:\n\(after)")
        let snapshotLine = status.split(separator: "\n").first { $0.hasPrefix("state: ") } ?? "state: none"
        print("soak: \(appCount) apps, \(seconds) s, \(inputs) inputs, \(pids.count) processes, \(journaled) journaled, "
              + "\(kept) kept, \(snapshotLine), "
              + "resident \(resident.first ?? 0)→\(finalResident) kB, descriptors \(baselineFiles)→\(finalFiles), "
              + "restart from the snapshot and the \(kept) entries after it \(String(format: "%.1f", replay)) s, seed \(seed)")
    }

    /// What `status` says of each app and its pending requests (not the times, which move).
    static func appLines(_ status: String) -> [Substring] {
        status.split(separator: "\n").filter { $0.hasPrefix("com.example.") || $0.hasPrefix("  pending ") }
    }
}
