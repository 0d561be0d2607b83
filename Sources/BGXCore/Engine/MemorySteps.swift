/// The coordinator's side of the memory controller (rules §10): what it
/// reads of the engine for jetsam (its process table as `MemoryFacts`), the
/// moments and events it forwards, and the controller's decisions carried
/// out — free memory's verdict (who is warned, when the jetsam check comes
/// due), a kill as the victim and how it goes, the snapshot as its trace line.

/// The process table answers what jetsam reads of each app (`MemoryFacts`)
/// itself, so the engine passes its `apps` in place while the controller
/// changes its books (a view holding the table cost a retain and a release
/// of it at each question, about 60 instructions per `bgx bench` event, callgrind).
extension Array: MemoryFacts where Element == AppProcess {
    @inline(__always) func state(_ i: Int) -> ProcessState { self[i].state }
    @inline(__always) func stateSince(_ i: Int) -> Nanoseconds { self[i].stateSince }
    @inline(__always) func holdsAudioOrAccessory(_ i: Int) -> Bool { self[i].assertions.contains(.audioOrAccessory) }
    @inline(__always) func keptRunningInBackground(_ i: Int) -> Bool { self[i].keptRunningInBackground }
    @inline(__always) func mainThreadFree(_ i: Int) -> Bool { self[i].inFlight == nil }
}

extension Engine {
    static let megabyte = 1024.0 * 1024.0

    /// `400 MB`, `12.3 MB`, `13.0 MB` (rounded to a tenth): integer arithmetic,
    /// as every memory kill's words carry several of these.
    public static func mb(_ bytes: Int64) -> String {
        let unit: Int64 = 1024 * 1024
        let sign = bytes < 0 ? "-" : "", magnitude = bytes.magnitude
        if magnitude % UInt64(unit) == 0 { return "\(sign)\(magnitude / UInt64(unit)) MB" }
        let tenths = (magnitude * 20 + UInt64(unit)) / UInt64(2 * unit)
        return "\(sign)\(tenths / 10).\(tenths % 10) MB"
    }

    // MARK: Reads

    /// The app's resident footprint in bytes; 0 when not running.
    @inline(__always) public func footprint(of app: AppID) -> Int64 {
        let i = Int(app.index)
        return memory.footprint(i, running: apps[i].state != .notRunning)
    }

    /// The per-process limit on this device.
    @inline(__always) public var appMemoryLimit: Int64 { memory.appLimit(deviceMemory: device.memory) }
    @inline(__always) var memoryWarningLevel: Int64 { memory.warningLevel(deviceMemory: device.memory) }
    @inline(__always) var memoryCriticalLevel: Int64 { memory.criticalLevel(deviceMemory: device.memory) }

    /// RAM neither the system nor any app holds (negative when overcommitted,
    /// until jetsam has acted).
    @inline(__always) public var freeMemory: Int64 { memory.freeMemory(deviceMemory: device.memory) }

    /// The app's jetsam band; nil when it is not running.
    @inline(__always) public func jetsamBand(of app: AppID) -> JetsamBand? {
        let i = Int(app.index)
        return JetsamBand.of(apps[i].state, audioOrAccessory: apps[i].assertions.contains(.audioOrAccessory)) {
            keptRunningInBackground(i)
        }
    }

    /// Jetsam has chosen the app and it is on its way out.
    public func isBeingJettisoned(_ app: AppID) -> Bool { memory.apps[Int(app.index)].jettison != nil }

    /// Apps jetsam has chosen that have not yet ended.
    var jettisonsUnderway: Int { memory.jettisonsUnderway }

    /// Which app jetsam would choose now (tests compare the kept LRU order with a full pass).
    mutating func nextJetsamVictim() -> AppID? {
        memory.nextVictim(resident: residentApps, apps)
    }

    func jetsamVictimByFullPass() -> AppID? {
        memory.victimByFullPass(resident: residentApps, apps)
    }

    // MARK: The per-process limit and pressure

    /// A process started: its footprint now counts. Returns false if it was killed for it.
    mutating func admitLaunchedProcess(_ app: AppID) -> Bool {
        guard enforceLimit(app) else { return false }
        checkMemoryPressure()
        return true
    }

    /// The running app is killed at once if the controller finds it above
    /// its per-process limit; true if it survives.
    mutating func enforceLimit(_ app: AppID) -> Bool {
        guard memory.isOverLimit(app, deviceMemory: device.memory),
              memory.chooseForLimit(app, deviceMemory: device.memory, apps) else { return true }
        terminate(app, .memoryPressure, detailText: nil)  // words from the kill's numbers
        return false
    }

    /// The controller compares free memory with its levels: at an episode's
    /// start each app it names hears `didReceiveMemoryWarning` (asked in
    /// index order, each after the one before has run its handler as far as
    /// it can), then its jetsam check is queued when it says.
    mutating func checkMemoryPressure() {
        let verdict = memory.checkPressure(now: now, deviceMemory: device.memory)
        if verdict.warns {
            for index in residentApps {
                let i = Int(index)
                guard let footprint = memory.warning(i, running: apps[i].state.isRunning) else { continue }
                let app = AppID(index: index)
                record(app, .memoryWarning(footprint: footprint, free: verdict.free))
                apps[i].jobs.append(.memoryWarning)
                pump(app)
            }
        }
        if let due = verdict.jetsamCheckAt { queue.push(.jetsamCheck, at: due) }
    }

    /// Carries out a step the memory controller returned.
    mutating func continueMemory(_ step: MemoryStep) {
        switch step {
        case .deviceMemoryChanged:
            for i in residentApps.sorted() where apps[Int(i)].state != .notRunning { _ = enforceLimit(AppID(index: i)) }
            checkMemoryPressure()
        }
    }

    // MARK: The jetsam check

    /// The controller chooses victims one at a time, each carried out before
    /// the next is chosen (a kill frees memory; a graceful one frees it when
    /// `willTerminate` returns, and counts as memory on its way back until then).
    mutating func jetsamCheckFired() {
        var reclaiming = memory.jetsamCheckDue(resident: residentApps, apps)
        while let victim = memory.nextPressureKill(reclaiming: reclaiming, deviceMemory: device.memory,
                                                   resident: residentApps, apps) {
            jettison(victim)
            if apps[Int(victim.app.index)].state != .notRunning { reclaiming += victim.footprint }
        }
        memory.jetsamCheckDone(deviceMemory: device.memory)
    }

    /// Kills one app jetsam chose. A running background app whose main
    /// thread is free hears `willTerminate` first [S]; any other goes at once
    /// and hears nothing.
    mutating func jettison(_ victim: JetsamVictim) {
        let app = victim.app, i = Int(app.index)
        guard victim.graceful else {
            terminate(app, .memoryPressure, detailText: nil)  // words from the kill's numbers
            return
        }
        apps[i].jobs.removeAll()
        apps[i].jobs.append(.terminateGracefully(.memoryPressure))
        pump(app)
    }

    /// An app entered the idle band's order (it was suspended: `setState`).
    mutating func sweepIdleOrderIfLong() {
        if memory.idleOrderIsLong {
            memory.sweepIdleOrder(apps)
        }
    }

    // MARK: The CPU monitor

    func isExemptFromCPUMonitor(_ app: AppID) -> Bool {
        taskScheduler.apps[Int(app.index)].running.contains {
            // rules §13 [D]: continued processing may do intensive CPU work in the background.
            ($0.kind == .processing && $0.requiresExternalPower) || $0.kind == .continuedProcessing
        }
    }

    var cpuLimitBusy: Nanoseconds {
        Nanoseconds(schedulerSettings.cpuLimitFraction * Double(schedulerSettings.cpuLimitWindow))
    }

    /// Checks when the busy time in the trailing window would reach the limit.
    mutating func scheduleCPUCheck(_ app: AppID) {
        if let check = memory.nextCPUCheck(app, now: now, epoch: apps[Int(app.index)].epoch,
                                           window: schedulerSettings.cpuLimitWindow, limit: cpuLimitBusy) {
            apply(check)
        }
    }

    mutating func cpuCheckFired(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state == .background,
              !isExemptFromCPUMonitor(app) else { return }
        if let effect = memory.cpuCheckDue(app, now: now, epoch: apps[i].epoch, window: schedulerSettings.cpuLimitWindow,
                                           fraction: schedulerSettings.cpuLimitFraction) {
            apply(effect)
        }
    }

    // MARK: Suspension, resume and the snapshot (the responsible-background rules)

    /// About to be suspended: a held lock kills the app [S] (0xdead10cc).
    /// Returns false if it did.
    mutating func releaseResourcesForSuspension(_ app: AppID) -> Bool {
        guard memory.holdsLockOrSocket(app) else { return true }
        let (suspends, effects) = memory.releaseForSuspension(app)
        carryOut(effects)
        return suspends
    }

    /// Back from suspension: connections left idle that long are gone; the
    /// app hears of every socket closed meanwhile.
    mutating func noteSocketsOnResume(_ app: AppID, suspendedFor: Nanoseconds) {
        guard memory.hasSocketsToReview(app) else { return }
        let (tellApp, effects) = memory.resumed(app, suspendedFor: suspendedFor,
                                                teardown: profile.memory.suspendedSocketTeardown)
        carryOut(effects)
        if tellApp { apps[Int(app.index)].jobs.append(.socketsClosed) }
    }

    /// The app-switcher snapshot: the controller's trace line, recorded in
    /// place. It is taken at every entry into the background: as an effect
    /// it cost an `apply` each time (67,984 per 300,000 `bgx bench` events,
    /// callgrind), for a line that decides nothing.
    @inline(__always) mutating func takeSnapshot(_ app: AppID) {
        record(app, memory.snapshot(app))
    }
}
