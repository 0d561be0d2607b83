/// What one process holds and owes (rules §10); gone with the process.
struct ProcessMemory: Sendable, Codable {
    /// Bytes allocated beyond the manifest's footprint (never below 0: an
    /// app can free only what it allocated).
    var allocated: Int64 = 0
    /// Chosen by jetsam and on its way out (it hears `willTerminate` first).
    var jettison: JetsamKill?
    /// File locks held (`holdLock`); suspension with one held is fatal.
    var locks: [String] = []
    /// Listening sockets, Bonjour services and connections the app has open.
    var sockets: [OpenSocket] = []
    /// Sockets closed while the app was suspended, not yet told to it.
    var closedWhileSuspended: [ClosedSocket] = []
    /// What the UI shows; the app-switcher snapshot captures it.
    var sensitiveContentVisible = false
    /// Work the person did that is not yet saved.
    var hasUnsavedChanges = false

    // `@inline(__always)` as in the rest of Memory/: these came after the folder was measured
    // (docs/architecture.md, "Speed"), and are not measured on their own.
    /// Whether the process holds anything here: most end holding nothing,
    /// and then their record is not written (a write checks the array's uniqueness).
    @inline(__always) var holdsSomething: Bool {
        allocated != 0 || jettison != nil || !locks.isEmpty || !sockets.isEmpty
            || !closedWhileSuspended.isEmpty || sensitiveContentVisible || hasUnsavedChanges
    }

    /// Back to a new process's state, field by field: assigning a fresh
    /// value releases and replaces arrays that are usually empty already.
    mutating func processEnded() {
        allocated = 0
        jettison = nil
        locks.clearKeepingCapacity()
        sockets.clearKeepingCapacity()
        closedWhileSuspended.clearKeepingCapacity()
        sensitiveContentVisible = false
        hasUnsavedChanges = false
    }
}

/// A socket the system closed while its app was suspended, and why (told to the app when it resumes).
struct ClosedSocket: Sendable, Codable {
    var name: String
    var reason: String
}
