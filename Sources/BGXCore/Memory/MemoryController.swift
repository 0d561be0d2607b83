/// rules §10's controller: what each process holds (its allocations, its
/// locks and sockets, its recent CPU), what the running processes hold in
/// all, jetsam's idle band in the order apps entered it, and the episode of
/// low memory. It keeps the books and decides from them and from what it
/// reads of the process table (`MemoryFacts`) — the CPU monitor's next
/// check, the warnings and the jetsam check of an episode, the per-process
/// limit, jetsam's victim and how it goes (`Jetsam.swift`); the coordinator
/// carries out what it returns (`Engine/MemorySteps.swift`).
struct MemoryController: Sendable, Codable {
    let settings: MemorySettings
    /// Per app, by `AppID.index`: what its process holds; cleared as it ends.
    private(set) var apps: [ProcessMemory] = []
    /// Per app: the footprint its manifest declares, resident while its process runs.
    private(set) var declared: [Int64] = []
    /// Per app: busy main-thread time of the recent past, for the CPU monitor;
    /// its check's number outlives the process.
    private(set) var cpu: [CPUUsage] = []
    /// Footprints of every running process, in bytes (see `Engine.freeMemory`).
    private(set) var residentBytes: Int64 = 0
    /// Apps jetsam has chosen that have not yet ended.
    private(set) var jettisonsUnderway = 0
    /// Suspended apps in the order they were suspended, then by index (jetsam's idle band).
    private(set) var idleOrder: [IdleEntry] = []
    /// The latest instant an app entered `idleOrder`: an app suspended later goes at the back.
    private(set) var idleOrderNewest: Nanoseconds = .min
    /// Running apps have been warned in this episode of low memory.
    private(set) var warned = false
    /// A jetsam check is queued: one at a time.
    private(set) var jetsamCheckQueued = false

    init(settings: MemorySettings = MemorySettings()) { self.settings = settings }

    mutating func appInstalled() {
        apps.append(ProcessMemory())
        cpu.append(CPUUsage())
    }

    /// What the system keeps of the device's memory, and the level below which running apps are warned.
    @inline(__always) func systemMemory(deviceMemory: Int64) -> Int64 { Int64(Double(deviceMemory) * settings.systemShare) }
    @inline(__always) func warningLevel(deviceMemory: Int64) -> Int64 { Int64(Double(deviceMemory) * settings.warningLevel) }
    /// Memory no running process holds.
    @inline(__always) func freeMemory(deviceMemory: Int64) -> Int64 {
        deviceMemory - systemMemory(deviceMemory: deviceMemory) - residentBytes
    }

    // MARK: Jetsam

    /// Marks the app as on its way out, counted once in `jettisonsUnderway`
    /// (an app already chosen, still in its willTerminate, may be chosen again).
    mutating func choose(_ app: AppID, _ kill: JetsamKill) {
        let i = Int(app.index)
        if apps[i].jettison == nil { jettisonsUnderway += 1 }
        apps[i].jettison = kill
    }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Memory/ (3 of them in this file) cost the engine 131 instructions per event.
    /// An app entered the idle band's order (it was suspended at `now`).
    /// Time only moves forward, so it goes at the back, past only entries of
    /// this instant with a higher index.
    @inline(__always) mutating func enterIdleOrder(_ app: AppID, now: Nanoseconds) {
        let entry = IdleEntry(app: app, since: now)
        if now > idleOrderNewest {
            // The first suspension of this instant: nothing to pass. (Reading
            // the deque's back entry first cost about 6 instructions per engine event, callgrind.)
            idleOrderNewest = now
            idleOrder.append(entry)
        } else {
            var k = idleOrder.count
            while k > 0, entry < idleOrder[k - 1] { k -= 1 }
            if k == idleOrder.count { idleOrder.append(entry) } else { idleOrder.insert(entry, at: k) }
        }
    }

    /// The process ended (a kill under way is done: `killEnded` first):
    /// what it held goes with it; the CPU check's number stays, so a check
    /// queued for it goes stale.
    @inline(__always) mutating func processEnded(_ app: AppID) {
        let i = Int(app.index)
        // Read first, written only when there is something to drop: each write checks the arrays' uniqueness.
        if apps[i].holdsSomething { apps[i].processEnded() }
        if !cpu[i].intervals.isEmpty { cpu[i].intervals.removeAll(keepingCapacity: true) }
    }

    /// The process ended: if jetsam had chosen it, that kill is done.
    @inline(__always) mutating func killEnded(_ app: AppID) {
        if apps[Int(app.index)].jettison != nil { jettisonsUnderway -= 1 }
    }

    // MARK: The idle band's order

    /// The entry at `k` is stale (its app is no longer suspended since then).
    mutating func dropIdleEntries(_ entries: Range<Int>) {
        idleOrder.removeSubrange(entries)
    }

    /// Keeps only the entries still standing (a sweep now and then: `sweepIdleOrder`).
    mutating func keepIdleEntries(where stillSuspended: (IdleEntry) -> Bool) {
        idleOrder = idleOrder.filter(stillSuspended)
    }

    // MARK: Free memory

    /// The app allocates (or, negative, frees) `bytes`: clamped so no
    /// request, however large, overflows (anything near it is far past any
    /// limit), and never below what it allocated. The resident total follows.
    mutating func allocate(_ app: AppID, bytes: Int64) {
        let i = Int(app.index)
        let before = apps[i].allocated
        let cap = Int64(1) << 50
        apps[i].allocated = min(cap, max(0, before + max(-cap, min(cap, bytes))))
        residentBytes += apps[i].allocated - before
    }

    /// Free memory is back above the warning level: the episode of low
    /// memory is over, and the next one warns again.
    mutating func lowMemoryEnded() { warned = false }

    /// Free memory is below the warning level: true if this begins an
    /// episode (running apps are warned once per episode).
    mutating func lowMemoryBegins() -> Bool {
        if warned { return false }
        warned = true
        return true
    }

    /// Below the critical level: true if a jetsam check is to be queued (one at a time).
    mutating func queueJetsamCheck() -> Bool {
        if jetsamCheckQueued { return false }
        jetsamCheckQueued = true
        return true
    }

    /// Whether suspension has anything of the app's to look at (a file lock,
    /// a socket): nearly every app holds neither, and is asked in place.
    @inline(__always) func holdsLockOrSocket(_ app: AppID) -> Bool {
        !apps[Int(app.index)].locks.isEmpty || !apps[Int(app.index)].sockets.isEmpty
    }

    /// Whether a resume has anything of the app's to look at (a socket open, or closed while suspended).
    @inline(__always) func hasSocketsToReview(_ app: AppID) -> Bool {
        !apps[Int(app.index)].sockets.isEmpty || !apps[Int(app.index)].closedWhileSuspended.isEmpty
    }

    /// The queued jetsam check came due.
    mutating func jetsamCheckDue() { jetsamCheckQueued = false }

    // MARK: What the process holds (the responsible-background rules)

    mutating func holdLock(_ app: AppID, _ name: String) {
        let i = Int(app.index)
        if !apps[i].locks.contains(name) { apps[i].locks.append(name) }
    }

    /// False if the lock is not held.
    mutating func releaseLock(_ app: AppID, _ name: String) -> Bool {
        let i = Int(app.index)
        guard let k = apps[i].locks.firstIndex(of: name) else { return false }
        apps[i].locks.remove(at: k)
        return true
    }

    mutating func openSocket(_ app: AppID, _ name: String, _ kind: SocketKind) {
        let i = Int(app.index)
        apps[i].sockets.removeAll { $0.name == name }
        apps[i].sockets.append(OpenSocket(name: name, kind: kind))
    }

    mutating func closeSocket(_ app: AppID, _ name: String) {
        apps[Int(app.index)].sockets.removeAll { $0.name == name }
    }

    /// About to be suspended [S]: a held file lock kills the app
    /// (0xdead10cc); otherwise listening sockets and Bonjour services close
    /// (in the order opened; connections stay). Whether the app may be suspended.
    mutating func releaseForSuspension(_ app: AppID) -> (suspends: Bool, effects: [Effect]) {
        let i = Int(app.index)
        if let lock = apps[i].locks.first {
            return (false, [.terminate(app, .lockHeldWhileSuspended,
                                       detail: "held the file lock '\(lock)' when it was suspended (0xdead10cc)")])
        }
        guard !apps[i].sockets.isEmpty else { return (true, []) }
        let closing = apps[i].sockets.filter { $0.kind != .connection }
        if !closing.isEmpty { apps[i].sockets.removeAll { $0.kind != .connection } }
        return (true, closing.map { close(app, $0, reason: "listening sockets and Bonjour services are closed on suspension") })
    }

    /// Back from `suspendedFor` suspended: connections left idle that long
    /// are torn down (`teardown`; nil: never). Whether the app has sockets
    /// closed meanwhile to hear of, and the closes.
    mutating func resumed(_ app: AppID, suspendedFor: Nanoseconds,
                          teardown: Nanoseconds?) -> (tellApp: Bool, effects: [Effect]) {
        let i = Int(app.index)
        var effects: [Effect] = []
        if let teardown, suspendedFor >= teardown {
            let gone = apps[i].sockets
            apps[i].sockets.removeAll()
            effects = gone.map { close(app, $0, reason: "torn down after \(Time.describe(suspendedFor)) suspended") }
        }
        return (!apps[i].closedWhileSuspended.isEmpty, effects)
    }

    /// A socket the system closed: traced, and kept to tell the app when it runs again.
    private mutating func close(_ app: AppID, _ socket: OpenSocket, reason: String) -> Effect {
        apps[Int(app.index)].closedWhileSuspended.append(ClosedSocket(name: socket.name, reason: reason))
        return .socketClose(app, name: socket.name, kind: socket.kind, reason: reason)
    }


    mutating func takeClosedSockets(_ app: AppID) -> [ClosedSocket] {
        let i = Int(app.index)
        defer { apps[i].closedWhileSuspended.removeAll() }
        return apps[i].closedWhileSuspended
    }

    /// The app-switcher snapshot, taken now with what the UI shows (rules §10):
    /// a trace line, written by the coordinator in place (it is taken at
    /// every entry into the background).
    @inline(__always) func snapshot(_ app: AppID) -> TraceEvent.Kind {
        .snapshot(sensitiveContentVisible: apps[Int(app.index)].sensitiveContentVisible)
    }

    mutating func setSensitiveContentVisible(_ app: AppID, _ visible: Bool) {
        apps[Int(app.index)].sensitiveContentVisible = visible
    }

    /// Changes unsaved, or saved: unsaved ones now saved are traced (`changes.save`).
    mutating func setUnsavedChanges(_ app: AppID, _ unsaved: Bool) -> Effect? {
        let i = Int(app.index)
        let saved = !unsaved && apps[i].hasUnsavedChanges
        apps[i].hasUnsavedChanges = unsaved
        return saved ? .trace(app, .changesSave) : nil
    }

    // MARK: The CPU monitor

    /// The app's main thread is busy from `now` (or from the end of its
    /// busy time already counted) for `duration`; what fell out of the
    /// trailing window is forgotten.
    mutating func noteBusy(_ app: AppID, now: Nanoseconds, for duration: Nanoseconds, window: Nanoseconds) {
        let i = Int(app.index)
        cpu[i].intervals.removeAll { $0.end <= now - window }
        let start = max(now, cpu[i].intervals.last?.end ?? now)
        cpu[i].intervals.append(BusyInterval(start: start, end: start + duration))
    }

    /// Busy time between two moments.
    func busy(_ app: AppID, from: Nanoseconds, to: Nanoseconds) -> Nanoseconds {
        var total: Nanoseconds = 0
        for interval in cpu[Int(app.index)].intervals {
            let s = max(interval.start, from), e = min(interval.end, to)
            if e > s { total += e - s }
        }
        return total
    }

    /// The first moment the busy time in the trailing window reaches
    /// `limit` (busy time grows at most one second per second, so each step
    /// never overshoots); nil if the busy time counted so far never does.
    /// A check found is numbered: its ticket (of the process's `epoch`) carries the number.
    mutating func nextCPUCheck(_ app: AppID, now: Nanoseconds, epoch: UInt32, window: Nanoseconds,
                               limit: Nanoseconds) -> Effect? {
        let i = Int(app.index)
        guard let lastEnd = cpu[i].intervals.last?.end else { return nil }
        var t = now
        for _ in 0..<32 {
            let b = busy(app, from: t - window, to: t)
            if b >= limit { break }
            t += limit - b
            if t > lastEnd { return nil }
        }
        cpu[i].checkNumber &+= 1
        return .schedule(.cpuCheck(app, Ticket(epoch: epoch, number: cpu[i].checkNumber)), at: t)
    }

    /// The CPU monitor's check came due for a background app (not exempt):
    /// over `fraction` of `window` busy, it is killed (`cpuLimit`) [O];
    /// otherwise it is checked again when it could be.
    mutating func cpuCheckDue(_ app: AppID, now: Nanoseconds, epoch: UInt32, window: Nanoseconds,
                              fraction: Double) -> Effect? {
        let limit = Nanoseconds(fraction * Double(window))
        let b = busy(app, from: now - window, to: now)
        guard b >= limit else { return nextCPUCheck(app, now: now, epoch: epoch, window: window, limit: limit) }
        return .terminate(app, .cpuLimit, detail: "CPU time \(Time.describe(b)) over the last \(Time.describe(window)) "
                          + "in the background exceeds \(Int(fraction * 100)) %")
    }
}

extension MemoryController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) {
        appInstalled()
        declared.append(manifest.memory)
    }

    /// Resident memory is counted as processes start and end (rules §10),
    /// so free memory is known without a pass over every app; a suspended
    /// app enters jetsam's idle band at the back.
    @inline(__always) mutating func processStateChanged(_ app: AppID, from: ProcessState, to: ProcessState,
                                                        _ context: ControllerContext, _ effects: inout [Effect]) {
        let i = Int(app.index)
        if from == .notRunning {
            residentBytes += declared[i] + apps[i].allocated
        } else if to == .notRunning {
            residentBytes -= declared[i] + apps[i].allocated
        }
        if to == .suspended { enterIdleOrder(app, now: context.now) }
    }

    /// The process ended: its unsaved changes are lost (traced), a kill
    /// under way is done, the episode of low memory ends when the end frees
    /// enough (so the next one warns again), and what it held goes.
    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        let i = Int(app.index)
        if apps[i].hasUnsavedChanges { effects.append(.trace(app, .changesLost(reason: reason))) }
        killEnded(app)
        if warned, freeMemory(deviceMemory: context.deviceMemory) >= warningLevel(deviceMemory: context.deviceMemory) {
            warned = false
        }
        processEnded(app)
    }

    /// A smaller device lowers the per-process limit: every process is
    /// checked against it (rare), then the device's free memory.
    func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        guard case .memory = change else { return }
        effects.append(.continueMemory(.deviceMemoryChanged))
    }

    /// Memory is outside the app's background assertions: jetsam reads them.
    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions { [] }
}
