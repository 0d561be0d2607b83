import ArgumentParser
import BGXCore
import BGXLive
import Foundation
import Glibc
import Histogram

/// `bgx-daemon bench`: a real daemon (a child process) with real apps (this
/// executable again, as a bench app), measured from outside: the protocol's
/// round trip, a frozen app brought back until its callback runs in it,
/// the kernel's freeze, and the daemon's resident size and idle CPU.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure the live host on this machine.")
    @Option(help: "Apps to launch and suspend (the daemon's size and idle CPU are measured with them).") var apps = 20
    @Option(help: "Round trips of a call (app → daemon → app).") var calls = 2000
    @Option(help: "Times a frozen app is brought back to the front.") var resumes = 200
    @Option(help: "How to suspend: auto, cgroup2, cgroup1 or sigstop.") var freezer = "auto"
    @Option(help: "Seconds of idleness over which the daemon's CPU is measured.") var idle = 5

    func run() throws {
        guard apps >= 1, calls >= 1, resumes >= 1, idle >= 1 else { throw fail("every count must be at least 1") }
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/daemon.sock"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: me)
        daemon.arguments = ["daemon", "--state", dir + "/state", "--socket", socket, "--freezer", freezer, "--platform", "none"]
        var env = ProcessInfo.processInfo.environment
        env["BGX_BENCH_APP"] = "1"
        env["BGX_BENCH_CALLS"] = "\(calls)"
        daemon.environment = env
        let err = Pipe()
        daemon.standardError = err
        try daemon.run()
        defer { daemon.terminate(); daemon.waitUntilExit() }
        let first = readLine(err.fileHandleForReading.fileDescriptor)
        guard first.hasPrefix("bgx daemon:") || first.hasPrefix("warning:") else { throw fail(first) }
        let follower = try ControlClient(socket: socket)
        try follower.connection.send(LiveMessage(type: "ctl", seq: 0, name: "trace", args: ["0": "--follow"]))
        var seen: [[String: Any]] = []
        func wait(_ fields: [String: String]) throws -> [String: Any] {
            let deadline = MonotonicClock.now() + 60_000_000_000
            while let m = try follower.connection.receive(until: deadline) {
                guard let text = m.text, let line = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                else { continue }
                seen.append(line)
                if fields.allSatisfy({ k, v in line[k].map { "\($0)" } == v }) { return line }
            }
            throw fail("no trace line \(fields) within 60 s")
        }
        let ctl = try ControlClient(socket: socket)
        func send(_ verb: String, _ args: String...) throws {
            let reply = try ctl.send(verb, args)
            guard reply.ok == true else { throw fail(reply.text ?? "refused") }
        }
        for i in 0..<apps {
            let bundle = dir + "/app\(i).app"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: bundle + "/bench", withDestinationPath: me)
            try """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                <key>CFBundleIdentifier</key><string>com.example.bench\(i)</string>
                <key>CFBundleExecutable</key><string>bench</string>
                </dict></plist>
                """.write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
            try send("install", bundle)
            try send("launch", "com.example.bench\(i)")
            _ = try wait(["kind": "state", "to": "active", "app": "com.example.bench\(i)"])
            try send("home")
            _ = try wait(["kind": "process.freeze", "app": "com.example.bench\(i)"])
        }
        // App 0 made its calls in didFinishLaunching, before it returned.
        let roundTrips = try String(contentsOfFile: dir + "/state-containers/com.example.bench0/roundtrip.ns", encoding: .utf8)
            .split(separator: "\n").compactMap { Int64($0) }

        var delivered: [Int64] = []
        // Background pushes are throttled by the rules; bringing the app back is not.
        for _ in 0..<resumes {
            let sent = MonotonicClock.now()
            try send("launch", "com.example.bench0")
            _ = try wait(["kind": "state", "to": "active", "app": "com.example.bench0"])
            try send("home")
            _ = try wait(["kind": "process.freeze", "app": "com.example.bench0"])
            let lines = try String(contentsOfFile: dir + "/state-containers/com.example.bench0/delivered.ns", encoding: .utf8).split(separator: "\n")
            if let at = lines.last.flatMap({ Int64($0) }) { delivered.append(at - sent) }
        }
        let freezes = seen.filter { $0["kind"] as? String == "process.freeze" }.compactMap { ($0["us"] as? Int).map { Int64($0) * 1000 } }
        let mechanism = seen.first { $0["kind"] as? String == "daemon.start" }?["freezer"] as? String ?? freezer

        let pid = daemon.processIdentifier
        let cpu0 = cpuTicks(pid), wall0 = MonotonicClock.now()
        sleep(UInt32(idle))
        let cpu1 = cpuTicks(pid), wall1 = MonotonicClock.now()
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let idleCPU = Double(cpu1 - cpu0) / ticks / (Double(wall1 - wall0) / 1e9) * 100

        print("bgx-daemon bench — freezer \(mechanism), \(apps) apps")
        print(summary("call round trip (app → daemon → app)", roundTrips))
        print(summary("launch of a frozen app → willEnterForeground runs in it (thaw and deliver)", delivered))
        print(summary("freeze → frozen (kernel confirmed)", freezes))
        let resident = residentKB(pid)
        print("daemon with \(apps) suspended apps: resident \(resident.total / 1024) MB "
              + "(\(resident.anonymous / 1024) MB its own memory, \(resident.file / 1024) MB code and libraries mapped from files), "
              + String(format: "idle CPU %.2f %% over %d s", idleCPU, idle))
    }

    func readLine(_ fd: Int32) -> String {
        var line = [UInt8](), byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 10 { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    /// Percentiles of the samples (nanoseconds), in microseconds, from an
    /// HdrHistogram (three significant digits, 1 µs to 60 s).
    func summary(_ what: String, _ samples: [Int64]) -> String {
        guard !samples.isEmpty else { return "\(what): no samples" }
        var h = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for ns in samples { _ = h.record(UInt64(max(1, min(ns / 1000, 60_000_000)))) }
        func p(_ q: Double) -> String { "\(h.valueAtPercentile(q)) µs" }
        return "\(what), \(samples.count) samples: p50 \(p(50)), p99 \(p(99)), p99.9 \(p(99.9)), max \(h.max) µs"
    }

    func cpuTicks(_ pid: Int32) -> Int64 {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based, counting pid and name).
        return (Int64(fields[11]) ?? 0) + (Int64(fields[12]) ?? 0)
    }

    /// The daemon's resident size, and what it is made of: the memory it
    /// allocated (`RssAnon`), and pages of its executable and of the shared
    /// libraries it maps (`RssFile`: Foundation, the Swift runtime, SQLite …),
    /// which grow with the code it runs, not with its apps.
    func residentKB(_ pid: Int32) -> (total: Int64, anonymous: Int64, file: Int64) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let lines = status.split(separator: "\n")
        func field(_ name: String) -> Int64 {
            let line = lines.first { $0.hasPrefix(name + ":") } ?? ""
            return Int64(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (field("VmRSS"), field("RssAnon"), field("RssFile"))
    }
}

/// The bench's app: this executable, started by the daemon with `BGX_BENCH_APP`.
enum BenchApp {
    static func run() throws -> Never {
        let env = ProcessInfo.processInfo.environment
        // Where it writes: its data container (the bundle is read-only to an app with its own user).
        let bundle = env["BGX_CONTAINER"] ?? env["BGX_BUNDLE_PATH"] ?? "."
        let calls = Int(env["BGX_BENCH_CALLS"] ?? "") ?? 1000
        let client = try LiveClient()
        let delivered = open(bundle + "/delivered.ns", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        client.onCallback = { callback in
            switch callback.name {
            case CallbackName.didFinishLaunching.rawValue where client.bundleIdentifier.hasSuffix("bench0"):
                var lines = ""
                for _ in 0..<calls {
                    let start = MonotonicClock.now()
                    _ = try? client.call("applicationState")
                    lines += "\(MonotonicClock.now() - start)\n"
                }
                try? lines.write(toFile: bundle + "/roundtrip.ns", atomically: true, encoding: .utf8)
            case CallbackName.willEnterForeground.rawValue:
                let text = Array("\(MonotonicClock.now())\n".utf8)
                _ = write(delivered, text, text.count)
            default: break
            }
        }
        try client.run()
        exit(0)
    }
}
