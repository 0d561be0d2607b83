@testable import BGXLive
import Foundation
import Glibc
import GRDB
import Testing

/// Faults around the live host — a stopped daemon, a lost database, a
/// shutdown — never punish an app that did what iOS asks, and never lose
/// state without saying so (docs/live.md, "State on disk and crashes").
@Suite("the live host under faults", .serialized)
struct LiveFaultTests {
    static func traceLines(_ host: LiveHost) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: host.directory + "/state/trace.jsonl", encoding: .utf8)) ?? ""
        var lines: [[String: Any]] = []
        for line in text.split(separator: "\n") {
            if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] { lines.append(object) }
        }
        return lines
    }

    /// `bgx-daemon-PID` directories where a daemon started by this process
    /// makes its subtree: under this process's own cgroup, on every cgroup mount.
    static func cgroupSubtrees(of pid: pid_t) -> [String] {
        var mounts: [String] = []
        for line in KernelSupport.mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 2, fields[2] == "cgroup2" || fields[2] == "cgroup" { mounts.append(String(fields[1])) }
        }
        let own = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        var paths: [String] = []
        for line in own.split(separator: "\n") {
            if let colon = line.lastIndex(of: ":") { paths.append(String(line[line.index(after: colon)...])) }
        }
        var found: [String] = []
        for mount in mounts {
            for path in paths {
                let candidate = mount + (path == "/" ? "" : path) + "/bgx-daemon-\(pid)"
                if FileManager.default.fileExists(atPath: candidate) { found.append(candidate) }
            }
        }
        return found
    }

    @Test("a full disk stops new work, saying so on ctl and in status, but takes a polite app's end, keeps the kill's audit line, and goes on when there is room",
          .enabled(if: geteuid() == 0, "needs root to mount a small tmpfs"))
    func fullDisk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-live-\(UUID().uuidString.prefix(8))").path
        let state = directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // A real full disk: a 6 MB tmpfs under the state (ENOSPC from the kernel, as on a full partition).
        try #require(mount("tmpfs", state, "tmpfs", 0, "size=6m,mode=0700") == 0, "mount: \(String(cString: strerror(errno)))")
        defer {
            umount2(state, 2)  // MNT_DETACH
            try? FileManager.default.removeItem(atPath: directory)
        }
        let host = try LiveHost(timeScale: 3, extra: ["--disk-reserve", "1MB"], directory: directory)
        try host.install("com.example.greedy", behaviour: "overrun")
        try host.install("com.example.polite", behaviour: "polite")
        try host.install("com.example.later")
        try host.ctl("launch", "com.example.greedy")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.greedy"])
        try host.ctl("launch", "com.example.polite")
        try host.wait(for: ["kind": "bgtask.begin", "app": "com.example.greedy"])
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.polite"])
        try host.ctl("home")
        let began = try host.wait(for: ["kind": "bgtask.begin", "app": "com.example.polite"])

        let filler = open(state + "/filler", O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 1, count: 64 * 1024)
        while write(filler, block, block.count) > 0 {}
        close(filler)

        let refusal = try host.ctlRefusal("launch", "com.example.later")
        #expect(refusal?.contains("full") == true && refusal?.contains("new work") == true, "\(refusal ?? "launched")")
        #expect(try host.ctl("status").contains("disk: the disk holding"))
        // The polite app's end is taken; the greedy one is killed, and its kill is in the audit log.
        try host.wait(for: ["kind": "bgtask.end", "app": "com.example.polite"], after: host.index(of: began))
        try host.wait(for: ["kind": "terminate", "app": "com.example.greedy", "reason": "backgroundTaskTimeout"])
        try host.wait(for: ["kind": "process.exit", "app": "com.example.greedy"])
        #expect(!host.lines.contains { LiveHost.matches($0, ["kind": "terminate", "app": "com.example.polite"]) })
        let audit = host.auditLog()
        #expect(audit.contains("\"app\": \"com.example.greedy\", \"kind\": \"terminate\"") && audit.contains("code=0x2182bad2"), "\(audit)")

        unlink(state + "/filler")
        try host.ctl("launch", "com.example.later")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.later"])
        #expect(!(try host.ctl("status").contains("disk: ")))
    }

    @Test("bgx ctl gives up on a stopped daemon with a message, and works again once it runs")
    func ctlTimesOut() throws {
        let host = try LiveHost()
        let daemon = try #require(LiveHost.executable("bgx-daemon"))
        kill(host.process.processIdentifier, SIGSTOP)
        let ctl = Process()
        let errors = Pipe()
        ctl.executableURL = URL(fileURLWithPath: daemon)
        ctl.arguments = ["ctl", "--socket", host.socket, "--timeout", "1", "status"]
        ctl.standardError = errors
        ctl.standardOutput = FileHandle.nullDevice
        try ctl.run()
        ctl.waitUntilExit()
        kill(host.process.processIdentifier, SIGCONT)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(ctl.terminationStatus == 2)
        #expect(said.contains("the daemon did not answer within 1s"), "\(said)")
        #expect(try host.ctl("status").contains("freezer:"))
    }

    @Test("a polite app is not killed for the daemon's stall: stopped well past the app's budget, then continued, the app still ends its task in its expiration handler")
    func stallDoesNotPunishPoliteApp() throws {
        let host = try LiveHost(timeScale: 10)
        try host.install("com.example.polite", behaviour: "polite")
        try host.ctl("launch", "com.example.polite")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let begin = try host.wait(for: ["kind": "bgtask.begin"])
        kill(host.process.processIdentifier, SIGSTOP)
        // The fault itself, not a wait for an event: the daemon stays stopped for twice the
        // background budget (30 s of engine time is 3 s at ×10), so its expiry and its kill both
        // fall due while it cannot run.
        let until = MonotonicClock.now() + 6_000_000_000
        while MonotonicClock.now() < until { poll(nil, 0, 100) }
        kill(host.process.processIdentifier, SIGCONT)
        try host.wait(for: ["kind": "daemon.stall"], after: host.index(of: begin))
        try host.wait(for: ["kind": "bgtask.end"], after: host.index(of: begin))
        try host.wait(for: ["kind": "state", "to": "suspended"], after: host.index(of: begin))
        #expect(!host.lines.contains { $0["kind"] as? String == "terminate" }, "the polite app was killed")
        #expect(!host.auditLog().contains("0x2182bad2"))
    }

    @Test("a state directory whose database was deleted or emptied refuses to start, its trace untouched, until --fresh")
    func lostDatabaseRefused() throws {
        let first = try LiveHost()
        try first.install("com.example.feed")
        try first.ctl("launch", "com.example.feed")
        try first.wait(for: ["kind": "state", "to": "active"])
        first.crash()
        let state = first.directory + "/state"
        let trace = try String(contentsOfFile: state + "/trace.jsonl", encoding: .utf8)
        for emptied in [false, true] {
            for suffix in ["", "-wal", "-shm"] { unlink(state + "/state.sqlite" + suffix) }
            if emptied { _ = FileManager.default.createFile(atPath: state + "/state.sqlite", contents: Data()) }
            do {
                _ = try LiveHost(directory: first.directory)
                Issue.record("the daemon started on a state that lost its database (emptied: \(emptied))")
            } catch let error as LiveHost.Unavailable {
                #expect(error.reason.hasPrefix("error: ") && error.reason.contains("was initialised")
                        && error.reason.contains("--fresh"), "\(error.reason)")
                // It refused after making its cgroup subtree, and removed it.
                #expect(Self.cgroupSubtrees(of: error.pid).isEmpty, "left behind: \(Self.cgroupSubtrees(of: error.pid))")
            }
            #expect(try String(contentsOfFile: state + "/trace.jsonl", encoding: .utf8) == trace, "the old trace was touched")
        }
        let fresh = try LiveHost(extra: ["--fresh"], directory: first.directory)
        #expect(fresh.daemonLog.contains("starting over on purpose"), "\(fresh.daemonLog)")
        #expect(try fresh.ctl("status").contains("freezer:"))
    }

    /// A daemon that ran an app through a few inputs, then was killed outright: its state left.
    static func crashedHost() throws -> LiveHost {
        let host = try LiveHost()
        try host.install("com.example.feed")
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "state", "to": "suspended"])
        for level in ["20", "30", "40", "50"] {
            try host.ctl("device", "battery=\(level)")
            try host.wait(for: ["kind": "device", "property": "battery", "value": level + "%"])
        }
        host.crash()
        return host
    }

    @Test("a journal entry changed on disk is found by its checksum: refused, nothing changed; --restore-to-last-good carries on before it, saying how many inputs were lost")
    func corruptedEntryRefused() throws {
        let first = try Self.crashedHost()
        let path = first.directory + "/state/state.sqlite"
        let (seq, total): (Int64, Int64) = try DatabaseQueue(path: path).write { db in
            let seq = try #require(try Int64.fetchOne(db, sql: "SELECT seq FROM journal WHERE kind = 'control' ORDER BY seq LIMIT 1 OFFSET 1"))
            try db.execute(sql: "UPDATE journal SET input = replace(input, 'home', 'hone') WHERE seq = ?", arguments: [seq])
            return (seq, try #require(try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM journal")))
        }
        let trace = try String(contentsOfFile: first.directory + "/state/trace.jsonl", encoding: .utf8)
        do {
            _ = try LiveHost(directory: first.directory)
            Issue.record("the daemon started on a corrupted journal")
        } catch let error as LiveHost.Unavailable {
            #expect(error.reason.contains("journal entry \(seq) does not match its checksum") && error.reason.contains("\(total - seq + 1) input(s)")
                    && error.reason.contains("--restore-to-last-good"), "\(error.reason)")
        }
        #expect(try String(contentsOfFile: first.directory + "/state/trace.jsonl", encoding: .utf8) == trace, "the trace was touched")
        let restored = try LiveHost(extra: ["--restore-to-last-good"], directory: first.directory)
        #expect(restored.daemonLog.contains("restored to journal entry \(seq - 1) on purpose") && restored.daemonLog.contains("\(total - seq + 1) journaled input(s)"),
                "\(restored.daemonLog)")
        #expect(try restored.ctl("status").contains("com.example.feed"))
    }

    @Test("a journal cut short (garbage in the WAL) is found from the trace it cannot explain: refused; --restore-to-last-good keeps the unexplained lines aside and writes no event that did not happen")
    func journalCutShortRefused() throws {
        let first = try Self.crashedHost()
        let state = first.directory + "/state"
        let wal = state + "/state.sqlite-wal"
        let fd = open(wal, O_RDWR)
        try #require(fd >= 0, "no WAL after the crash")
        var header = [UInt8](repeating: 0, count: 32)
        _ = pread(fd, &header, 32, 0)
        let pageSize = Int(header[8]) << 24 | Int(header[9]) << 16 | Int(header[10]) << 8 | Int(header[11])
        let frames = (Int(lseek(fd, 0, SEEK_END)) - 32) / (24 + pageSize)
        try #require(frames > 4, "\(frames) frames in the WAL")
        // Garbage in one of the last frames: SQLite's recovery keeps the commits before it only.
        let garbage = [UInt8](repeating: 0xAB, count: 256)
        _ = pwrite(fd, garbage, garbage.count, off_t(32 + (frames - 2) * (24 + pageSize) + 24 + 100))
        close(fd)
        unlink(state + "/state.sqlite-shm")
        let trace = try String(contentsOfFile: state + "/trace.jsonl", encoding: .utf8)
        do {
            _ = try LiveHost(directory: first.directory)
            Issue.record("the daemon started on a journal cut short")
        } catch let error as LiveHost.Unavailable {
            #expect(error.reason.contains("that replaying the journal does not give") && error.reason.contains("--restore-to-last-good"), "\(error.reason)")
        }
        #expect(try String(contentsOfFile: state + "/trace.jsonl", encoding: .utf8) == trace, "the trace was touched")
        let restored = try LiveHost(extra: ["--restore-to-last-good"], directory: first.directory)
        #expect(restored.daemonLog.contains("the journal does not explain"), "\(restored.daemonLog)")
        let lost = try String(contentsOfFile: state + "/trace.jsonl.lost", encoding: .utf8)
        #expect(lost.contains("\"property\": \"battery\""), "\(lost)")
        // What the trace kept is the start of what it held before: nothing rewritten, nothing invented.
        let kept = try String(contentsOfFile: state + "/trace.jsonl", encoding: .utf8)
        #expect(kept.hasPrefix(String(trace.utf8.prefix(trace.utf8.count - lost.utf8.count))!), "the trace before the cut changed")
    }

    @Test("the trace and an app's log rotate at --rotate-size; a restart after the trace rotated writes each line once")
    func rotation() throws {
        let first = try LiveHost(extra: ["--rotate-size", "4KB"])
        try first.install("com.example.chatty", behaviour: "chatty")
        try first.ctl("launch", "com.example.chatty")
        try first.wait(for: ["kind": "state", "to": "active"])
        for level in 1...60 {
            try first.ctl("device", "battery=\(level)")
            try first.wait(for: ["kind": "device", "property": "battery", "value": "\(level)%"])
        }
        let state = first.directory + "/state"
        let size = { (path: String) -> Int in ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1 }
        #expect(size(state + "/trace.jsonl.1") >= 4096)
        #expect(size(state + "/trace.jsonl") < 4096 + 1024, "\(size(state + "/trace.jsonl")) bytes")
        // The app's log: copied aside and emptied as it passes the size (sampled every 250 ms while it runs).
        let deadline = MonotonicClock.now() + 20_000_000_000
        while size(state + "/logs/com.example.chatty.log.1") < 4096 {
            try #require(MonotonicClock.now() < deadline, "the app's log never rotated")
            poll(nil, 0, 50)
        }
        first.crash()
        let second = try LiveHost(extra: ["--rotate-size", "4KB"], directory: first.directory)
        #expect(try second.ctl("status").contains("battery 60%"))
        let text = ["/trace.jsonl.1", "/trace.jsonl"].map { (try? String(contentsOfFile: state + $0, encoding: .utf8)) ?? "" }.joined()
        for level in [58, 59, 60] {
            let count = text.components(separatedBy: "\"value\": \"\(level)%\"").count - 1
            #expect(count == 1, "battery \(level)% is in the trace \(count) times")
        }
    }

    @Test("SIGTERM ends the apps as a shutting-down device does: willTerminate for the running one, the suspended one simply gone; traced, audited, the cgroup removed")
    func shutdownEndsApps() throws {
        let host = try LiveHost()
        try host.install("com.example.back")
        try host.install("com.example.front")
        try host.ctl("launch", "com.example.back")
        let back = try host.wait(for: ["kind": "process.spawn", "app": "com.example.back"])
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.back"])
        try host.ctl("home")
        try host.wait(for: ["kind": "state", "to": "suspended", "app": "com.example.back"])
        try host.ctl("launch", "com.example.front")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.front"])
        // willTerminate goes only to an app free to take it: wait until it has answered every callback
        // (`active` is traced before it answers didBecomeActive, and a loaded machine showed the gap).
        try host.waitUntilEveryCallbackIsAnswered()
        host.stop()
        let lines = Self.traceLines(host)
        func has(_ fields: [String: String]) -> Bool { lines.contains { LiveHost.matches($0, fields) } }
        #expect(has(["kind": "callback", "app": "com.example.front", "name": "willTerminate"]), "\(lines.suffix(12))")
        #expect(has(["kind": "terminate", "app": "com.example.front", "reason": "reboot"]))
        #expect(has(["kind": "terminate", "app": "com.example.back", "reason": "reboot"]))
        #expect(!has(["kind": "callback", "app": "com.example.back", "name": "willTerminate"]))
        #expect(lines.last.map { LiveHost.matches($0, ["kind": "daemon.stop"]) } == true, "\(lines.suffix(3))")
        let audit = host.auditLog()
        #expect(audit.contains("\"app\": \"com.example.front\", \"kind\": \"terminate\"") && audit.contains("\"app\": \"com.example.back\", \"kind\": \"terminate\""), "\(audit)")
        if let cgroup = back["cgroup"] as? String, cgroup != "none" {
            #expect(!FileManager.default.fileExists(atPath: (cgroup as NSString).deletingLastPathComponent), "the daemon's cgroup subtree is still there")
        }
        #expect(host.daemonLog.contains("bgx daemon: stopped"))
    }
}
