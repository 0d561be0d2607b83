import BGXLive
import Foundation
import GRDB

/// The live host's state in one SQLite file (`STATE/state.sqlite`), through
/// GRDB, in WAL mode. The `journal` table is the truth: every input to the
/// engine, in order, written (committed) before the engine acts on it. The
/// other tables are for people and for the host's own housekeeping: apps
/// installed, the processes the daemon started, its cgroup subtrees, and the
/// audit log of kills. Schema changes are GRDB migrations, so an older file
/// is brought up to date when a newer daemon opens it.
public final class SQLiteStore: DurableStore, @unchecked Sendable {
    public let path: String
    let pool: DatabasePool
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    /// `fsync`: every commit waits for the disk (SQLite `synchronous = FULL`),
    /// so it survives a power cut; without it (`NORMAL`) a commit survives the
    /// daemon's crash (the kernel holds it) and a power cut may lose the last
    /// ones but never corrupts the file.
    public init(path: String, fsync: Bool = false) throws {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(fsync ? "FULL" : "NORMAL")")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: journal, session, apps, processes, cgroup roots, audit") { db in
            try db.create(table: "session") { t in
                t.column("id", .integer).primaryKey()
                t.column("body", .text).notNull()
            }
            try db.create(table: "journal") { t in
                t.column("seq", .integer).primaryKey()
                t.column("steps", .integer).notNull()
                t.column("clock", .integer).notNull()
                t.column("trace_offset", .integer).notNull()
                t.column("monotonic", .integer).notNull()
                t.column("wall", .double).notNull()
                t.column("kind", .text).notNull()
                t.column("app", .text)
                t.column("input", .text).notNull()
            }
            try db.create(table: "apps") { t in
                t.column("bundle", .text).primaryKey()
                t.column("path", .text).notNull()
                t.column("installed_at", .double).notNull()
            }
            try db.create(table: "processes") { t in
                t.column("app", .text).notNull()
                t.column("pid", .integer).notNull()
                t.column("start_time", .integer).notNull()
                t.column("cgroup", .text)
                t.primaryKey(["app", "pid"])
            }
            try db.create(table: "cgroup_roots") { t in
                t.column("path", .text).primaryKey()
            }
            try db.create(table: "audit") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("t", .double).notNull()
                t.column("app", .text)
                t.column("reason", .text).notNull()
                t.column("code", .text)
                t.column("line", .text).notNull()
            }
        }
        migrator.registerMigration("v2: snapshots") { db in
            // The state just before journal entry `seq`: a restart replays from there.
            try db.create(table: "snapshots") { t in
                t.column("seq", .integer).primaryKey()
                t.column("format", .integer).notNull()
                t.column("bytes", .integer).notNull()
                t.column("body", .blob).notNull()
            }
        }
        migrator.registerMigration("v3: a checksum per journal entry") { db in
            // NULL for entries written before: read as they are.
            try db.alter(table: "journal") { t in t.add(column: "checksum", .integer) }
        }
        return migrator
    }

    /// The migrations applied to this file, oldest first.
    public func appliedMigrations() throws -> [String] {
        try pool.read { try Self.migrator.appliedMigrations($0) }
    }

    public func journalMode() throws -> String {
        try pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" }
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    // MARK: DurableStore

    public func session() throws -> DaemonSession? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM session WHERE id = 1")
                .map { try Self.decoder.decode(DaemonSession.self, from: Data($0.utf8)) }
        }
    }

    public func saveSession(_ session: DaemonSession) throws {
        let body = try Self.json(session)
        try pool.write { try $0.execute(sql: "INSERT OR REPLACE INTO session (id, body) VALUES (1, ?)", arguments: [body]) }
    }

    @discardableResult
    public func append(_ entry: JournalEntry) throws -> Int64 {
        let input = try Self.json(entry.input)
        return try pool.write { db in try Self.insert(entry, input: input, into: db) }
    }

    @discardableResult
    public func append(_ entry: JournalEntry, snapshot: StoredSnapshot, compact: Bool) throws -> Int64 {
        let input = try Self.json(entry.input)
        return try pool.write { db in
            let seq = try Self.insert(entry, input: input, into: db)
            try db.execute(sql: "INSERT INTO snapshots (seq, format, bytes, body) VALUES (?, ?, ?, ?)",
                           arguments: [seq, snapshot.format, snapshot.body.count, snapshot.body])
            if compact {
                try db.execute(sql: "DELETE FROM journal WHERE seq < ?", arguments: [seq])
                try db.execute(sql: "DELETE FROM snapshots WHERE seq < ?", arguments: [seq])
            }
            return seq
        }
    }

    static func insert(_ entry: JournalEntry, input: String, into db: Database) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO journal (steps, clock, trace_offset, monotonic, wall, kind, app, input, checksum)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [entry.steps, entry.clock, entry.traceOffset, entry.monotonic, entry.wall,
                             entry.input.kind, entry.input.app, input,
                             JournalChecksum.of(steps: entry.steps, clock: entry.clock, traceOffset: entry.traceOffset,
                                                monotonic: entry.monotonic, wall: entry.wall, input: input)])
        return db.lastInsertedRowID
    }

    public func latestSnapshot() throws -> StoredSnapshot? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT seq, format, body FROM snapshots ORDER BY seq DESC LIMIT 1").map { row in
                StoredSnapshot(seq: row["seq"], format: row["format"], body: row["body"])
            }
        }
    }

    public func firstEntry() throws -> JournalEntry? {
        try pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM journal ORDER BY seq LIMIT 1").map(Self.entry) }
    }

    public func entries() throws -> [JournalEntry] {
        try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM journal ORDER BY seq").map(Self.entry) }
    }

    public func entries(after seq: Int64, limit: Int) throws -> [JournalEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM journal WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [seq, limit])
                .map(Self.entry)
        }
    }

    public func lastEntry() throws -> JournalEntry? {
        try pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM journal ORDER BY seq DESC LIMIT 1").map(Self.entry) }
    }

    /// An entry as read back, its checksum checked: a mismatch, or a row that
    /// cannot be read, is `JournalCorruption` — never replayed.
    static func entry(_ row: Row) throws -> JournalEntry {
        let seq: Int64 = row["seq"]
        guard let steps = row["steps"] as Int64?, let clock = row["clock"] as Int64?, let offset = row["trace_offset"] as Int64?,
              let monotonic = row["monotonic"] as Int64?, let wall = row["wall"] as Double?,
              let input = row["input"] as String? else {
            throw JournalCorruption(seq: seq, why: "cannot be read (a column is missing or of the wrong type)")
        }
        if let stored = row["checksum"] as Int64? {
            guard stored == JournalChecksum.of(steps: steps, clock: clock, traceOffset: offset, monotonic: monotonic,
                                               wall: wall, input: input) else {
                throw JournalCorruption(seq: seq, why: "does not match its checksum (it was changed or damaged on disk)")
            }
        }
        do {
            return JournalEntry(seq: seq, steps: steps, clock: clock, traceOffset: offset, monotonic: monotonic, wall: wall,
                                input: try decoder.decode(JournalInput.self, from: Data(input.utf8)))
        } catch {
            throw JournalCorruption(seq: seq, why: "holds an input that cannot be read (\(error))")
        }
    }

    public func discardEntries(from seq: Int64) throws -> Int {
        try pool.write { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE seq >= ?", arguments: [seq]) ?? 0
            try db.execute(sql: "DELETE FROM journal WHERE seq >= ?", arguments: [seq])
            try db.execute(sql: "DELETE FROM snapshots WHERE seq > ?", arguments: [seq])
            return count
        }
    }

    public func lastSequence() throws -> Int64? {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM journal") }
    }

    public func recordInstall(app: String, path: String, t: Double) throws {
        try pool.write {
            try $0.execute(sql: "INSERT OR REPLACE INTO apps (bundle, path, installed_at) VALUES (?, ?, ?)",
                           arguments: [app, path, t])
        }
    }

    public func recordProcess(_ process: ProcessRecord) throws {
        try pool.write {
            try $0.execute(sql: "INSERT OR REPLACE INTO processes (app, pid, start_time, cgroup) VALUES (?, ?, ?, ?)",
                           arguments: [process.app, process.pid, Int64(bitPattern: process.startTime), process.cgroup])
        }
    }

    public func forgetProcess(app: String, pid: Int32) throws {
        try pool.write { try $0.execute(sql: "DELETE FROM processes WHERE app = ? AND pid = ?", arguments: [app, pid]) }
    }

    public func processes() throws -> [ProcessRecord] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM processes ORDER BY app").map { row in
                ProcessRecord(app: row["app"], pid: row["pid"], startTime: UInt64(bitPattern: row["start_time"]),
                              cgroup: row["cgroup"])
            }
        }
    }

    public func recordCgroupRoot(_ path: String) throws {
        try pool.write { try $0.execute(sql: "INSERT OR IGNORE INTO cgroup_roots (path) VALUES (?)", arguments: [path]) }
    }

    public func forgetCgroupRoot(_ path: String) throws {
        try pool.write { try $0.execute(sql: "DELETE FROM cgroup_roots WHERE path = ?", arguments: [path]) }
    }

    public func cgroupRoots() throws -> [String] {
        try pool.read { try String.fetchAll($0, sql: "SELECT path FROM cgroup_roots ORDER BY path") }
    }

    public func audit(_ record: AuditRecord) throws {
        try pool.write {
            try $0.execute(sql: "INSERT INTO audit (t, app, reason, code, line) VALUES (?, ?, ?, ?, ?)",
                           arguments: [record.t, record.app, record.reason, record.code, record.line])
        }
    }

    public func auditRecords() throws -> [AuditRecord] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM audit ORDER BY id").map { row in
                AuditRecord(t: row["t"], app: row["app"], reason: row["reason"], code: row["code"], line: row["line"])
            }
        }
    }
}
