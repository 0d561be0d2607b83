import Foundation

/// What the engine was created with, kept so a restarted daemon makes the same engine.
public struct DaemonSession: Codable, Sendable, Equatable {
    public var seed: UInt64
    public var wallClockOffset: Int64
    public var startEpochSeconds: Int64
    public var profile: String
    public var memory: Int64
    public var timeScale: Int64
    /// The monotonic clock at engine time 0, and the boot it belongs to
    /// (`/proc/sys/kernel/random/boot_id`): the monotonic clock means nothing across a reboot.
    public var monotonicStart: Int64
    public var bootID: String

    public init(seed: UInt64, wallClockOffset: Int64, startEpochSeconds: Int64, profile: String, memory: Int64,
                timeScale: Int64, monotonicStart: Int64, bootID: String) {
        self.seed = seed
        self.wallClockOffset = wallClockOffset
        self.startEpochSeconds = startEpochSeconds
        self.profile = profile
        self.memory = memory
        self.timeScale = timeScale
        self.monotonicStart = monotonicStart
        self.bootID = bootID
    }
}

/// A process the daemon started, as recorded: enough to find it again after
/// the daemon died (the pid and its start time in clock ticks, so a reused pid is not mistaken for it).
public struct ProcessRecord: Codable, Sendable, Equatable {
    public var app: String
    public var pid: Int32
    public var startTime: UInt64
    public var cgroup: String?

    public init(app: String, pid: Int32, startTime: UInt64, cgroup: String?) {
        self.app = app
        self.pid = pid
        self.startTime = startTime
        self.cgroup = cgroup
    }
}

/// One kill, as the audit table keeps it.
public struct AuditRecord: Codable, Sendable, Equatable {
    public var t: Double
    public var app: String?
    public var reason: String
    public var code: String?
    public var line: String

    public init(t: Double, app: String?, reason: String, code: String?, line: String) {
        self.t = t
        self.app = app
        self.reason = reason
        self.code = code
        self.line = line
    }
}

/// Where the live host keeps what it must not forget. `BGXLiveStore`'s
/// `SQLiteStore` is the real one (SQLite through GRDB, WAL); the daemon runs
/// without one (state in memory only) when none is given. Every method
/// returns once the change is committed: the daemon acts only after that.
public protocol DurableStore: AnyObject, Sendable {
    func session() throws -> DaemonSession?
    func saveSession(_ session: DaemonSession) throws
    /// Appends an entry, returning the sequence number it was given.
    @discardableResult func append(_ entry: JournalEntry) throws -> Int64
    /// Appends an entry and, in the same transaction, a snapshot of the state
    /// just before it (given the entry's sequence number). With `compact`, the
    /// entries and snapshots before it are deleted in that transaction too.
    @discardableResult func append(_ entry: JournalEntry, snapshot: StoredSnapshot, compact: Bool) throws -> Int64
    /// The newest snapshot, if any.
    func latestSnapshot() throws -> StoredSnapshot?
    /// The journal's first entry still kept (1 when it was never compacted).
    func firstEntry() throws -> JournalEntry?
    func entries() throws -> [JournalEntry]
    /// Up to `limit` entries after sequence number `seq`, in order: a restart
    /// reads the journal a page at a time, so a long one is never all in memory.
    func entries(after seq: Int64, limit: Int) throws -> [JournalEntry]
    func lastEntry() throws -> JournalEntry?
    /// The highest sequence number in the journal, read without decoding the entry.
    func lastSequence() throws -> Int64?
    /// Deletes the entries from `seq` on (and the snapshots after it): the
    /// journal restored to its last good entry, on purpose. Returns how many went.
    func discardEntries(from seq: Int64) throws -> Int

    func recordInstall(app: String, path: String, t: Double) throws
    func recordProcess(_ process: ProcessRecord) throws
    func forgetProcess(app: String, pid: Int32) throws
    func processes() throws -> [ProcessRecord]
    /// The cgroup subtrees daemons made (one per daemon process), to clear after a crash.
    func recordCgroupRoot(_ path: String) throws
    func forgetCgroupRoot(_ path: String) throws
    func cgroupRoots() throws -> [String]
    func audit(_ record: AuditRecord) throws
    func auditRecords() throws -> [AuditRecord]
}
