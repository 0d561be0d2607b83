import BGXLive
import BGXLiveStore
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
    @Test("killed between the journal write and its effect, for each kind of input", arguments: [
        ("install:1", ["kind": "app.install"]),
        ("control:1", ["kind": "user", "action": "launch"]),
        ("call:1", ["kind": "task.register", "identifier": "com.example.refresh"]),
        ("returned:1", ["kind": "state", "to": "active"]),
        ("resident:1", ["kind": "user", "action": "launch"]),
        ("control:2", ["kind": "user", "action": "home"]),
        ("call:2", ["kind": "task.submit", "identifier": "com.example.refresh"]),
        ("exited:1", ["kind": "terminate", "reason": "exit"]),
    ])
    func powerCut(crashAfter: String, effect: [String: String]) throws {
        let env = ["BGX_CRASH_AFTER_JOURNAL": crashAfter]
        let first = try LiveHost(environment: env)
        // The script: install, launch, go home (the app submits its request), and the app exits.
        let behaviour = crashAfter.hasPrefix("exited") ? "exit-in-background" : "refresh"
        _ = try? first.install("com.example.refresh", behaviour: behaviour, modes: ["fetch"], permitted: ["com.example.refresh"])
        if first.process.isRunning { _ = try? first.ctl("launch", "com.example.refresh") }
        if first.process.isRunning, (try? first.wait(for: ["kind": "state", "to": "active"], seconds: 5, quietly: true)) != nil {
            _ = try? first.ctl("home")
        }
        first.process.waitUntilExit()
        first.keepState = true
        #expect(first.process.terminationReason == .uncaughtSignal, "the daemon did not die after journaling \(crashAfter)")

        let second = try LiveHost(directory: first.directory)
        _ = try second.ctl("status")
        #expect(Self.count(second, effect) == 1, "\(effect) should show once: \(Self.rawTrace(second).joined(separator: "\n"))")
        #expect(Self.duplicatedEngineLines(second).isEmpty, "\(Self.duplicatedEngineLines(second))")
        #expect(Self.timesAreInOrder(second))
        let journal = try SQLiteStore(path: first.directory + "/state/state.sqlite").entries()
        #expect(journal.contains { $0.input.kind == crashAfter.split(separator: ":")[0] })
    }
}
