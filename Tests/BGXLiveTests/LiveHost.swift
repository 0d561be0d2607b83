import BGXLive
import Foundation
import Glibc
import Testing

/// A real `bgx-daemon` for one test: its own state directory and socket, a
/// follower on its trace, and the test app installed as bundles. Waits are
/// for trace lines the daemon reports, each with a generous deadline that
/// fails the test.
final class LiveHost {
    /// SwiftPM puts the executables beside the test bundle.
    static func executable(_ name: String) -> String? {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    let directory: String
    let socket: String
    let process = Process()
    let stderr = Pipe()
    var follower: ControlClient!
    /// Every trace line seen so far, parsed.
    var lines: [[String: Any]] = []
    var daemonLog = ""

    struct Unavailable: Error {
        var reason: String
        /// The daemon that would not start, if one ran.
        var pid: pid_t = 0
    }

    /// `viaBGX`: started as `bgx daemon …`, which hands over to bgx-daemon.
    /// `directory`: an earlier host's, to restart on its state (after `crash()`).
    init(freezer: String = "auto", timeScale: Int = 1, viaBGX: Bool = false, extra: [String] = [],
         directory reused: String? = nil, environment: [String: String] = [:]) throws {
        let daemon = try #require(Self.executable(viaBGX ? "bgx" : "bgx-daemon"), "bgx-daemon was not built beside the tests")
        directory = reused ?? FileManager.default.temporaryDirectory.appendingPathComponent("bgx-live-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/daemon.sock"
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["daemon", "--state", directory + "/state", "--socket", socket, "--freezer", freezer,
                             "--time-scale", "\(timeScale)"] + extra
        // The machine's own platform (a battery, a bus) stays out of tests that do not ask for it.
        if !extra.contains("--platform") { process.arguments! += ["--platform", "none"] }
        process.standardError = stderr
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The daemon says which freezer it uses once its socket listens.
        var first = readDaemonLine()
        // A restarted daemon first says what it restored (and from where).
        while first.hasPrefix("bgx daemon: "), !first.hasPrefix("bgx daemon: freezer") {
            daemonLog += first + "\n"
            first = readDaemonLine()
        }
        guard first.hasPrefix("bgx daemon: freezer") || first.hasPrefix("warning:") else {
            process.waitUntilExit()
            // A daemon that would not start on an earlier host's state leaves that state alone.
            keepState = reused != nil
            throw Unavailable(reason: first, pid: process.processIdentifier)
        }
        daemonLog += first + "\n"
        follower = try ControlClient(socket: socket)
        try follower.connection.send(LiveMessage(type: "ctl", seq: 0, name: "trace", args: ["0": "--follow"]))
    }

    func readDaemonLine() -> String {
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(stderr.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 10 { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        daemonLog += String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
    /// The daemon killed outright (SIGKILL), its state left for a restart.
    func crash() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        keepState = true
        stop()
    }
    /// Set once crashed: the next host on this directory owns it.
    var keepState = false
    deinit { stop(); if !keepState { try? FileManager.default.removeItem(atPath: directory) } }

    /// Waits for the first trace line (from `after` on) that has every field given; returns it.
    @discardableResult
    func wait(for fields: [String: String], after index: Int = 0, seconds: Double = 20, quietly: Bool = false,
              sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let deadline = MonotonicClock.now() + Int64(seconds * 1e9)
        var i = index
        while true {
            while i < lines.count {
                if Self.matches(lines[i], fields) { return lines[i] }
                i += 1
            }
            guard let m = try follower.connection.receive(until: deadline) else {
                let trace = lines.map { "\($0)" }.joined(separator: "\n")
                if quietly { throw Unavailable(reason: "no \(fields)") }
                Issue.record("no trace line with \(fields) within \(seconds)s; trace:\n\(trace)", sourceLocation: sourceLocation)
                throw Unavailable(reason: "timed out")
            }
            if m.type == "trace", let text = m.text,
               let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
                lines.append(object)
            }
        }
    }

    /// Waits until no app has a callback awaiting its ack (as `status` says): the apps have
    /// nothing left to do. A trace line such as `active` comes before the app answers its callback.
    func waitUntilEveryCallbackIsAnswered(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = MonotonicClock.now() + 20_000_000_000
        while try ctl("status").contains("awaiting ack") {
            try #require(MonotonicClock.now() < deadline, "callbacks never acknowledged", sourceLocation: sourceLocation)
            sched_yield()
        }
    }

    static func matches(_ line: [String: Any], _ fields: [String: String]) -> Bool {
        fields.allSatisfy { key, value in line[key].map { "\($0)" } == value }
    }

    func index(of line: [String: Any]) -> Int {
        lines.firstIndex { NSDictionary(dictionary: $0).isEqual(to: line) } ?? 0
    }

    /// A verb's reply; failing replies throw.
    @discardableResult
    func ctl(_ verb: String, _ args: String...) throws -> String {
        let client = try ControlClient(socket: socket)
        let reply = try client.send(verb, args)
        guard reply.ok == true else { throw LiveError(reply.text ?? "refused") }
        return reply.text ?? ""
    }

    func ctlRefusal(_ verb: String, _ args: String...) throws -> String? {
        let reply = try ControlClient(socket: socket).send(verb, args)
        return reply.ok == true ? nil : reply.text
    }

    /// A bundle of the test app that behaves as `behaviour` (see Tests/LiveTestApp);
    /// returns the app's container (see `container`).
    @discardableResult
    func install(_ bundle: String, behaviour: String = "normal", modes: [String] = [],
                 permitted: [String] = [], executable: String = "bgx-live-testapp") throws -> String {
        let app = try #require(Self.executable(executable), "\(executable) was not built beside the tests")
        let dir = directory + "/" + bundle + ".app"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/TestApp", withDestinationPath: app)
        try behaviour.write(toFile: dir + "/behaviour", atomically: true, encoding: .utf8)
        let modeList = modes.map { "<string>\($0)</string>" }.joined()
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>\(bundle)</string>
            <key>CFBundleExecutable</key><string>TestApp</string>
            <key>UIBackgroundModes</key><array>\(modeList)</array>
            <key>BGTaskSchedulerPermittedIdentifiers</key><array>\(permitted.map { "<string>\($0)</string>" }.joined())</array>
            </dict></plist>
            """.write(toFile: dir + "/Info.plist", atomically: true, encoding: .utf8)
        try ctl("install", dir)
        return container(bundle)
    }

    /// The app's data container, where it writes (what `install` returns): the
    /// bundle is read-only to an app that runs as its own user.
    func container(_ bundle: String) -> String {
        directory + "/state-containers/" + BundleName.escaped(bundle)
    }

    /// The count the app's counting thread last wrote.
    func counter(_ container: String) -> Int {
        Int((try? String(contentsOfFile: container + "/counter", encoding: .utf8)) ?? "") ?? -1
    }

    func auditLog() -> String { (try? String(contentsOfFile: directory + "/state/audit.log", encoding: .utf8)) ?? "" }
}

/// What the kernel here offers, checked the way the daemon checks it.
enum KernelSupport {
    static let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
    static var cgroup2: Bool { mounts.split(separator: "\n").contains { $0.split(separator: " ").dropFirst(2).first == "cgroup2" } && getuid() == 0 }
    static var cgroup1Freezer: Bool {
        mounts.split(separator: "\n").contains { line in
            let f = line.split(separator: " ")
            return f.count > 3 && f[2] == "cgroup" && f[3].split(separator: ",").contains("freezer")
        } && getuid() == 0
    }
}
