#if canImport(UIKit)
import UIKit
#else
import BGXKit
#endif

/// The person's notes, which of them the server has, and what the app did
/// (the tests read it). Its lock lets the sync's task and the scene's
/// callbacks use it from their threads.
public final class NoteStore: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [String] = []
    private var synced = 0
    private var events: [String] = []

    public init() {}

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// What the app did, in order.
    public var log: [String] { locked { events } }
    public var count: Int { locked { notes.count } }
    public var unsyncedCount: Int { locked { notes.count - synced } }

    func record(_ event: String) { locked { events.append(event) } }
    func add(_ note: String) { locked { notes.append(note) } }
    func unsynced() -> [String] { locked { Array(notes[synced...]) } }
    func markSynced(_ count: Int) { locked { synced += count } }
}

/// The notes server, as far as the app sees it: an upload takes a while.
public final class NotesServer: Sendable {
    public let latency: Double
    public init(latency: Double) { self.latency = latency }

    /// Throws `CancellationError` when the task doing it is cancelled.
    func upload(_ notes: [String]) async throws {
        try await Task.sleep(nanoseconds: UInt64(latency * 1_000_000_000))
    }
}
