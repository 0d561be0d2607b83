@testable import BGXLive
import Foundation
import Glibc
import Testing

/// What an app, or another local user, must not be able to do to the live
/// host or to other apps (docs/live.md, "Who may do what"): each test is an
/// attack that once worked, tried against a real daemon.
@Suite("the live host keeps apps and users in their place", .serialized)
struct LiveIsolationTests {
    static var root: Bool { geteuid() == 0 }

    /// The uid in `/proc/PID/status` (real, effective, saved, filesystem).
    static func uids(of pid: pid_t) -> [uid_t] {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Uid:") } ?? ""
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().compactMap { uid_t($0) }
    }

    static func mode(_ path: String) -> (uid: uid_t, mode: mode_t)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (st.st_uid, st.st_mode & 0o7777)
    }

    @Test("bundle identifiers: iOS's characters and length only; names on disk escaped one to one")
    func bundleIdentifiers() throws {
        for bad in [".", "..", "a/b", "a_b", "com.example.new\nline", String(repeating: "a", count: 300), "", "../etc", "café"] {
            #expect(BundleName.problem(with: bad) != nil, "\(bad.debugDescription) was accepted")
        }
        for good in ["com.example.feed", "A-1.b", String(repeating: "a", count: 155)] {
            #expect(BundleName.problem(with: good) == nil, "\(good) was refused")
        }
        // Escaping is one to one and never yields a special or hidden name, or a path.
        let names = [".", "..", "a/b", "a_b", "a_2Fb", ".hidden", "x\ny", "com.example.feed"]
        let escaped = names.map(BundleName.escaped)
        #expect(Set(escaped).count == names.count, "\(escaped)")
        for name in escaped {
            #expect(!name.contains("/") && !name.hasPrefix(".") && !name.contains("\n"), "\(name)")
        }
        #expect(BundleName.escaped("com.example.feed") == "com.example.feed")

        let host = try LiveHost()
        for bad in [".", "..", "a/b", "x\ny", String(repeating: "b", count: 300)] {
            let dir = host.directory + "/bad-\(UUID().uuidString.prefix(6)).app"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: dir + "/TestApp", withDestinationPath: try #require(LiveHost.executable("bgx-live-testapp")))
            let escapedID = bad.replacingOccurrences(of: "\n", with: "&#10;")
            try """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                <key>CFBundleIdentifier</key><string>\(escapedID)</string>
                <key>CFBundleExecutable</key><string>TestApp</string>
                </dict></plist>
                """.write(toFile: dir + "/Info.plist", atomically: true, encoding: .utf8)
            let refusal = try host.ctlRefusal("install", dir)
            #expect(refusal?.contains("CFBundleIdentifier is not a bundle identifier") == true, "\(bad.debugDescription): \(refusal ?? "installed")")
        }
        #expect(!host.lines.contains { $0["kind"] as? String == "app.install" })
    }

    @Test("apps run as their own users, never root; each writes only its own container; the state is the daemon's alone",
          .enabled(if: LiveIsolationTests.root, "needs root to give apps users"))
    func appsRunAsTheirOwnUsers() throws {
        let host = try LiveHost()
        let first = try host.install("com.example.first")
        let second = try host.install("com.example.second")
        var pids: [pid_t] = []
        for app in ["com.example.first", "com.example.second"] {
            try host.ctl("launch", app)
            let spawn = try host.wait(for: ["kind": "process.spawn", "app": app])
            try host.wait(for: ["kind": "state", "to": "active", "app": app])
            pids.append(try #require((spawn["pid"] as? Int).map { pid_t($0) }))
        }
        let firstUIDs = Self.uids(of: pids[0]), secondUIDs = Self.uids(of: pids[1])
        #expect(firstUIDs == Array(repeating: AppUsers.defaultBase + 0, count: 4), "\(firstUIDs)")
        #expect(secondUIDs == Array(repeating: AppUsers.defaultBase + 1, count: 4), "\(secondUIDs)")
        #expect(Self.mode(first)?.uid == AppUsers.defaultBase && Self.mode(first)?.mode == 0o700)
        #expect(Self.mode(second)?.uid == AppUsers.defaultBase + 1 && Self.mode(second)?.mode == 0o700)
        #expect(host.counter(first) > 0 && host.counter(second) > 0, "the apps could not write their containers")
        let state = host.directory + "/state"
        #expect(Self.mode(state)?.mode == 0o700)
        for file in ["trace.jsonl", "audit.log", "logs", "logs/com.example.first.log"] {
            let m = Self.mode(state + "/" + file)
            #expect(m?.uid == 0 && m?.mode == (file == "logs" ? 0o700 : 0o600), "\(file): \(String(describing: m))")
        }
    }

    @Test("an app that says hello as ctl is refused, whatever it says: the role is the kernel's word on the peer",
          .enabled(if: LiveIsolationTests.root, "needs root to give apps users"))
    func appCannotSpeakAsCtl() throws {
        let host = try LiveHost()
        let container = try host.install("com.example.impostor", behaviour: "ctl")
        try host.install("com.example.victim")
        try host.ctl("launch", "com.example.victim")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.victim"])
        try host.ctl("launch", "com.example.impostor")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.impostor"])
        let result = try String(contentsOfFile: container + "/ctl-result", encoding: .utf8)
        #expect(result == "false ctl refused: uid \(AppUsers.defaultBase) is not on the daemon's ctl allow list", "\(result)")
        try host.wait(for: ["kind": "connection.close", "reason": "ctl refused: uid \(AppUsers.defaultBase) is not on the daemon's ctl allow list"])
        // The victim is only sent to the background by the impostor's launch, as any app would be: never force-quit.
        #expect(!host.lines.contains { LiveHost.matches($0, ["kind": "terminate", "app": "com.example.victim"]) })
        #expect(!host.auditLog().contains("com.example.victim"))
    }

    @Test("an app's child cannot move itself out of its cgroup nor write the daemon's or another app's",
          .enabled(if: KernelSupport.cgroup2 && LiveIsolationTests.root, "no cgroup v2 mount, or not root"))
    func appCannotWriteCgroups() throws {
        let host = try LiveHost(freezer: "cgroup2")
        try host.install("com.example.neighbour")
        try host.ctl("launch", "com.example.neighbour")
        let neighbourSpawn = try host.wait(for: ["kind": "process.spawn", "app": "com.example.neighbour"])
        let neighbour = try #require(neighbourSpawn["cgroup"] as? String)
        let neighbourPID = neighbourSpawn["pid"] as? Int
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.neighbour"])
        let subtree = (neighbour as NSString).deletingLastPathComponent
        let fields: [[Substring]] = KernelSupport.mounts.split(separator: "\n").map { $0.split(separator: " ") }
        let line = try #require(fields.first { $0.count > 2 && $0[2] == "cgroup2" })
        let mount = String(line[1])
        let targets: [String] = [mount + "/cgroup.procs", subtree + "/cgroup.procs", neighbour + "/cgroup.procs",
                                 neighbour + "/cgroup.freeze", neighbour + "/cgroup.kill", subtree + "/cgroup.freeze"]
        let container = try host.install("com.example.escaper", behaviour: "escape")
        try targets.joined(separator: "\n").write(toFile: host.directory + "/com.example.escaper.app/escape-targets",
                                                  atomically: true, encoding: .utf8)
        try host.ctl("launch", "com.example.escaper")
        let spawn = try host.wait(for: ["kind": "process.spawn", "app": "com.example.escaper"])
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.escaper"])
        let result = try String(contentsOfFile: container + "/escape-result", encoding: .utf8)
        #expect(result == targets.map { $0 + " refused" }.joined(separator: "\n"), "\(result)")
        // Both apps are where the daemon put them, and neither was killed.
        let escaper = try #require(spawn["cgroup"] as? String)
        #expect(try String(contentsOfFile: escaper + "/cgroup.procs", encoding: .utf8).contains("\(try #require(spawn["pid"] as? Int))"))
        #expect(try String(contentsOfFile: neighbour + "/cgroup.procs", encoding: .utf8).contains("\(try #require(neighbourPID))"))
        #expect(!host.lines.contains { $0["kind"] as? String == "terminate" })
    }

    @Test("another user's flood of silent connections takes its own share of the slots, not bgx ctl's nor an app's",
          .enabled(if: LiveIsolationTests.root, "needs root to run the flood as another user"))
    func strangersCannotTakeTheSlots() throws {
        let host = try LiveHost()
        try host.install("com.example.feed")
        let flooders = try (0..<6).map { _ in try HostileClientTests.Flooder("silent", host.socket, 16, user: 65534) }
        defer { flooders.forEach { $0.end() } }
        try host.wait(for: ["kind": "connection.refuse", "reason": "over 8 connections from uid 65534 that have not said hello"])
        #expect(try host.ctl("status").contains("freezer:"))
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active", "app": "com.example.feed"])
        let refused = host.lines.filter { $0["kind"] as? String == "connection.refuse" }.count
        #expect(refused >= 6 * 16 - 8, "\(refused) refused")
    }

    /// A daemon started on `prepare`'s state directory must refuse, saying `why`.
    func refusesToStart(_ why: String, sourceLocation: SourceLocation = #_sourceLocation,
                        _ prepare: (_ state: String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-live-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        try prepare(directory + "/state")
        do {
            _ = try LiveHost(directory: directory)
            Issue.record("the daemon started", sourceLocation: sourceLocation)
        } catch let error as LiveHost.Unavailable {
            #expect(error.reason.hasPrefix("error: ") && error.reason.contains(why), "\(error.reason)", sourceLocation: sourceLocation)
        }
    }

    @Test("a state directory another user could steer is refused: a symbolic link in it or in its logs, another owner, group or world write")
    func stateDirectoryRefusals() throws {
        let victim = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-victim-\(UUID().uuidString.prefix(8))").path
        try "untouched\n".write(toFile: victim, atomically: true, encoding: .utf8)
        defer { unlink(victim) }
        try refusesToStart("holds a symbolic link, audit.log") { state in
            symlink(victim, state + "/audit.log")
        }
        try refusesToStart("holds a symbolic link, com.example.feed.log") { state in
            mkdir(state + "/logs", 0o700)
            symlink(victim, state + "/logs/com.example.feed.log")
        }
        try refusesToStart("is writable by its group or by anyone (mode 777)") { state in chmod(state, 0o777) }
        try refusesToStart("is a symbolic link") { state in
            try FileManager.default.removeItem(atPath: state)
            symlink(victim, state)
        }
        if Self.root {
            try refusesToStart("is owned by uid 65534") { state in chown(state, 65534, 65534) }
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
    }
}
