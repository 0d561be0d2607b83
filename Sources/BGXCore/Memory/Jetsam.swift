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

/// An app jetsam chose for memory pressure: its footprint, counted as
/// memory on its way back, and how it goes — a running background app whose
/// main thread is free hears `willTerminate` first [S]; any other goes at once.
struct JetsamVictim: Sendable, Equatable {
    var app: AppID
    var footprint: Int64
    var graceful: Bool
}

/// What free memory calls for, as the controller found it
/// (`MemoryController.checkPressure`): the coordinator warns each app the
/// controller names (`warning`) and queues the jetsam check when it says.
struct PressureVerdict: Sendable, Equatable {
    /// Free memory, in bytes, when the controller looked.
    var free: Int64
    /// An episode of low memory begins: every running app is asked about.
    var warns: Bool
    /// When the jetsam check is to come due, if one is to be queued.
    var jetsamCheckAt: Nanoseconds?
}

/// The coordinator's step back into the memory controller, once what came
/// before it is carried out (`Engine.continueMemory`).
enum MemoryStep: Sendable, Equatable {
    /// The device's memory changed: every process is checked against the
    /// per-process limit (rare), then free memory against jetsam's levels.
    case deviceMemoryChanged
}

/// rules §10: jetsam's decisions, made from the controller's books and what
/// it reads of the process table (`MemoryFacts`).
extension MemoryController {
    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Memory/ (8 of them in this file, when it was the engine's) cost the engine 131 instructions per event.

    // MARK: Levels

    /// The per-process limit on a device with `deviceMemory` of RAM.
    @inline(__always) func appLimit(deviceMemory: Int64) -> Int64 { Int64(Double(deviceMemory) * settings.appLimitFraction) }
    /// Below this much free memory jetsam kills.
    @inline(__always) func criticalLevel(deviceMemory: Int64) -> Int64 { Int64(Double(deviceMemory) * settings.criticalLevel) }

    /// The app's resident footprint in bytes (its manifest's plus what it
    /// allocated) while its process runs; 0 when not running.
    @inline(__always) func footprint(_ i: Int, running: Bool) -> Int64 { running ? declared[i] + apps[i].allocated : 0 }

    // MARK: The per-process limit

    /// Whether the running app is above its per-process limit: asked at every
    /// launch and allocation, before anything else is read.
    @inline(__always) func isOverLimit(_ app: AppID, deviceMemory: Int64) -> Bool {
        let i = Int(app.index)
        return declared[i] + apps[i].allocated > appLimit(deviceMemory: deviceMemory)
    }

    /// An app above its per-process limit is killed at once: chosen, with the
    /// kill's numbers. True if it was (the coordinator then terminates it).
    mutating func chooseForLimit<F: MemoryFacts>(_ app: AppID, deviceMemory: Int64, _ f: F) -> Bool {
        let i = Int(app.index)
        let fp = footprint(i, running: f.state(i) != .notRunning), limit = appLimit(deviceMemory: deviceMemory)
        guard fp > limit, let band = f.jetsamBand(i) else { return false }
        let percent = UInt8(clamping: Int(settings.appLimitFraction * 100))
        choose(app, JetsamKill(footprint: fp, level: limit, memory: deviceMemory, band: band,
                               cause: .perProcessLimit, percent: percent))
        return true
    }

    // MARK: Pressure

    /// Free memory against jetsam's levels. Below the warning level an
    /// episode of low memory begins once: running apps are warned (each one
    /// the coordinator asks `warning` about, in index order). Below the
    /// critical level one jetsam check is queued at a time, the kill delay
    /// from now, so the warned apps' handlers have their turn first. A small
    /// value, not effects: under pressure this runs at nearly every launch,
    /// and carrying effects out there cost the engine about 110 instructions
    /// per `bgx bench` event (callgrind).
    @inline(__always) mutating func checkPressure(now: Nanoseconds, deviceMemory: Int64) -> PressureVerdict {
        let free = freeMemory(deviceMemory: deviceMemory)
        guard free < warningLevel(deviceMemory: deviceMemory) else {
            lowMemoryEnded()
            return PressureVerdict(free: free, warns: false, jetsamCheckAt: nil)
        }
        let warns = lowMemoryBegins()
        let check = free < criticalLevel(deviceMemory: deviceMemory) && queueJetsamCheck()
        return PressureVerdict(free: free, warns: warns, jetsamCheckAt: check ? now + settings.killDelay : nil)
    }

    /// In an episode's warnings: the app's footprint if it is warned — it
    /// runs and jetsam has not chosen it — else nil.
    @inline(__always) func warning(_ i: Int, running: Bool) -> Int64? {
        running && apps[i].jettison == nil ? declared[i] + apps[i].allocated : nil
    }

    // MARK: The jetsam check

    /// The queued check came due: what the apps already chosen, among the
    /// `resident` (apps with a process), will give back.
    mutating func jetsamCheckDue<F: MemoryFacts>(resident: AppIndexSet, _ f: F) -> Int64 {
        jetsamCheckDue()
        var reclaiming: Int64 = 0
        if jettisonsUnderway > 0 {
            for index in resident where apps[Int(index)].jettison != nil {
                let i = Int(index)
                reclaiming += footprint(i, running: f.state(i) != .notRunning)
            }
        }
        return reclaiming
    }

    /// While free memory, counting what is `reclaiming`, is below the
    /// critical level: the lowest band's first app by the settings' order,
    /// chosen with the kill's numbers. Nil when free memory suffices or no
    /// app is left to kill.
    mutating func nextPressureKill<F: MemoryFacts>(reclaiming: Int64, deviceMemory: Int64, resident: AppIndexSet,
                                                   _ f: F) -> JetsamVictim? {
        let free = freeMemory(deviceMemory: deviceMemory), critical = criticalLevel(deviceMemory: deviceMemory)
        guard free + reclaiming < critical, let victim = nextVictim(resident: resident, f) else { return nil }
        let i = Int(victim.index)
        guard let band = f.jetsamBand(i) else { return nil }
        let fp = footprint(i, running: true)
        choose(victim, JetsamKill(footprint: fp, level: critical, memory: free, band: band, cause: .pressure))
        return JetsamVictim(app: victim, footprint: fp, graceful: f.state(i) == .background && f.mainThreadFree(i))
    }

    /// The check's kills are under way: if free memory is back above the
    /// warning level, the episode is over.
    mutating func jetsamCheckDone(deviceMemory: Int64) {
        if freeMemory(deviceMemory: deviceMemory) >= warningLevel(deviceMemory: deviceMemory) { lowMemoryEnded() }
    }

    // MARK: Choosing the victim

    /// The lowest band's first app by the settings' order, not yet chosen.
    mutating func nextVictim<F: MemoryFacts>(resident: AppIndexSet, _ f: F) -> AppID? {
        if settings.orderWithinBand == .leastRecentlyUsed, let app = leastRecentlyUsedIdleApp(f) { return app }
        return victimByFullPass(resident: resident, f)
    }

    /// The same choice, by a pass over every resident app (ties to the lowest index).
    func victimByFullPass<F: MemoryFacts>(resident: AppIndexSet, _ f: F) -> AppID? {
        var best: (app: AppID, band: JetsamBand, key: Int64)?
        for index in resident where apps[Int(index)].jettison == nil {
            let i = Int(index)
            guard let band = f.jetsamBand(i) else { continue }
            let key: Int64
            switch settings.orderWithinBand {
            case .leastRecentlyUsed: key = f.stateSince(i)
            case .largestFirst: key = -footprint(i, running: true)
            }
            if let b = best, (b.band, b.key, b.app.index) <= (band, key, index) { continue }
            best = (AppID(index: index), band, key)
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
    mutating func leastRecentlyUsedIdleApp<F: MemoryFacts>(_ f: F) -> AppID? {
        var k = 0
        while k < idleOrder.count {
            let entry = idleOrder[k]
            guard Self.isStillSuspended(entry, f) else {
                // The run of entries of apps no longer suspended from here goes in one move.
                var end = k + 1
                while end < idleOrder.count {
                    guard !Self.isStillSuspended(idleOrder[end], f) else { break }
                    end += 1
                }
                dropIdleEntries(k..<end)
                continue
            }
            // Still suspended: in the idle band.
            if apps[Int(entry.app.index)].jettison == nil { return entry.app }
            k += 1  // chosen already, not yet gone: kept in its place
        }
        return nil
    }

    /// Entries of apps no longer suspended go when they reach the front;
    /// without memory pressure nothing asks, so they are swept now and then
    /// (an app was suspended: `Engine.setState`).
    @inline(__always) var idleOrderIsLong: Bool { idleOrder.count > 2 * apps.count + 64 }

    mutating func sweepIdleOrder<F: MemoryFacts>(_ f: F) {
        keepIdleEntries { Self.isStillSuspended($0, f) }
    }

    @inline(__always) static func isStillSuspended<F: MemoryFacts>(_ entry: IdleEntry, _ f: F) -> Bool {
        let i = Int(entry.app.index)
        return f.state(i) == .suspended && f.stateSince(i) == entry.since
    }
}
