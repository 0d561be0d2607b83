@testable import BGXLive
@testable import BGXLiveStore
import GRDB
import Foundation
import Glibc
import Testing

/// The live host keeps its promises across its own death: a real daemon is
/// killed with SIGKILL and restarted on the same state directory; what was
/// submitted is still there, what was delivered is not delivered again, and
/// the processes it left are reaped with a reason.
@Suite("the live host survives a crash", .serialized)
struct CrashRestartTests {
    /// The trace file, every line parsed.
    static func trace(_ host: LiveHost) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: host.directory + "/state/trace.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func rawTrace(_ host: LiveHost) -> [String] {
        ((try? String(contentsOfFile: host.directory + "/state/trace.jsonl", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// The engine's own lines that appear more than once (the host's
    /// `process.*`, `daemon.*` lines are about processes, and repeat legitimately).
    static func duplicatedEngineLines(_ host: LiveHost) -> [String] {
        var seen: [String: Int] = [:]
        for line in rawTrace(host) where !line.contains("\"kind\": \"process.") && !line.contains("\"kind\": \"daemon.")
            && !line.contains("\"kind\": \"connection.") {
            seen[line, default: 0] += 1
        }
        return seen.filter { $0.value > 1 }.map(\.key).sorted()
    }

    static func count(_ host: LiveHost, _ fields: [String: String]) -> Int {
        trace(host).filter { LiveHost.matches($0, fields) }.count
    }

    /// Running (a zombie waiting for whoever inherited it is not).
    static func alive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].first { $0 != " " } != "Z"
    }

    /// Engine time never runs backwards, across any number of restarts.
    static func timesAreInOrder(_ host: LiveHost) -> Bool {
        let times = trace(host).compactMap { $0["t"] as? Double }
        return zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }
    }

    @Test("kill -9 with an app frozen: the restarted daemon reaps it with a reason and keeps its pending request")
    func frozenAppAndPendingRequest() throws {
        let first = try LiveHost()
        try first.install("com.example.refresh", behaviour: "refresh", modes: ["fetch"], permitted: ["com.example.refresh"])
        try first.ctl("launch", "com.example.refresh")
        let spawn = try first.wait(for: ["kind": "process.spawn"])
        try first.wait(for: ["kind": "state", "to": "active"])
        try first.ctl("home")
        try first.wait(for: ["kind": "task.submit", "identifier": "com.example.refresh"])
        try first.wait(for: ["kind": "process.freeze"])
        let pid = try #require((spawn["pid"] as? Int).map { pid_t($0) })
        let cgroup = spawn["cgroup"] as? String ?? "none"
        first.crash()
        #expect(Self.alive(pid), "the app should outlive the daemon that was killed")

        let second = try LiveHost(directory: first.directory)
        try second.wait(for: ["kind": "process.kill", "pid": "\(pid)", "reason": "daemonRestart"])
        try second.wait(for: ["kind": "terminate", "app": "com.example.refresh", "reason": "exit"])
        let status = try second.ctl("status")
        #expect(status.contains("com.example.refresh: notRunning"), "\(status)")
        #expect(status.contains("pending appRefresh com.example.refresh"), "the request was lost: \(status)")
        #expect(!Self.alive(pid), "the app the dead daemon left is still alive")
        if cgroup != "none" { #expect(!FileManager.default.fileExists(atPath: cgroup), "its cgroup is left") }
        #expect(Self.count(second, ["kind": "task.submit"]) == 1)
        #expect(Self.duplicatedEngineLines(second).isEmpty, "\(Self.duplicatedEngineLines(second))")
        #expect(Self.timesAreInOrder(second))
        // Every kill has its reason, in the audit table too.
        let audit = try SQLiteStore(path: second.directory + "/state/state.sqlite").auditRecords()
        #expect(audit.contains { $0.reason == "daemonRestart" && $0.app == "com.example.refresh" }, "\(audit)")
    }

    @Test("a force-quit flag survives the daemon's crash")
    func forceQuitSurvives() throws {
        let first = try LiveHost()
        try first.install("com.example.feed")
        try first.ctl("launch", "com.example.feed")
        try first.wait(for: ["kind": "state", "to": "active"])
        try first.ctl("forcequit", "com.example.feed")
        try first.wait(for: ["kind": "process.exit"])
        #expect(try first.ctl("status").contains("force-quit"))
        first.crash()
        let second = try LiveHost(directory: first.directory)
        let status = try second.ctl("status")
        #expect(status.contains("com.example.feed: notRunning, force-quit"), "\(status)")
        #expect(Self.count(second, ["kind": "terminate", "reason": "userForceQuit"]) == 1)
    }

    @Test("a notification that falls due while the daemon is down is delivered at restart, once")
    func notificationCaughtUp() throws {
        // ×10: the notification's 30 s are 3 s of the clock.
        let first = try LiveHost(timeScale: 10)
        try first.install("com.example.notes", behaviour: "notify")
        try first.ctl("launch", "com.example.notes")
        try first.wait(for: ["kind": "state", "to": "active"])
        try first.ctl("home")
        let scheduled = try first.wait(for: ["kind": "notification.schedule", "id": "reminder"])
        try first.wait(for: ["kind": "process.freeze"])
        first.crash()
        let due = try #require(scheduled["t"] as? Double) + 30
        // The outage: the daemon stays down past the moment the notification is due (the input, not a wait for an event).
        let downFor = (due - (Self.trace(first).last?["t"] as? Double ?? 0)) / 10 + 0.5
        usleep(useconds_t(max(0, downFor) * 1e6))

        let second = try LiveHost(timeScale: 10, directory: first.directory)
        let start = try second.wait(for: ["kind": "daemon.start"], after: 1)
        let delivered = try second.wait(for: ["kind": "notification.deliver", "id": "reminder", "to": "user"])
        let t = try #require(delivered["t"] as? Double)
        #expect(t >= due, "delivered at \(t), due at \(due)")
        #expect(t >= (start["t"] as? Double ?? 0), "delivered before the restart")
        second.crash()
        // And a second restart replays it without delivering it again.
        let third = try LiveHost(timeScale: 10, directory: first.directory)
        _ = try third.ctl("status")
        #expect(Self.count(third, ["kind": "notification.deliver", "id": "reminder"]) == 1)
        #expect(Self.duplicatedEngineLines(third).isEmpty, "\(Self.duplicatedEngineLines(third))")
        #expect(Self.timesAreInOrder(third))
    }

    @Test("a second daemon on the same state directory is refused")
    func oneDaemonPerState() throws {
        let first = try LiveHost()
        #expect(throws: (any Error).self) { try LiveHost(directory: first.directory) }
    }

    /// A power cut between the write and its effect: the daemon dies right
    /// after journaling an input of one kind, before acting on it. Restarted,
    /// the input's effect shows once — not lost, not doubled.
    static let powerCuts: [(String, [String: String])] = [
        ("install:1", ["kind": "app.install"]),
        ("control:1", ["kind": "user", "action": "launch"]),
        ("call:1", ["kind": "task.register", "identifier": "com.example.refresh"]),
        ("returned:1", ["kind": "state", "to": "active"]),
        ("resident:1", ["kind": "user", "action": "launch"]),
        ("control:2", ["kind": "user", "action": "home"]),
        ("call:2", ["kind": "task.submit", "identifier": "com.example.refresh"]),
        ("exited:1", ["kind": "terminate", "reason": "exit"]),
    ]

    @Test("killed between the journal write and its effect, for each kind of input", arguments: powerCuts)
    func powerCut(crashAfter: String, effect: [String: String]) throws {
        try Self.powerCut(crashAfter: crashAfter, effect: effect, extra: [])
    }

    /// The entry the daemon died after carries the snapshot: the restart decodes it and replays that one input.
    @Test("the same with a snapshot stored with every input", arguments: powerCuts)
    func powerCutWithSnapshots(crashAfter: String, effect: [String: String]) throws {
        try Self.powerCut(crashAfter: crashAfter, effect: effect, extra: ["--snapshot-every", "1"])
    }

    static func powerCut(crashAfter: String, effect: [String: String], extra: [String]) throws {
        let env = ["BGX_CRASH_AFTER_JOURNAL": crashAfter]
        let first = try LiveHost(extra: extra, environment: env)
        // The script: install, launch, go home (the app submits its request), and the app exits.
        let behaviour = crashAfter.hasPrefix("exited") ? "exit-in-background" : "refresh"
        _ = try? first.install("com.example.refresh", behaviour: behaviour, modes: ["fetch"], permitted: ["com.example.refresh"])
        if first.process.isRunning { _ = try? first.ctl("launch", "com.example.refresh") }
        // No short deadline: where the daemon dies first, the wait ends at once (its trace connection closes);
        // where it lives, launching may take long on a loaded machine, and `home` must still be sent.
        if first.process.isRunning, (try? first.wait(for: ["kind": "state", "to": "active"], quietly: true)) != nil {
            _ = try? first.ctl("home")
        }
        first.process.waitUntilExit()
        first.keepState = true
        #expect(first.process.terminationReason == .uncaughtSignal, "the daemon did not die after journaling \(crashAfter)")

        let second = try LiveHost(extra: extra, directory: first.directory)
        _ = try second.ctl("status")
        #expect(Self.count(second, effect) == 1, "\(effect) should show once: \(Self.rawTrace(second).joined(separator: "\n"))")
        #expect(Self.duplicatedEngineLines(second).isEmpty, "\(Self.duplicatedEngineLines(second))")
        #expect(Self.timesAreInOrder(second))
        if extra.isEmpty {
            let journal = try SQLiteStore(path: first.directory + "/state/state.sqlite").entries()
            #expect(journal.contains { $0.input.kind == crashAfter.split(separator: ":")[0] })
        } else if crashAfter != "install:1" {
            // (The first input has no snapshot: there is nothing before it.) The journal before it is gone.
            #expect(second.daemonLog.contains("restored the snapshot at entry"), "\(second.daemonLog)")
        }
    }

    // MARK: Snapshots

    /// A refresh app with a pending request, a force-quit app, and some
    /// device changes: state of several kinds, then `count` more inputs.
    static func stateOfSeveralKinds(_ host: LiveHost, inputs count: Int) throws {
        try host.install("com.example.refresh", behaviour: "refresh", modes: ["fetch"], permitted: ["com.example.refresh"])
        try host.install("com.example.feed")
        try host.ctl("launch", "com.example.refresh")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "task.submit", "identifier": "com.example.refresh"])
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.feed"])
        try host.ctl("forcequit", "com.example.feed")
        try host.wait(for: ["kind": "terminate", "app": "com.example.feed", "reason": "userForceQuit"])
        for k in 0..<count { try host.ctl("device", k % 2 == 0 ? "charging=true" : "charging=false") }
    }

    static func expectStateOfSeveralKinds(_ host: LiveHost, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try host.ctl("status")
        #expect(status.contains("pending appRefresh com.example.refresh"), "the request was lost: \(status)",
                sourceLocation: sourceLocation)
        #expect(status.contains("com.example.feed: notRunning, force-quit"), "\(status)", sourceLocation: sourceLocation)
        #expect(count(host, ["kind": "task.submit"]) == 1, sourceLocation: sourceLocation)
        #expect(duplicatedEngineLines(host).isEmpty, "\(duplicatedEngineLines(host))", sourceLocation: sourceLocation)
        #expect(timesAreInOrder(host), sourceLocation: sourceLocation)
    }

    @Test("a restart after a snapshot replays only the inputs after it; the journal before it is gone and nothing is lost")
    func snapshotBoundsTheReplay() throws {
        let first = try LiveHost(extra: ["--snapshot-every", "4"])
        try Self.stateOfSeveralKinds(first, inputs: 11)
        first.crash()
        let store = try SQLiteStore(path: first.directory + "/state/state.sqlite")
        let snapshot = try #require(try store.latestSnapshot())
        #expect(snapshot.seq > 4)
        #expect(try store.firstEntry()?.seq == snapshot.seq, "the entries before the snapshot are deleted with it")
        let kept = try store.entries()
        #expect(kept.count <= 4, "\(kept.count) entries kept")
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM snapshots") } == 1)

        let second = try LiveHost(extra: ["--snapshot-every", "4"], directory: first.directory)
        #expect(second.daemonLog.contains("restored the snapshot at entry \(snapshot.seq) and \(kept.count) journaled input(s)"),
                "\(second.daemonLog)")
        try Self.expectStateOfSeveralKinds(second)
        let afterRestart = try second.ctl("status")
        if !afterRestart.contains("since the snapshot at entry \(snapshot.seq) (\(snapshot.body.count) bytes, restored from)") {
            // Inputs that come as it comes back (the exits of the processes it reaps) may reach the
            // next snapshot before `status` is asked (every 4 here); then it names that one, its own.
            let later = try #require(try store.latestSnapshot())
            #expect(later.seq > snapshot.seq
                        && afterRestart.contains("since the snapshot at entry \(later.seq) (\(later.body.count) bytes, encoded in"),
                    "\(afterRestart)")
        }
        // And it goes on snapshotting: the next restart starts from a later one.
        for k in 0..<6 { try second.ctl("device", k % 2 == 0 ? "charging=true" : "charging=false") }
        second.crash()
        let journal = try store.entries().map { "\($0.seq) \($0.input.kind)" }
        #expect(try store.latestSnapshot().map(\.seq) ?? 0 > snapshot.seq, "\(journal)")
        let third = try LiveHost(directory: first.directory)
        try Self.expectStateOfSeveralKinds(third)
        try third.ctl("device", "charging=true")
        // Without --snapshot-every this daemon stores one with its 10,000th input: none yet.
        #expect(try third.ctl("status").contains("input(s) journaled since the snapshot at entry"))
    }

    /// Marks the stored snapshot as made by another bgx.
    static func foreignSnapshot(_ directory: String) throws {
        let store = try SQLiteStore(path: directory + "/state/state.sqlite")
        try store.pool.write { try $0.execute(sql: "UPDATE snapshots SET format = 999") }
    }

    @Test("a snapshot of another format: with the whole journal kept, the daemon replays it from the first entry")
    func foreignSnapshotWithWholeJournal() throws {
        let first = try LiveHost(extra: ["--snapshot-every", "4", "--keep-journal"])
        try Self.stateOfSeveralKinds(first, inputs: 6)
        first.crash()
        try Self.foreignSnapshot(first.directory)
        let store = try SQLiteStore(path: first.directory + "/state/state.sqlite")
        #expect(try store.firstEntry()?.seq == 1, "--keep-journal keeps the journal whole")
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM snapshots") } ?? 0 >= 2)

        let second = try LiveHost(extra: ["--snapshot-every", "4", "--keep-journal"], directory: first.directory)
        #expect(second.daemonLog.contains("is of format 999; this daemon reads format \(DaemonSnapshot.format): replaying the whole journal instead"),
                "\(second.daemonLog)")
        #expect(!second.daemonLog.contains("restored the snapshot"))
        try Self.expectStateOfSeveralKinds(second)
    }

    @Test("a snapshot of another format with the journal before it gone: the daemon refuses to start, saying why")
    func foreignSnapshotWithCompactedJournal() throws {
        let first = try LiveHost(extra: ["--snapshot-every", "4"])
        try Self.stateOfSeveralKinds(first, inputs: 6)
        first.crash()
        try Self.foreignSnapshot(first.directory)
        do {
            _ = try LiveHost(directory: first.directory)
            Issue.record("the daemon started from a snapshot it cannot read")
        } catch let refused as LiveHost.Unavailable {
            #expect(refused.reason.hasPrefix("error: "), "\(refused.reason)")
            #expect(refused.reason.contains("is of format 999; this daemon reads format \(DaemonSnapshot.format), and the journal before it was compacted away"),
                    "\(refused.reason)")
        }
        // Nothing was written over: the state is as the dead daemon left it.
        let store = try SQLiteStore(path: first.directory + "/state/state.sqlite")
        #expect(try store.latestSnapshot()?.format == 999)
        // No host owns the directory now (the first crashed, the second never started).
        try? FileManager.default.removeItem(atPath: first.directory)
    }
}
