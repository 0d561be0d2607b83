/// rules §8's controller: the transfer daemon's sessions and transfers —
/// device-wide, as nsurlsessiond keeps them, since every running transfer
/// shares one bandwidth — and, per app, the wake for a session's events and
/// the relaunch rate limiter. It settles progress, says why a transfer
/// waits, when the daemon must look again, how long the next relaunch
/// waits, and holds the app for its events' completion handler; the engine
/// carries the effects out and hands results to the app's process
/// (`BackgroundSessions.swift`), which it owns.
struct TransferController: Sendable, Codable {
    /// What the controller holds for one app.
    struct AppTransfers: Sendable, Codable {
        /// A wake for a session's events, until the completion handler is called (this process only).
        var eventsWake: TransferEventsWake?
        /// The events wake's counter: its deadline's ticket carries it.
        var eventsNumber: UInt32 = 0
        /// Background wakes for transfer events since the app was last in
        /// front (the relaunch rate limiter; survives termination).
        var backgroundWakes = 0
    }

    var sessions: [TransferSession] = []
    var tasks: [TransferTask] = []
    var nextTaskID: Int32 = 1
    /// Progress is accounted up to this moment.
    var settledAt: Nanoseconds = 0
    /// The daemon's one review event: a review of another generation is
    /// stale. Device-wide, so a generation rather than a `Ticket`.
    /// (Not a `Ticket`: the daemon's look belongs to no process.)
    var generation: UInt32 = 0
    var scheduledAt: Nanoseconds?
    /// Per app, by `AppID.index`.
    var apps: [AppTransfers] = []
    /// The live host moves the bytes over real connections: a running
    /// transfer finishes when the host says so (`transferFinishedByHost`),
    /// not when the bandwidth model's share covers it.
    var bytesMovedByHost = false

    mutating func appInstalled() { apps.append(AppTransfers()) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Transfers/, Trace/ and Push/ (1 of them in this file) cost the engine 4 instructions per event.
    /// The process ended: its events wake goes with it (the rate limiter stays).
    @inline(__always) mutating func processEnded(_ app: AppID) {
        if apps[Int(app.index)].eventsWake != nil { apps[Int(app.index)].eventsWake = nil }
    }

    var runningCount: Int { tasks.reduce(0) { $0 + ($1.phase == .running ? 1 : 0) } }

    // MARK: The daemon

    /// Accounts the progress of running transfers up to `now`, at the
    /// bandwidth that held since the last settlement. Call before anything
    /// changes the set of running transfers or the bandwidth.
    mutating func settle(now: Nanoseconds, network: DeviceState.Network, bandwidth: Int64) {
        let elapsed = now - settledAt
        settledAt = now
        guard !bytesMovedByHost, elapsed > 0, network != .none, bandwidth > 0 else { return }
        let running = runningCount
        guard running > 0 else { return }
        let share = TransferMath.mulDiv(bandwidth, elapsed, Int64(running) * Time.nanosecondsPerSecond, roundUp: false)
        for t in tasks.indices where tasks[t].phase == .running {
            tasks[t].remaining = max(0, tasks[t].remaining - share)
        }
    }

    /// What keeps a transfer from running now, if anything: its earliest
    /// begin date, the network, then — for a discretionary one — Wi-Fi and power.
    static func wait(_ t: TransferTask, now: Nanoseconds, device: DeviceState, settings: TransferSettings) -> TransferWait? {
        if let begin = t.earliestBegin, now < begin { return .earliestBegin(begin) }
        if device.network == .none { return .noNetwork }
        if device.network == .cellular && !t.allowsCellular { return .cellularNotAllowed }
        if t.discretion != .no {
            if settings.discretionaryRequiresWiFi && device.network != .wifi { return .needsWiFi }
            if settings.discretionaryRequiresPower && !device.charging { return .needsPower }
        }
        return nil
    }

    /// The earliest moment time alone changes something — a completion, an
    /// earliest begin date, a request or resource timeout — and the one
    /// review event for it (none when the moment has not moved).
    mutating func scheduleReview(now: Nanoseconds, bandwidth: Int64) -> Effect? {
        var next: Nanoseconds?
        func consider(_ t: Nanoseconds) { if next.map({ t < $0 }) ?? true { next = t } }
        let running = runningCount
        for task in tasks where task.phase != .finished {
            consider(task.created + task.resourceTimeout)
            if let begin = task.earliestBegin, begin > now { consider(begin) }
            if task.phase == .stalled, !task.retryNoted, let since = task.stalledSince {
                consider(since + task.requestTimeout)
            }
            if task.phase == .running, bandwidth > 0, !bytesMovedByHost {
                let share = TransferMath.mulDiv(task.remaining, Int64(running) * Time.nanosecondsPerSecond,
                                                bandwidth, roundUp: true)
                // Past the end of representable time (a vast transfer, a trickle of bandwidth): never.
                let (end, overflow) = now.addingReportingOverflow(share)
                consider(overflow ? .max : end)
            }
        }
        guard next != scheduledAt else { return nil }
        generation &+= 1
        scheduledAt = next
        guard let next, next != .max else { return nil }
        return .schedule(.transferReview(generation: generation), at: next)
    }

    /// Whether a review event is the one outstanding; taking it clears it.
    mutating func takeReview(generation: UInt32) -> Bool {
        guard generation == self.generation else { return false }
        scheduledAt = nil
        return true
    }

    // MARK: The relaunch rate limiter

    /// The delay before the next background wake for a session's events:
    /// `relaunchDelay`, doubling with each wake since the app was last in
    /// front (up to `relaunchMaxDoublings`). Counts the wake.
    mutating func nextWakeDelay(_ app: AppID, settings: TransferSettings) -> (delay: Nanoseconds, wake: Int) {
        let i = Int(app.index)
        let step = min(apps[i].backgroundWakes, settings.relaunchMaxDoublings)
        apps[i].backgroundWakes += 1
        return (settings.relaunchDelay * (1 << Int64(step)), apps[i].backgroundWakes)
    }

    /// The app is in front: the rate limiter starts over, and no session's
    /// wake or hold stands (the app gets its results in front).
    mutating func appCameToFront(_ app: AppID) {
        apps[Int(app.index)].backgroundWakes = 0
        for s in sessions.indices where sessions[s].app == app {
            sessions[s].wakePending = false
            sessions[s].launchHeld = false
            sessions[s].lastHold = nil
        }
    }

    // MARK: The events wake

    /// The app was woken for a session's events: it is held in the
    /// background until it calls the completion handler, for at most
    /// `eventsHandlingTime`.
    mutating func beginEvents(_ app: AppID, session: TextID, epoch: UInt32, now: Nanoseconds,
                              settings: TransferSettings) -> [Effect] {
        let i = Int(app.index)
        apps[i].eventsNumber &+= 1
        apps[i].eventsWake = TransferEventsWake(session: session, number: apps[i].eventsNumber)
        return [.setAssertion(app, .transferEvents, true),
                .schedule(.transferEventsDeadline(app, Ticket(epoch: epoch, number: apps[i].eventsNumber)),
                          at: now + settings.eventsHandlingTime)]
    }

    /// The completion handler was called, or the system stopped waiting for
    /// it: the app is let go. Nil when no events of `session` (any, when nil) are being handled.
    mutating func endEvents(_ app: AppID, session: TextID?) -> (wake: TransferEventsWake, effects: [Effect])? {
        let i = Int(app.index)
        guard let wake = apps[i].eventsWake, session.map({ wake.session == $0 }) ?? true else { return nil }
        apps[i].eventsWake = nil
        return (wake, [.setAssertion(app, .transferEvents, false)])
    }
}

extension TransferController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        processEnded(app)
    }

    /// Progress is settled at the old conditions first.
    func deviceWillChange(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        if !tasks.isEmpty { effects.append(.settleTransfers) }
    }

    /// The daemon looks again at the new conditions, and sessions held for a launch go.
    func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        if !tasks.isEmpty { effects.append(.reviewTransfers) }
        if sessions.contains(where: \.launchHeld) { effects.append(.reviewHeldTransferSessions) }
    }

    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        apps[Int(app.index)].eventsWake != nil ? .transferEvents : []
    }
}
