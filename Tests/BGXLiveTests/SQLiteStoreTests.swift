import BGXLive
import BGXLiveStore
import Foundation
import Testing

/// The live host's state file: SQLite in WAL mode, its schema made by GRDB
/// migrations, and everything in it still there when the file is opened again.
@Suite("the live host's state file")
struct SQLiteStoreTests {
    static func temporaryFile() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-store-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/state.sqlite"
    }

    static func entry(_ steps: Int64, _ input: JournalInput) -> JournalEntry {
        JournalEntry(steps: steps, clock: steps * 1_000, traceOffset: steps * 10, monotonic: 5, wall: 1.5, input: input)
    }

    @Test("the file is SQLite in WAL mode, its schema made by the migrations, applied once")
    func walAndMigrations() throws {
        let path = Self.temporaryFile()
        let store = try SQLiteStore(path: path)
        #expect(try store.journalMode() == "wal")
        let applied = try store.appliedMigrations()
        #expect(applied.count == 1 && applied[0].hasPrefix("v1"))
        // Opening it again migrates nothing more and finds the same schema.
        #expect(try SQLiteStore(path: path).appliedMigrations() == applied)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("the journal comes back in order, every kind of input intact, from a reopened file")
    func journalRoundTrip() throws {
        let path = Self.temporaryFile()
        let inputs: [JournalInput] = [
            .install(path: "/apps/Feed.app", infoPlist: Data("<plist/>".utf8)),
            .control(verb: "launch", args: ["com.example.feed"]),
            .call(app: "com.example.feed", name: "submitTask", args: ["identifier": "refresh", "earliestBegin": "60"]),
            .returned(app: "com.example.feed", queue: "main"),
            .resident(app: "com.example.feed", bytes: -4096),
            .exited(app: "com.example.feed", detail: "the process exited by itself (status 3)"),
        ]
        do {
            let store = try SQLiteStore(path: path)
            for (i, input) in inputs.enumerated() { #expect(try store.append(Self.entry(Int64(i), input)) == Int64(i + 1)) }
        }
        let entries = try SQLiteStore(path: path).entries()
        #expect(entries.map(\.input) == inputs)
        #expect(entries.map(\.seq) == [1, 2, 3, 4, 5, 6])
        #expect(entries[2] == { var e = Self.entry(2, inputs[2]); e.seq = 3; return e }())
    }

    @Test("a restart reads the journal a page at a time: the pages, joined, are the whole journal in order")
    func journalInPages() throws {
        let store = try SQLiteStore(path: Self.temporaryFile())
        #expect(try store.lastEntry() == nil)
        #expect(try store.entries(after: .min, limit: 4).isEmpty)
        for i in 0..<11 { try store.append(Self.entry(Int64(i), .control(verb: "launch", args: ["app\(i)"]))) }
        var pages: [[JournalEntry]] = [], after: Int64 = .min
        while case let page = try store.entries(after: after, limit: 4), let end = page.last {
            pages.append(page)
            after = end.seq
        }
        #expect(pages.map(\.count) == [4, 4, 3])
        #expect(pages.flatMap { $0 } == (try store.entries()))
        #expect(try store.lastEntry() == (try store.entries()).last)
    }

    @Test("the session, the processes, the cgroup roots and the audit survive reopening; forgotten ones stay forgotten")
    func tables() throws {
        let path = Self.temporaryFile()
        let session = DaemonSession(seed: 7, wallClockOffset: 3_600_000_000_000, startEpochSeconds: 1_800_000_000, profile: "modern",
                                    memory: 2 << 30, timeScale: 10, monotonicStart: 123, bootID: "boot")
        do {
            let store = try SQLiteStore(path: path)
            #expect(try store.session() == nil)
            try store.saveSession(session)
            try store.recordProcess(ProcessRecord(app: "a", pid: 10, startTime: 99, cgroup: "/sys/fs/cgroup/x/a"))
            try store.recordProcess(ProcessRecord(app: "b", pid: 11, startTime: 100, cgroup: nil))
            try store.forgetProcess(app: "a", pid: 10)
            try store.recordCgroupRoot("/sys/fs/cgroup/bgx-daemon-1")
            try store.recordCgroupRoot("/sys/fs/cgroup/bgx-daemon-2")
            try store.forgetCgroupRoot("/sys/fs/cgroup/bgx-daemon-1")
            try store.audit(AuditRecord(t: 30, app: "a", reason: "backgroundTaskTimeout", code: "0x2182bad2", line: "{}"))
            try store.recordInstall(app: "a", path: "/apps/A.app", t: 1)
        }
        let store = try SQLiteStore(path: path)
        #expect(try store.session() == session)
        #expect(try store.processes() == [ProcessRecord(app: "b", pid: 11, startTime: 100, cgroup: nil)])
        #expect(try store.cgroupRoots() == ["/sys/fs/cgroup/bgx-daemon-2"])
        #expect(try store.auditRecords() == [AuditRecord(t: 30, app: "a", reason: "backgroundTaskTimeout", code: "0x2182bad2", line: "{}")])
    }
}
