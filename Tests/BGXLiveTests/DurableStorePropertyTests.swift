@testable import BGXLive
import BGXLiveStore
import Foundation
import Glibc
import PropertyBased
import Testing

/// The durable store keeps what it was given and gives back exactly that: any
/// sequence of inputs, journaled as the daemon takes them and replayed by a
/// restarted daemon, leaves the engine as applying them did; and a write torn
/// by a crash loses that write and nothing before it.
@Suite("the live host's durable store, any inputs", .serialized)
struct DurableStorePropertyTests {
    static func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-store-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// An input from a gene: strings with quotes, escapes and other scripts, the extremes of numbers.
    static func input(_ gene: UInt64) -> JournalInput {
        let words = ["", "a", "é\"\\\n", "日本語", "com.example.x", String(repeating: "z", count: 300), "\u{0}\u{1f}"]
        let word = words[Int(gene >> 8 % UInt64(words.count))]
        let number = [0, 1, -1, Int64.max, Int64.min, Int64(truncatingIfNeeded: gene)][Int(gene >> 16 % 6)]
        switch gene % 7 {
        case 0: return .install(path: "/" + word, infoPlist: Data(word.utf8) + Data([UInt8(truncatingIfNeeded: gene)]))
        case 1: return .control(verb: word, args: [word, "\(number)"])
        case 2: return .call(app: word, name: "submitTask", args: [word: word, "n": "\(number)"])
        case 3: return .returned(app: word, queue: gene & 1 == 0 ? "main" : "background")
        case 4: return .resident(app: word, bytes: number)
        case 5: return .busy(app: word, nanoseconds: number)
        default: return .exited(app: word, detail: word)
        }
    }

    @Test("any journal entries: read back after the file is closed and opened again, the same, in order")
    func entriesRoundTrip() async throws {
        await propertyCheck(count: 60, input: Gen.uint64(in: 0...UInt64.max).array(of: 0...12)) { genes in
            let dir = try! Self.directory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            var written: [JournalEntry] = []
            do {
                let store = try! SQLiteStore(path: dir + "/state.sqlite")
                for (i, gene) in genes.enumerated() {
                    var entry = JournalEntry(steps: Int64(i) * 3, clock: Int64(truncatingIfNeeded: gene >> 3), traceOffset: Int64(i),
                                             monotonic: Int64(truncatingIfNeeded: gene), wall: Double(gene % 1_000_000) / 7,
                                             input: Self.input(gene))
                    entry.seq = try! store.append(entry)
                    written.append(entry)
                }
            }
            let reopened = try! SQLiteStore(path: dir + "/state.sqlite")
            #expect(try! reopened.entries() == written)
            #expect(written.map(\.seq) == Array(1...Int64(max(1, written.count))).prefix(written.count).map { $0 })
        }
    }

    /// A daemon in this process (SIGSTOP as its freezer: no cgroup, and no app is launched).
    static func daemon(_ dir: String) throws -> LiveDaemon {
        var options = DaemonOptions(stateDirectory: dir + "/state", socketPath: dir + "/daemon.sock")
        options.freezer = .sigstop
        options.store = try SQLiteStore(path: dir + "/state.sqlite")
        return try LiveDaemon(options: options)
    }

    /// Lets a daemon go without a signal: its socket, its lock on the state directory.
    static func release(_ daemon: LiveDaemon) {
        daemon.shutdown()
        close(daemon.durable.lockFD)
    }

    /// Two installed apps with no background mode (so nothing here launches a process).
    static func installApps(_ daemon: LiveDaemon, in dir: String) throws {
        for name in ["com.example.one", "com.example.two"] {
            let bundle = dir + "/" + name + ".app"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: bundle + "/App", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
            try """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                <key>CFBundleIdentifier</key><string>\(name)</string>
                <key>CFBundleExecutable</key><string>App</string>
                </dict></plist>
                """.write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
            daemon.control(LiveMessage(type: "ctl", seq: 0, name: "install", args: ["0": bundle]), on: Connection(fd: -1))
        }
    }

    /// One input, from a gene, through the path the live daemon takes it by.
    static func feed(_ gene: UInt64, to daemon: LiveDaemon) {
        let app = gene & 1 == 0 ? "com.example.one" : "com.example.two"
        func ctl(_ verb: String, _ args: String...) {
            var named: [String: String] = [:]
            for (i, a) in args.enumerated() { named["\(i)"] = a }
            daemon.control(LiveMessage(type: "ctl", seq: 0, name: verb, args: named), on: Connection(fd: -1))
        }
        func direct(_ input: JournalInput) {
            daemon.pump()
            daemon.journal(input)
            daemon.apply(input)
            daemon.pump()
        }
        switch gene >> 1 % 11 {
        case 0: ctl("lock")
        case 1: ctl("unlock")
        case 2: ctl("home")
        case 3: ctl("forcequit", app)
        case 4: ctl("push", app, "alert")
        case 5: ctl("push", app, "background")
        case 6: ctl("device", ["charging=true", "charging=false", "network=wifi", "network=none", "lowpower=true"][Int(gene >> 8 % 5)])
        case 7: direct(.resident(app: app, bytes: Int64(gene >> 12 % 50_000_000)))
        case 8: direct(.busy(app: app, nanoseconds: Int64(gene >> 12 % 5_000_000_000)))
        case 9: direct(.exited(app: app, detail: "property test"))
        default: ctl("push", app, "voip")
        }
    }

    @Test("any inputs, journaled then replayed by a restarted daemon: the engine's state and trace as applying them left them")
    func replayEqualsDirect() async throws {
        await propertyCheck(count: 12, input: Gen.uint64(in: 0...UInt64.max).array(of: 1...25)) { genes in
            let dir = try! Self.directory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let first = try! Self.daemon(dir)
            try! Self.installApps(first, in: dir)
            for gene in genes { Self.feed(gene, to: first) }
            first.pump()
            let state = first.status(), steps = first.durable.steps, now = first.engine.now
            Self.release(first)
            let trace = try! String(contentsOfFile: dir + "/state/trace.jsonl", encoding: .utf8)

            let second = try! Self.daemon(dir)
            defer { Self.release(second) }
            // To the same moment: the steps the first daemon ran after its last input, then its clock.
            #expect(second.durable.steps <= steps)
            while second.durable.steps < steps { second.replayStep() }
            if now > second.engine.now { second.engine.advanceClock(to: now) }
            #expect(second.status() == state)
            // Nothing written twice: the restarted daemon's trace is the first's and its own start line.
            let after = try! String(contentsOfFile: dir + "/state/trace.jsonl", encoding: .utf8)
            #expect(after.hasPrefix(trace))
            let added = after.dropFirst(trace.count).split(separator: "\n")
            #expect(added.allSatisfy { $0.contains("\"kind\": \"daemon.start\"") }, "\(added)")
        }
    }

    @Test("a write torn by a crash (the WAL cut anywhere in it, or junk after the cut): the file opens, every entry committed before it is kept, the torn one is lost")
    func tornWriteLosesOnlyIt() async throws {
        await propertyCheck(count: 40, input: Gen.int(in: 1...30), Gen.uint64(in: 0...UInt64.max)) { count, gene in
            let dir = try! Self.directory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let path = dir + "/state.sqlite"
            let store = try! SQLiteStore(path: path)
            var sizes: [Int] = []
            var written: [JournalEntry] = []
            func walSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
            sizes.append(walSize())
            for i in 0..<count {
                var entry = JournalEntry(steps: Int64(i), clock: Int64(i) * 1_000, traceOffset: 0, monotonic: 0, wall: 0,
                                         input: Self.input(gene &+ UInt64(i)))
                entry.seq = try! store.append(entry)
                written.append(entry)
                sizes.append(walSize())
            }
            // The power cut, as the disk holds it: the database and its WAL as they are, the WAL
            // cut part-way through the frames of commit k+1 (and maybe junk where the rest was going).
            let k = Int(gene % UInt64(count))
            let cut = sizes[k] + Int(gene >> 8 % UInt64(max(1, sizes[k + 1] - sizes[k])))
            let copy = dir + "/cut.sqlite"
            try! FileManager.default.copyItem(atPath: path, toPath: copy)
            var wal = try! Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
            wal = wal.prefix(cut)
            if gene & 1 == 1 { wal += Data((0..<Int(gene >> 40 % 5000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(gene % 251)) }) }
            try! wal.write(to: URL(fileURLWithPath: copy + "-wal"))
            let reopened = try! SQLiteStore(path: copy)
            #expect(try! reopened.entries() == Array(written.prefix(k)), "cut at \(cut) of \(sizes), k \(k)")
        }
    }
}
