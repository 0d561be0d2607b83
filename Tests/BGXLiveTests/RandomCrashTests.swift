import BGXLive
import BGXLiveStore
import Foundation
import Glibc
import Testing

/// The daemon killed with SIGKILL at random moments, many times, under a
/// stream of random inputs — some answered before the kill, some sent as it
/// falls — and restarted on its state each time. Afterwards the whole trace
/// must show: every input that was answered happened (nothing lost), no input
/// and no delivery happened twice, time never ran backwards, every kill has its
/// reason (in the trace and in the audit table), and no process is left alive.
///
/// `BGX_CRASH_KILLS=N` (default 100) and `BGX_CRASH_SEED=S` set the run; the
/// longer soak in docs/live.md is the same test with a large N.
@Suite("the live host killed at random moments", .serialized)
struct RandomCrashTests {
    /// A small seeded generator (SplitMix64): the run can be repeated from its seed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    static let apps = ["com.example.notes", "com.example.refresh"]

    static func randomInput(_ g: inout Generator) -> (verb: String, args: [String]) {
        let app = apps[g.below(apps.count)]
        switch g.below(10) {
        case 0, 1, 2: return ("launch", [app])
        case 3, 4: return ("home", [])
        case 5: return ("lock", [])
        case 6: return ("unlock", [])
        case 7: return ("push", [app, "background"])
        case 8: return ("device", [g.below(2) == 0 ? "charging=true" : "charging=false"])
        default: return ("forcequit", [app])
        }
    }

    @Test("100 SIGKILLs at random moments under random inputs: nothing lost, nothing twice, every kill with its reason")
    func randomKills() throws {
        try Self.randomKills(extra: [])
    }

    /// Every few inputs a snapshot, and the journal before it deleted: most
    /// restarts decode a snapshot and replay a few entries, some none at all.
    @Test("the same with a snapshot every 3 inputs: restarts from snapshots lose nothing and repeat nothing")
    func randomKillsWithSnapshots() throws {
        try Self.randomKills(extra: ["--snapshot-every", "3"]) { store in
            let snapshot = try #require(try store.latestSnapshot())
            #expect(try store.firstEntry()?.seq == snapshot.seq, "the journal before the latest snapshot is deleted")
            #expect(try store.entries().count <= 3)
        }
    }

    /// `state`: looks at the state file once the last daemon has stopped.
    static func randomKills(extra: [String], state: (SQLiteStore) throws -> Void = { _ in }) throws {
        let environment = ProcessInfo.processInfo.environment
        let kills = environment["BGX_CRASH_KILLS"].flatMap(Int.init) ?? 100
        let seed = environment["BGX_CRASH_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
        var g = Generator(state: seed)
        var host = try LiveHost(timeScale: 10, extra: extra)
        let directory = host.directory
        try host.install("com.example.notes", behaviour: "notify")
        try host.install("com.example.refresh", behaviour: "refresh", modes: ["fetch"], permitted: ["com.example.refresh"])
        var answered: [String: Int] = [:], sent: [String: Int] = [:]
        for _ in 0..<kills {
            let inputs = g.below(5)
            for i in 0..<inputs {
                let (verb, args) = Self.randomInput(&g)
                sent[verb + (args.first.map { " " + $0 } ?? ""), default: 0] += 1
                if i == inputs - 1, g.below(2) == 0 {
                    // Sent as the daemon dies: it may or may not have taken it.
                    let client = try ControlClient(socket: host.socket)
                    var numbered: [String: String] = [:]
                    for (n, arg) in args.enumerated() { numbered["\(n)"] = arg }
                    try client.connection.send(LiveMessage(type: "ctl", seq: 1, name: verb, args: numbered))
                } else if let reply = try? ControlClient(socket: host.socket).send(verb, args), reply.ok == true {
                    answered[verb + (args.first.map { " " + $0 } ?? ""), default: 0] += 1
                }
            }
            host.crash()
            host = try LiveHost(timeScale: 10, extra: extra, directory: directory)
        }
        let status = try host.ctl("status")
        host.stop()

        let text = try String(contentsOfFile: directory + "/state/trace.jsonl", encoding: .utf8)
        let raw = text.split(separator: "\n").map(String.init)
        let lines = raw.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == raw.count, "a torn line in the trace")
        func count(_ fields: [String: String]) -> Int { lines.filter { LiveHost.matches($0, fields) }.count }

        // Every restart is in the trace, and its kills.
        #expect(count(["kind": "daemon.start"]) == kills + 1)

        // Nothing answered is lost; nothing happens twice.
        for action in ["launch", "home", "lock", "unlock"] {
            let keys = answered.keys.filter { $0 == action || $0.hasPrefix(action + " ") }
            let done = count(["kind": "user", "action": action])
            let acknowledged = keys.reduce(0) { $0 + answered[$1]! }
            let tried = sent.filter { $0.key == action || $0.key.hasPrefix(action + " ") }.values.reduce(0, +)
            #expect(done >= acknowledged && done <= tried, "\(action): \(acknowledged) answered, \(tried) sent, \(done) in the trace (seed \(seed))")
        }
        var seen: [String: Int] = [:]
        for line in raw where !line.contains("\"kind\": \"process.") && !line.contains("\"kind\": \"daemon.")
            && !line.contains("\"kind\": \"connection.") {
            seen[line, default: 0] += 1
        }
        let twice = seen.filter { $0.value > 1 }.map(\.key)
        #expect(twice.isEmpty, "lines written twice (seed \(seed)): \(twice.sorted().prefix(5))")

        // Time runs on across restarts.
        let times = lines.compactMap { $0["t"] as? Double }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "engine time ran backwards (seed \(seed))")

        // Every kill has its reason, in the trace and in the audit table.
        let killLines = raw.filter { $0.contains("\"kind\": \"terminate\"") || $0.contains("\"kind\": \"process.kill\"") }
        #expect(killLines.allSatisfy { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["reason"].map { "\($0)".isEmpty == false } ?? false
        })
        let audited = Set(try SQLiteStore(path: directory + "/state/state.sqlite").auditRecords().map(\.line))
        let unaudited = killLines.filter { !audited.contains($0) }
        #expect(unaudited.isEmpty, "kills without an audit row (seed \(seed)): \(unaudited.prefix(3))")
        #expect(count(["kind": "process.kill", "reason": "daemonRestart"]) > 0)

        // A request submitted and not since started, cancelled or rejected is still pending.
        let taskLines = lines.filter { ($0["kind"] as? String).map { $0.hasPrefix("task.") && $0 != "task.defer" && $0 != "task.register" } ?? false }
        if let last = taskLines.last, last["kind"] as? String == "task.submit" {
            #expect(status.contains("pending appRefresh com.example.refresh"), "a submitted request was lost (seed \(seed)): \(status)")
        }

        // No process of any daemon is left running.
        let pids = lines.filter { $0["kind"] as? String == "process.spawn" }.compactMap { ($0["pid"] as? Int).map { pid_t($0) } }
        #expect(!pids.isEmpty)
        let running = pids.filter { CrashRestartTests.alive($0) }
        #expect(running.isEmpty, "processes left running: \(running)")
        print("random crashes\(extra.isEmpty ? "" : " (" + extra.joined(separator: " ") + ")"): \(kills) kills, "
              + "\(sent.values.reduce(0, +)) inputs sent, \(answered.values.reduce(0, +)) answered, "
              + "\(pids.count) processes, \(raw.count) trace lines, seed \(seed)")
        try state(SQLiteStore(path: directory + "/state/state.sqlite"))
    }
}
