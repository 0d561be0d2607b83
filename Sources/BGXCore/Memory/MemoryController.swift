/// rules §10's controller: what each process holds (its allocations, its
/// locks and sockets, its recent CPU), what the running processes hold in
/// all, jetsam's idle band in the order apps entered it, and the episode of
/// low memory. It keeps the books and answers from them — the CPU monitor's
/// next check, the idle band's order, a kill counted once; the engine reads
/// the process table (states, bands), records the trace and terminates.
struct MemoryController: Sendable, Codable {
    /// Per app, by `AppID.index`: what its process holds; cleared as it ends.
    var apps: [ProcessMemory] = []
    /// Per app: busy main-thread time of the recent past, for the CPU monitor;
    /// its check's number outlives the process.
    var cpu: [CPUUsage] = []
    /// Footprints of every running process, in bytes (see `Engine.freeMemory`).
    var residentBytes: Int64 = 0
    /// Apps jetsam has chosen that have not yet ended.
    var jettisonsUnderway = 0
    /// Suspended apps in the order they were suspended, then by index (jetsam's idle band).
    var idleOrder: [IdleEntry] = []
    /// The latest instant an app entered `idleOrder`: an app suspended later goes at the back.
    var idleOrderNewest: Nanoseconds = .min
    /// Running apps have been warned in this episode of low memory.
    var warned = false
    /// A jetsam check is queued: one at a time.
    var jetsamCheckQueued = false

    mutating func appInstalled() {
        apps.append(ProcessMemory())
        cpu.append(CPUUsage())
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
    /// A check found is numbered: its ticket carries the number.
    mutating func nextCPUCheck(_ app: AppID, now: Nanoseconds, window: Nanoseconds, limit: Nanoseconds) -> Nanoseconds? {
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
        return t
    }
}
