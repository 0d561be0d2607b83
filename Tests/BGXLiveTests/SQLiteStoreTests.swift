import BGXLive
@testable import BGXLiveStore
import Foundation
import GRDB
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
        #expect(applied.count == 3 && applied[0].hasPrefix("v1") && applied[1].hasPrefix("v2") && applied[2].hasPrefix("v3"))
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

    @Test("a file made before snapshots is brought up to date: its journal kept, the snapshots table added")
    func olderFileMigrates() throws {
        let path = Self.temporaryFile()
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteStore.migrator.migrate(pool, upTo: "v1: journal, session, apps, processes, cgroup roots, audit")
            try pool.write { db in
                try db.execute(sql: """
                    INSERT INTO journal (steps, clock, trace_offset, monotonic, wall, kind, app, input)
                    VALUES (0, 0, 0, 5, 1.5, 'control', NULL, '{"control":{"verb":"home","args":[]}}')
                    """)
            }
        }
        let store = try SQLiteStore(path: path)
        #expect(try store.appliedMigrations().count == 3)
        // Written before checksums: read as it is.
        #expect(try store.entries().map(\.input) == [.control(verb: "home", args: [])])
        #expect(try store.latestSnapshot() == nil)
    }

    @Test("a snapshot is stored with its entry; compacting deletes the entries and snapshots before it, and numbering goes on")
    func snapshotsAndCompaction() throws {
        let path = Self.temporaryFile()
        let store = try SQLiteStore(path: path)
        for i in 0..<5 { try store.append(Self.entry(Int64(i), .control(verb: "launch", args: ["app\(i)"]))) }
        // Kept: the journal stays whole.
        let kept = try store.append(Self.entry(5, .control(verb: "home", args: [])),
                                    snapshot: StoredSnapshot(format: 1, body: Data("first".utf8)), compact: false)
        #expect(kept == 6)
        #expect(try store.firstEntry()?.seq == 1)
        #expect(try store.latestSnapshot() == StoredSnapshot(seq: 6, format: 1, body: Data("first".utf8)))
        try store.append(Self.entry(6, .control(verb: "lock", args: [])))
        // Compacted: the entries and the snapshot before the new one are gone.
        let compacted = try store.append(Self.entry(7, .control(verb: "unlock", args: [])),
                                         snapshot: StoredSnapshot(format: 1, body: Data("second".utf8)), compact: true)
        #expect(compacted == 8)
        #expect(try store.entries().map(\.seq) == [8])
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM snapshots") } == 1)
        // Numbering goes on from there, in this store and in the file reopened.
        #expect(try store.append(Self.entry(8, .control(verb: "home", args: []))) == 9)
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.append(Self.entry(9, .control(verb: "lock", args: []))) == 10)
        #expect(try reopened.firstEntry()?.seq == 8)
        #expect(try reopened.latestSnapshot() == StoredSnapshot(seq: 8, format: 1, body: Data("second".utf8)))
        #expect(try reopened.entries(after: 7, limit: 10).map(\.seq) == [8, 9, 10])
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
