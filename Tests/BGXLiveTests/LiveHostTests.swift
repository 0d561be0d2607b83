import BGXLive
import Foundation
import Glibc
import Testing

/// The live host with real processes: the test app runs under a real
/// `bgx-daemon`, frozen and killed for real; the tests read the daemon's
/// trace and the kernel's own state (cgroup files, /proc).
@Suite("the live host", .serialized)
struct LiveHostTests {
    /// Goes home with the app in front, and checks it is frozen — by the
    /// kernel's word — and not running: its counting thread stands still.
    /// A background push thaws it, it answers, and it is frozen again.
    func frozenAtHomeThawedForPush(freezer: String) throws {
        let host = try LiveHost(freezer: freezer)
        let dir = try host.install("com.example.feed", modes: ["remote-notification"])
        try host.ctl("launch", "com.example.feed")
        let spawn = try host.wait(for: ["kind": "process.spawn", "app": "com.example.feed"])
        try host.wait(for: ["kind": "state", "to": "active"])
        let pid = try #require((spawn["pid"] as? Int).map { pid_t($0) })
        try host.ctl("home")
        let freeze = try host.wait(for: ["kind": "process.freeze", "mechanism": freezer])
        try host.wait(for: ["kind": "state", "to": "suspended"])
        let cgroup = spawn["cgroup"] as? String ?? "none"
        switch freezer {
        case "cgroup2":
            let events = try String(contentsOfFile: cgroup + "/cgroup.events", encoding: .utf8)
            #expect(events.contains("frozen 1"), "cgroup.events: \(events)")
        case "cgroup1":
            let state = try String(contentsOfFile: cgroup + "/freezer.state", encoding: .utf8)
            #expect(state.trimmingCharacters(in: .whitespacesAndNewlines) == "FROZEN")
        default:
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            #expect(stat.split(separator: ")").last?.split(separator: " ").first == "T", "stat: \(stat)")
        }
        // Not synchronisation: time passing, during which a running process would count.
        let frozenCount = host.counter(dir)
        #expect(frozenCount > 0)
        usleep(300_000)
        #expect(host.counter(dir) == frozenCount, "the count moved while frozen")

        try host.ctl("push", "com.example.feed", "background")
        let thaw = try host.wait(for: ["kind": "process.thaw", "app": "com.example.feed"], after: host.index(of: freeze))
        try host.wait(for: ["kind": "push.complete"], after: host.index(of: thaw))
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: thaw))
        #expect(host.counter(dir) > frozenCount, "the app ran while thawed")
        let status = try host.ctl("status")
        #expect(status.contains("com.example.feed: suspended, pid \(pid), frozen"), "\(status)")
        #expect(status.contains("throttle: 1 of"), "the push controller's dump: \(status)")
        host.stop()
        #expect(kill(pid, 0) != 0, "the app outlived the daemon")
    }

    @Test("cgroup v2: frozen by cgroup.freeze at home, thawed to receive a push",
          .enabled(if: KernelSupport.cgroup2, "no cgroup v2 mount, or not root"))
    func cgroup2Freezer() throws { try frozenAtHomeThawedForPush(freezer: "cgroup2") }

    @Test("cgroup v1: frozen by freezer.state at home, thawed to receive a push",
          .enabled(if: KernelSupport.cgroup1Freezer, "no cgroup v1 freezer mounted, or not root"))
    func cgroup1Freezer() throws { try frozenAtHomeThawedForPush(freezer: "cgroup1") }

    @Test("SIGSTOP: stopped at home, continued to receive a push")
    func sigstopFreezer() throws { try frozenAtHomeThawedForPush(freezer: "sigstop") }

    @Test("a background task that overruns its 30 s budget is killed at the budget, with reason and code")
    func budgetOverrun() throws {
        let host = try LiveHost(timeScale: 10)
        try host.install("com.example.upload", behaviour: "overrun")
        try host.ctl("launch", "com.example.upload")
        let spawn = try host.wait(for: ["kind": "process.spawn"])
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let background = try host.wait(for: ["kind": "state", "to": "background"])
        try host.wait(for: ["kind": "bgtask.begin", "name": "upload"])
        try host.wait(for: ["kind": "bgtask.expire"])
        let end = try host.wait(for: ["kind": "terminate", "reason": "backgroundTaskTimeout"])
        let elapsed = try #require(end["t"] as? Double) - #require(background["t"] as? Double)
        // 30 s of engine time; real scheduling jitter is multiplied by the time scale.
        // Times are seconds as doubles: 30 s apart may subtract to 29.999999999999996.
        #expect(elapsed >= 30 - 1e-6 && elapsed < 33, "killed after \(elapsed) s")
        try host.wait(for: ["kind": "process.kill", "reason": "backgroundTaskTimeout", "signal": "SIGKILL"])
        try host.wait(for: ["kind": "process.exit", "how": "signal 9"])
        let pid = try #require((spawn["pid"] as? Int).map { pid_t($0) })
        #expect(kill(pid, 0) != 0, "the process is still there")
        if let cgroup = spawn["cgroup"] as? String, cgroup != "none" {
            #expect(!FileManager.default.fileExists(atPath: cgroup), "the app's cgroup was left behind")
        }
        #expect(host.auditLog().contains("\"reason\": \"backgroundTaskTimeout\"") && host.auditLog().contains("code=0x2182bad2"))
    }

    @Test("an expiration handler that ends its task keeps the app alive: it is suspended, not killed")
    func politeTask() throws {
        let host = try LiveHost(timeScale: 10)
        try host.install("com.example.polite", behaviour: "polite")
        try host.ctl("launch", "com.example.polite")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "bgtask.expire"])
        let end = try host.wait(for: ["kind": "bgtask.end"])
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: end))
        #expect(!host.lines.contains { $0["kind"] as? String == "terminate" })
    }

    @Test("a launch never acknowledged is a watchdog kill (0x8badf00d)")
    func launchWatchdog() throws {
        let host = try LiveHost(timeScale: 10)
        try host.install("com.example.hang", behaviour: "hang-launch")
        try host.ctl("launch", "com.example.hang")
        let launch = try host.wait(for: ["kind": "launch"])
        let end = try host.wait(for: ["kind": "terminate", "reason": "watchdog"])
        let elapsed = try #require(end["t"] as? Double) - #require(launch["t"] as? Double)
        #expect(elapsed >= 20 - 1e-6 && elapsed < 23, "killed after \(elapsed) s")
        try host.wait(for: ["kind": "process.exit", "how": "signal 9"])
        #expect(host.auditLog().contains("code=0x8badf00d"))
    }

    @Test("a process that never connects is killed by the launch watchdog")
    func neverConnects() throws {
        let host = try LiveHost(timeScale: 10)
        try host.install("com.example.silent", behaviour: "no-connect")
        try host.ctl("launch", "com.example.silent")
        try host.wait(for: ["kind": "terminate", "reason": "watchdog"])
        try host.wait(for: ["kind": "process.exit", "how": "signal 9"])
    }

    @Test("a process that exits by itself is an exit in the trace")
    func exitsByItself() throws {
        let host = try LiveHost()
        try host.install("com.example.quitter", behaviour: "exit-in-background")
        try host.ctl("launch", "com.example.quitter")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "process.exit", "how": "status 3"])
        try host.wait(for: ["kind": "terminate", "reason": "exit"])
        #expect(!host.lines.contains { $0["kind"] as? String == "process.kill" })
    }

    @Test("force quit kills the process with reason userForceQuit")
    func forceQuit() throws {
        let host = try LiveHost()
        try host.install("com.example.swiped")
        try host.ctl("launch", "com.example.swiped")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("forcequit", "com.example.swiped")
        try host.wait(for: ["kind": "process.kill", "reason": "userForceQuit"])
        try host.wait(for: ["kind": "process.exit", "how": "signal 9"])
        #expect(try host.ctl("status").contains("com.example.swiped: notRunning, force-quit"))
    }

    @Test("bad frames close that connection only, and are logged")
    func badFrames() throws {
        let host = try LiveHost()
        for bytes in [Array("GET / HTTP/1.1\r\n\r\n".utf8), [0x42, 0x47, 0x58, 1, 0x7f, 0xff, 0xff, 0xff],
                      Frame.encode(Array("{\"seq\": 1}".utf8))] {
            let raw = try LiveConnection(socket: host.socket)
            try raw.sendRaw(bytes)
            #expect(try raw.receive(until: MonotonicClock.now() + 10_000_000_000) == nil, "the connection stayed open")
        }
        try host.wait(for: ["kind": "connection.close", "reason": "frame of 2147483647 bytes is over the 65536-byte bound"])
        #expect(try host.ctl("status").contains("freezer:"))
        host.stop()
        #expect(host.daemonLog.contains("not a bgx frame (bad magic)"))
    }

    @Test("a process the daemon did not launch cannot pose as an app")
    func strangerRefused() throws {
        let host = try LiveHost()
        try host.install("com.example.feed")
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active"])
        #expect(throws: LiveClient.Refused.self) {
            _ = try LiveClient(socket: host.socket, bundleIdentifier: "com.example.feed")
        }
        try host.wait(for: ["kind": "connection.close"])
    }

    @Test("install checks the bundle; verbs not built yet are refused by name")
    func refusals() throws {
        let host = try LiveHost()
        let empty = host.directory + "/empty.app"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(try host.ctlRefusal("install", empty)?.contains("no Info.plist") == true)
        #expect(try host.ctlRefusal("launch", "com.example.nobody") == "no app com.example.nobody is installed")
        #expect(try host.ctlRefusal("teleport") == "not yet supported: ctl teleport")
        #expect(try host.ctlRefusal("device", "volume=3")?.hasPrefix("not yet supported: device volume") == true)
        try host.ctl("device", "charging=true")
        try host.wait(for: ["kind": "device", "property": "charging", "value": "true"])
    }

    @Test("an Info.plist Foundation would crash on (a binary plist holding a set, found by fuzzing) is refused at install; the daemon carries on")
    func binaryPlistWithASet() throws {
        let host = try LiveHost()
        let bundle = host.directory + "/set.app"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        // bplist00: a top-level set holding one string.
        var bytes = Array("bplist00".utf8) + [0xC1, 0x01, 0x51, 0x78] + [0x08, 0x0A]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 12]
        try Data(bytes).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        let refusal = try host.ctlRefusal("install", bundle)
        #expect(refusal?.contains("not an Info.plist: a binary property list holding a set (object 0)") == true, "\(refusal ?? "accepted")")
        #expect(try host.ctl("status").contains("freezer:"), "the daemon answers after the refusal")
    }

    @Test("bgx daemon and bgx ctl hand over to bgx-daemon")
    func throughBGX() throws {
        let host = try LiveHost(freezer: "sigstop", viaBGX: true)
        let bgx = try #require(LiveHost.executable("bgx"))
        let ctl = Process()
        ctl.executableURL = URL(fileURLWithPath: bgx)
        ctl.arguments = ["ctl", "--socket", host.socket, "status"]
        let out = Pipe()
        ctl.standardOutput = out
        try ctl.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ctl.waitUntilExit()
        #expect(ctl.terminationStatus == 0)
        #expect(text.hasPrefix("freezer: sigstop"), "bgx ctl status said: \(text)")
    }

    @Test("an app in Python (Clients/python) speaks the protocol: a background task begun and ended, then frozen",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "no python3"))
    func pythonClient() throws {
        let host = try LiveHost()
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Clients/python").path
        let copy = host.directory + "/python"
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        try host.ctl("install", copy + "/Example.app")
        try host.ctl("launch", "com.example.python-sync")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let begin = try host.wait(for: ["kind": "bgtask.begin", "name": "sync"])
        try host.wait(for: ["kind": "bgtask.end"], after: host.index(of: begin))
        try host.wait(for: ["kind": "process.freeze", "app": "com.example.python-sync"])
        #expect(FileManager.default.fileExists(atPath: host.container("com.example.python-sync") + "/synced"))
    }

    @Test("an app acts only on its own work: a second app cannot end the first's background task")
    func peerIsolation() throws {
        let host = try LiveHost()
        try host.install("com.example.owner", behaviour: "overrun")
        let thief = try host.install("com.example.thief", behaviour: "steal")
        try host.ctl("launch", "com.example.owner")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.owner"])
        try host.ctl("home")
        try host.wait(for: ["kind": "bgtask.begin", "id": "1", "app": "com.example.owner"])
        try host.ctl("launch", "com.example.thief")
        // The thief's call is answered before its didFinishLaunching returns.
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.thief"])
        let result = try String(contentsOfFile: thief + "/steal-result", encoding: .utf8)
        #expect(result == "false no background task 1 of this app")
        #expect(!host.lines.contains { $0["kind"] as? String == "bgtask.end" })
        #expect(try host.ctl("status").contains("com.example.owner: background, pid"))
    }

    @Test("jetsam from the real resident size: an app holding 200 MB on a 256 MB device is killed for memory")
    func jetsamUnderMemory() throws {
        let host = try LiveHost(extra: ["--memory", "256MB"])
        try host.install("com.example.small")
        try host.install("com.example.hog", behaviour: "hog")
        try host.ctl("launch", "com.example.small")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.small"])
        try host.ctl("launch", "com.example.hog")
        let kill = try host.wait(for: ["kind": "terminate", "reason": "memoryPressure", "app": "com.example.hog"])
        // Sampled as it grows: killed once past the per-process limit (55 % of 256 MB), not necessarily at 200 MB.
        #expect((kill["footprintMB"] as? Double).map { $0 > 140 } ?? false, "\(kill)")
        #expect(kill["cause"] as? String == "perProcessLimit")
        try host.wait(for: ["kind": "process.exit", "how": "signal 9", "app": "com.example.hog"])
        #expect(!host.lines.contains { $0["kind"] as? String == "terminate" && $0["app"] as? String == "com.example.small" })
    }

    @Test("cgroup v2 catches forks: an app's child is frozen with it and killed with it",
          .enabled(if: KernelSupport.cgroup2, "no cgroup v2 mount, or not root"))
    func childrenShareTheApp() throws {
        let host = try LiveHost(freezer: "cgroup2")
        let dir = try host.install("com.example.forker", behaviour: "forker")
        try host.ctl("launch", "com.example.forker")
        let spawn = try host.wait(for: ["kind": "process.spawn"])
        try host.wait(for: ["kind": "state", "to": "active"])
        let child = try #require(pid_t(String(contentsOfFile: dir + "/child", encoding: .utf8)))
        let cgroup = try #require(spawn["cgroup"] as? String)
        let procs = try String(contentsOfFile: cgroup + "/cgroup.procs", encoding: .utf8)
        #expect(procs.split(separator: "\n").contains(Substring("\(child)")), "cgroup.procs: \(procs)")
        try host.ctl("home")
        try host.wait(for: ["kind": "process.freeze"])
        #expect(try String(contentsOfFile: cgroup + "/cgroup.events", encoding: .utf8).contains("frozen 1"))
        try host.ctl("forcequit", "com.example.forker")
        try host.wait(for: ["kind": "process.kill", "mechanism": "cgroup.kill"])
        try host.wait(for: ["kind": "process.exit"])
        // The child was reparented (not the daemon's to reap); cgroup.kill ended it all the same.
        let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
        #expect(stat == nil || stat!.split(separator: ")").last?.split(separator: " ").first == "Z", "child: \(stat ?? "")")
        #expect(!FileManager.default.fileExists(atPath: cgroup))
    }

    @Test("SIGSTOP stops the whole app: a child in its process group stops counting while frozen, and dies with it")
    func sigstopStopsChildren() throws {
        let host = try LiveHost(freezer: "sigstop")
        let dir = try host.install("com.example.family", behaviour: "counting-forker")
        try host.ctl("launch", "com.example.family")
        try host.wait(for: ["kind": "state", "to": "active"])
        let child = try #require(pid_t(String(contentsOfFile: dir + "/child", encoding: .utf8)))
        // The child has started counting (its first write).
        try Self.waitUntilCounting(dir)
        try host.ctl("home")
        try host.wait(for: ["kind": "process.freeze", "mechanism": "sigstop"])
        try Self.expectStoppedAndNotCounting(child, dir)
        try host.ctl("forcequit", "com.example.family")
        try host.wait(for: ["kind": "process.kill", "mechanism": "pidfd SIGKILL to its process group and descendants"])
        try host.wait(for: ["kind": "process.exit"])
        Self.expectEnded(child)
    }

    @Test("SIGSTOP finds the app's descendants: a child that left its group and session (setsid) stops counting while frozen, and dies with it")
    func sigstopStopsSetsidChildren() throws {
        let host = try LiveHost(freezer: "sigstop")
        let dir = try host.install("com.example.escaper", behaviour: "setsid-forker")
        try host.ctl("launch", "com.example.escaper")
        let spawn = try host.wait(for: ["kind": "process.spawn"])
        try host.wait(for: ["kind": "state", "to": "active"])
        let child = try #require(pid_t(String(contentsOfFile: dir + "/child", encoding: .utf8)))
        try Self.waitUntilCounting(dir)
        // It counts only after its setsid: it is in a group (and session) of its own, out of the app's.
        let fields = try String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8).split(separator: ")").last?
            .split(separator: " ") ?? []
        #expect(fields.count > 3 && pid_t(fields[2]) == child && pid_t(fields[3]) == child, "child stat: \(fields)")
        #expect("\(spawn["pid"] ?? "")" != "\(child)")
        try host.ctl("home")
        try host.wait(for: ["kind": "process.freeze", "mechanism": "sigstop"])
        try Self.expectStoppedAndNotCounting(child, dir)
        try host.ctl("forcequit", "com.example.escaper")
        try host.wait(for: ["kind": "process.kill", "mechanism": "pidfd SIGKILL to its process group and descendants"])
        try host.wait(for: ["kind": "process.exit"])
        Self.expectEnded(child)
    }

    // An app's child that counts into `DIR/child-counter` (the test app's forker behaviours).

    static func waitUntilCounting(_ dir: String) throws {
        let deadline = MonotonicClock.now() + 20_000_000_000
        while (Int((try? String(contentsOfFile: dir + "/child-counter", encoding: .utf8)) ?? "") ?? 0) == 0 {
            try #require(MonotonicClock.now() < deadline, "the child never counted")
            sched_yield()
        }
    }

    static func expectStoppedAndNotCounting(_ child: pid_t, _ dir: String) throws {
        let stat = try String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
        #expect(stat.split(separator: ")").last?.split(separator: " ").first == "T", "child: \(stat)")
        let frozen = try String(contentsOfFile: dir + "/child-counter", encoding: .utf8)
        // Not synchronisation: time passing, during which a running child would count.
        usleep(300_000)
        #expect(try String(contentsOfFile: dir + "/child-counter", encoding: .utf8) == frozen, "the child counted while frozen")
    }

    /// Reparented, not the daemon's to reap: gone, or a zombie for its new parent. The group's
    /// SIGKILL is sent with the leader's, but the child's exit is its own: wait for it, bounded.
    static func expectEnded(_ child: pid_t) {
        func ended() -> (Bool, String) {
            let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
            return (stat == nil || stat!.split(separator: ")").last?.split(separator: " ").first == "Z", stat ?? "")
        }
        let exitDeadline = MonotonicClock.now() + 10_000_000_000
        while !ended().0 && MonotonicClock.now() < exitDeadline { sched_yield() }
        #expect(ended().0, "child: \(ended().1)")
    }

    /// The daemon's main thread's voluntary context switches: each wake-up from ppoll is one.
    static func wakeUps(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? ""))
    }

    @Test("an idle daemon sleeps until the engine's next event: with a frozen app and nothing due soon, it does not wake")
    func neverPolls() throws {
        let host = try LiveHost()
        try host.install("com.example.feed")
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "process.freeze"])
        let pid = host.process.processIdentifier
        // Settle: a last request on a connection that stays open, then the daemon back asleep in ppoll.
        let ctl = try ControlClient(socket: host.socket)
        // The engine may still hold a stale watchdog (the 10 s scene-update one), dropped when it comes due:
        // the daemon wakes for that, and for nothing before it.
        let status = try ctl.send("status", []).text ?? ""
        let next = status.split(separator: "\n").first { $0.hasPrefix("next wake: ") } ?? ""
        #expect(next == "next wake: none (nothing is due)" || next.hasPrefix("next wake: in 9") || next.hasPrefix("next wake: in 10"),
                "\(status)")
        let deadline = MonotonicClock.now() + 10_000_000_000
        while (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/wchan", encoding: .utf8))?.contains("poll") != true {
            try #require(MonotonicClock.now() < deadline, "the daemon did not go back to ppoll")
            sched_yield()
        }
        let before = try Self.wakeUps(pid)
        // Not synchronisation: a stretch of idleness, during which a polling daemon would wake.
        usleep(500_000)
        #expect(try Self.wakeUps(pid) == before, "the daemon woke while nothing was due")
    }

    @Test("BGTaskScheduler live: a submitted refresh is explained as pending, and simulate-launch runs it in the real process")
    func refreshTask() throws {
        let host = try LiveHost()
        try host.install("com.example.news", behaviour: "refresh", modes: ["fetch"], permitted: ["com.example.refresh"])
        // Installed, not launched: no process, so no process fields (left out, not null).
        let installed = try #require(JSONSerialization.jsonObject(with: Data(host.ctl("status", "--json").utf8)) as? [String: Any])
        #expect(installed["now"] is NSNumber && installed["memoryPressure"] is String && installed["freezer"] is String)
        let notRunning = try #require((installed["apps"] as? [[String: Any]])?.first { $0["app"] as? String == "com.example.news" })
        #expect(notRunning["state"] as? String == "notRunning")
        #expect(notRunning["pid"] == nil && notRunning["frozen"] == nil && notRunning["cpuNanoseconds"] == nil, "\(notRunning)")
        #expect(notRunning["controllers"] is [[String: Any]])
        try host.ctl("launch", "com.example.news")
        try host.wait(for: ["kind": "task.register", "identifier": "com.example.refresh"])
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "task.submit", "identifier": "com.example.refresh"])
        try host.wait(for: ["kind": "process.freeze"])
        let status = try host.ctl("status")
        #expect(status.contains("pending appRefresh com.example.refresh"))
        // Each controller's dump, in words: the scheduler holds the request, the launch policy its launch.
        #expect(status.contains("  scheduler:\n") && status.contains("  launch policy:\n") && status.contains("  push:\n"),
                "\(status)")
        // And as data: every dump's concern, lines and state.
        let json = try #require(JSONSerialization.jsonObject(with: Data(host.ctl("status", "--json").utf8)) as? [String: Any])
        let app = try #require((json["apps"] as? [[String: Any]])?.first { $0["app"] as? String == "com.example.news" })
        #expect(app["frozen"] as? Bool == true)
        #expect((app["pid"] as? Int ?? 0) > 0 && app["connected"] as? Bool == true && app["residentBytes"] is NSNumber)
        let controllers = try #require(app["controllers"] as? [[String: Any]])
        #expect(Set(controllers.compactMap { $0["concern"] as? String }).isSuperset(of: ["scheduler", "push", "launch policy"]))
        let scheduler = try #require(controllers.first { $0["concern"] as? String == "scheduler" })
        #expect(scheduler["state"] is [String: Any] && !(scheduler["lines"] as? [String] ?? []).isEmpty, "\(scheduler)")
        #expect("\(scheduler["state"] ?? "")".contains("com.example.refresh"), "the request is in the dump's data")
        let explanation = try host.ctl("explain", "com.example.news", "com.example.refresh")
        #expect(explanation.contains("pending"), "\(explanation)")
        try host.ctl("simulate-launch", "com.example.news", "com.example.refresh")
        let start = try host.wait(for: ["kind": "task.start", "identifier": "com.example.refresh"])
        try host.wait(for: ["kind": "process.thaw"], after: host.index(of: start))
        try host.wait(for: ["kind": "task.complete", "identifier": "com.example.refresh", "success": "1"])
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: start))
    }
}
