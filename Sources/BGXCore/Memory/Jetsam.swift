import HeapModule

/// rules §10: memory. Each running or suspended app holds its footprint (its
/// manifest's `memory` plus what it allocated); the system keeps a share;
/// what is left is free. Below the warning level running apps hear
/// `didReceiveMemoryWarning`; below the critical level jetsam kills from the
/// lowest band up — suspended apps first, with no notice. An app above its
/// own limit is killed at once.

/// An app suspended at `since` (see `leastRecentlyUsedIdleApp`), ordered
/// by when, then by index.
struct IdleEntry: Sendable, Comparable, Codable {
    var app: AppID
    var since: Nanoseconds
    static func < (a: Self, b: Self) -> Bool { (a.since, a.app.index) < (b.since, b.app.index) }
}

/// A kill jetsam has decided: the numbers it was decided on. Its words are
/// rendered from them when a trace line is written, not when the kill is
/// made — under memory pressure nearly every launch kills an app.
public struct JetsamKill: Sendable, Equatable, Codable {
    public var footprint: Int64
    /// `pressure`: the critical level free memory fell below;
    /// `perProcessLimit`: the per-process limit.
    public var level: Int64
    /// `pressure`: free memory when the app was chosen;
    /// `perProcessLimit`: the device's RAM.
    public var memory: Int64
    public var band: JetsamBand
    public var cause: JetsamCause
    /// `perProcessLimit`: the limit as a percentage of RAM.
    public var percent: UInt8 = 0

    /// The kill's `detail`, as iOS-style words.
    public var detail: String {
        switch cause {
        case .pressure:
            "jetsam: free memory \(Engine.mb(memory)) below \(Engine.mb(level)); "
                + "killed from the \(band) band (\(band.rawValue)) with a footprint of \(Engine.mb(footprint))"
        case .perProcessLimit:
            "footprint \(Engine.mb(footprint)) exceeds the per-process limit of \(Engine.mb(level)) "
                + "(\(percent) % of \(Engine.mb(memory)))"
        }
    }
}

extension Engine {
    static let megabyte = 1024.0 * 1024.0

    // MARK: Accounting

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Memory/ (8 of them in this file) cost the engine 131 instructions per event.
    /// The app's resident footprint in bytes; 0 when not running.
    @inline(__always) public func footprint(of app: AppID) -> Int64 {
        // Fields read in place: `let p = apps[i]` would copy (and retain) the whole process.
        let i = Int(app.index)
        return apps[i].state == .notRunning ? 0 : apps[i].manifest.memory + memory.apps[i].allocated
    }

    /// The per-process limit on this device.
    @inline(__always) public var appMemoryLimit: Int64 { Int64(Double(device.memory) * profile.memory.appLimitFraction) }
    @inline(__always) var systemMemory: Int64 { memory.systemMemory(deviceMemory: device.memory) }
    @inline(__always) var memoryWarningLevel: Int64 { memory.warningLevel(deviceMemory: device.memory) }
    @inline(__always) var memoryCriticalLevel: Int64 { Int64(Double(device.memory) * profile.memory.criticalLevel) }

    /// RAM neither the system nor any app holds (negative when overcommitted,
    /// until jetsam has acted).
    @inline(__always) public var freeMemory: Int64 { device.memory - systemMemory - memory.residentBytes }

    /// The app's jetsam band; nil when it is not running.
    @inline(__always) public func jetsamBand(of app: AppID) -> JetsamBand? {
        let i = Int(app.index)
        let state = apps[i].state
        if state == .notRunning { return nil }
        // A suspended process holds no assertion: it is purged first (rules §10), session or not.
        if apps[i].assertions.contains(.audioOrAccessory), state != .suspended { return .audioAndAccessory }
        switch state {
        case .notRunning: return nil
        case .active, .inactive: return .foreground
        case .suspended: return .idle
        case .background:
            // Whatever keeps `suspendIfIdle` from suspending the app is an assertion.
            return keptRunningInBackground(i) ? .background : .idleDeferred
        }
    }

    /// Jetsam has chosen the app and it is on its way out.
    public func isBeingJettisoned(_ app: AppID) -> Bool { memory.apps[Int(app.index)].jettison != nil }

    /// Apps jetsam has chosen that have not yet ended.
    var jettisonsUnderway: Int { memory.jettisonsUnderway }

    // MARK: The app's side

    /// The app allocates (or, negative, frees) memory. Above its limit it
    /// is killed at once; otherwise the system looks at free memory.
    public mutating func allocate(for app: AppID, bytes: Int64) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        memory.allocate(app, bytes: bytes)
        guard bytes > 0 else {
            if freeMemory >= memoryWarningLevel { memory.lowMemoryEnded() }
            return
        }
        if enforceLimit(app) { checkMemoryPressure() }
    }

    /// Kills the app at once if it is above its per-process limit; true if it survives.
    mutating func enforceLimit(_ app: AppID) -> Bool {
        let fp = footprint(of: app), limit = appMemoryLimit
        guard fp > limit, let band = jetsamBand(of: app) else { return true }
        let percent = UInt8(clamping: Int(profile.memory.appLimitFraction * 100))
        memory.choose(app, JetsamKill(footprint: fp, level: limit, memory: device.memory, band: band,
                               cause: .perProcessLimit, percent: percent))
        terminate(app, .memoryPressure, detail: "")  // words from the kill's numbers
        return false
    }

    /// A process started: its footprint now counts. Returns false if it was killed for it.
    mutating func admitLaunchedProcess(_ app: AppID) -> Bool {
        guard enforceLimit(app) else { return false }
        checkMemoryPressure()
        return true
    }

    // MARK: The system's side

    /// Below the warning level: warn every running app once per episode.
    /// Below the critical level: let jetsam act once the warned apps'
    /// handlers have had their turn.
    mutating func checkMemoryPressure() {
        let free = freeMemory
        guard free < memoryWarningLevel else { memory.lowMemoryEnded(); return }
        // Traced and queued here, not as effects: under pressure this runs at
        // nearly every launch (as effects, with the snapshot's, the engine
        // measured 2,685 instructions per `bgx bench` event against 2,646, callgrind).
        if memory.lowMemoryBegins() {
            for index in residentApps.sorted() where apps[Int(index)].state.isRunning && memory.apps[Int(index)].jettison == nil {
                let i = Int(index)
                let app = AppID(index: index)
                record(app, .memoryWarning(footprint: footprint(of: app), free: free))
                apps[i].jobs.append(.memoryWarning)
                pump(app)
            }
        }
        if free < memoryCriticalLevel, memory.queueJetsamCheck() {
            queue.push(.jetsamCheck, at: now + profile.memory.killDelay)
        }
    }

    /// Kills from the lowest band up until free memory (counting what the
    /// apps already chosen will give back) is above the critical level.
    mutating func jetsamCheckFired() {
        memory.jetsamCheckDue()
        var reclaiming: Int64 = 0
        if memory.jettisonsUnderway > 0 {
            for i in residentApps where memory.apps[Int(i)].jettison != nil {
                reclaiming += footprint(of: AppID(index: i))
            }
        }
        while freeMemory + reclaiming < memoryCriticalLevel, let victim = nextJetsamVictim() {
            let fp = footprint(of: victim)
            if jettison(victim) { reclaiming += fp }
        }
        if freeMemory >= memoryWarningLevel { memory.lowMemoryEnded() }
    }

    /// The lowest band's first app by the profile's order.
    mutating func nextJetsamVictim() -> AppID? {
        if profile.memory.orderWithinBand == .leastRecentlyUsed, let app = leastRecentlyUsedIdleApp() { return app }
        return jetsamVictimByFullPass()
    }

    /// The same choice, by a pass over every resident app (ties to the lowest index).
    func jetsamVictimByFullPass() -> AppID? {
        var best: (app: AppID, band: JetsamBand, key: Int64)?
        for index in residentApps where memory.apps[Int(index)].jettison == nil {
            let i = Int(index)
            let app = AppID(index: index)
            guard let band = jetsamBand(of: app) else { continue }
            let key: Int64
            switch profile.memory.orderWithinBand {
            case .leastRecentlyUsed: key = apps[i].stateSince
            case .largestFirst: key = -footprint(of: app)
            }
            if let b = best, (b.band, b.key, b.app.index) <= (band, key, index) { continue }
            best = (app, band, key)
        }
        return best?.app
    }

    // MARK: The idle band in LRU order

    /// The idle band (the lowest) in least-recently-used order, as XNU keeps
    /// it: the app suspended longest first; ties (suspended at the same
    /// instant) go to the lowest index, as in the full pass. Kept sorted by
    /// (since, index) as apps are suspended, so neither a pass over every app
    /// nor over the apps suspended at one instant: under pressure nearly
    /// every launch asks, and a person's habit can suspend thousands of apps
    /// at once. (A heap did the same with sifting that cost about 50
    /// instructions per engine event in `bgx bench`, callgrind.)
    mutating func leastRecentlyUsedIdleApp() -> AppID? {
        var k = 0
        while k < memory.idleOrder.count {
            let entry = memory.idleOrder[k]
            guard isStillSuspended(entry) else {
                // The run of entries of apps no longer suspended from here goes in one move.
                var end = k + 1
                while end < memory.idleOrder.count {
                    let next = memory.idleOrder[end]
                    guard !isStillSuspended(next) else { break }
                    end += 1
                }
                memory.dropIdleEntries(k..<end)
                continue
            }
            let i = Int(entry.app.index)
            if memory.apps[i].jettison == nil, jetsamBand(of: entry.app) == .idle { return entry.app }
            k += 1  // suspended, yet not a candidate now: kept in its place for later
        }
        return nil
    }

    /// An app entered the idle band's order (it was suspended: `MemoryController.processStateChanged`).
    mutating func sweepIdleOrderIfLong() {
        // Entries of apps no longer suspended go when they reach the front;
        // without memory pressure nothing asks, so sweep them now and then.
        if memory.idleOrder.count > 2 * apps.count + 64 {
            memory.sweepIdleOrder(keeping: isStillSuspended)
        }
    }

    @inline(__always) func isStillSuspended(_ entry: IdleEntry) -> Bool {
        let i = Int(entry.app.index)
        return apps[i].state == .suspended && apps[i].stateSince == entry.since
    }

    /// Kills one app for memory. A suspended or foreground app goes at
    /// once and hears nothing; a running background app hears
    /// `willTerminate` first if its main thread is free [S]. Returns true
    /// if the app is still on its way out.
    mutating func jettison(_ app: AppID) -> Bool {
        let i = Int(app.index)
        guard let band = jetsamBand(of: app) else { return false }
        memory.choose(app, JetsamKill(footprint: footprint(of: app), level: memoryCriticalLevel, memory: freeMemory,
                               band: band, cause: .pressure))
        if apps[i].state == .background, apps[i].inFlight == nil {
            apps[i].jobs.removeAll()
            apps[i].jobs.append(.terminateGracefully(.memoryPressure))
            pump(app)
            return apps[i].state != .notRunning
        }
        terminate(app, .memoryPressure, detail: "")  // words from the kill's numbers
        return false
    }

    /// `400 MB`, `12.3 MB`, `13.0 MB` (rounded to a tenth): integer arithmetic,
    /// as every memory kill's words carry several of these.
    public static func mb(_ bytes: Int64) -> String {
        let unit: Int64 = 1024 * 1024
        let sign = bytes < 0 ? "-" : "", magnitude = bytes.magnitude
        if magnitude % UInt64(unit) == 0 { return "\(sign)\(magnitude / UInt64(unit)) MB" }
        let tenths = (magnitude * 20 + UInt64(unit)) / UInt64(2 * unit)
        return "\(sign)\(tenths / 10).\(tenths % 10) MB"
    }
}
