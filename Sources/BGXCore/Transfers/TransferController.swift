/// rules §8's controller: the transfer daemon's sessions and transfers —
/// device-wide, as nsurlsessiond keeps them, since every running transfer
/// shares one bandwidth — and, per app, the wake for a session's events and
/// the relaunch rate limiter. It settles progress, says why a transfer
/// waits, when the daemon must look again, how long the next relaunch
/// waits, which results go to the app and when it is woken for them, and
/// holds the app for its events' completion handler. It reads what it is
/// told (the moment and the device's conditions, `TransferConditions`; the
/// app's process, `TransferAppView`) and returns effects; where a decision
/// needs the engine to act first (a wake, the app's queue run) it returns a
/// `TransferStep`, and the engine calls it back with the app as it is then.
struct TransferController: Sendable, Codable {
    /// What the controller holds for one app.
    struct AppTransfers: Sendable, Codable {
        /// A wake for a session's events, until the completion handler is called (this process only).
        fileprivate(set) var eventsWake: TransferEventsWake?
        /// The events wake's counter: its deadline's ticket carries it.
        fileprivate(set) var eventsNumber: UInt32 = 0
        /// Background wakes for transfer events since the app was last in
        /// front (the relaunch rate limiter; survives termination).
        fileprivate(set) var backgroundWakes = 0
    }

    // Written only by the methods in this file (the state is private to them).
    private(set) var sessions: [TransferSession] = []
    private(set) var tasks: [TransferTask] = []
    private(set) var nextTaskID: Int32 = 1
    /// Progress is accounted up to this moment.
    private(set) var settledAt: Nanoseconds = 0
    /// The daemon's one review event: a review of another generation is
    /// stale. Device-wide, so a generation rather than a `Ticket`.
    /// (Not a `Ticket`: the daemon's look belongs to no process.)
    private(set) var generation: UInt32 = 0
    private(set) var scheduledAt: Nanoseconds?
    /// Per app, by `AppID.index`.
    private(set) var apps: [AppTransfers] = []
    /// The live host moves the bytes over real connections: a running
    /// transfer finishes when the host says so (`transferFinishedByHost`),
    /// not when the bandwidth model's share covers it.
    private(set) var bytesMovedByHost = false

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

    mutating func settle(_ conditions: TransferConditions) {
        settle(now: conditions.now, network: conditions.device.network, bandwidth: conditions.device.bandwidth)
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

    /// The daemon's review event came up: if it is the one outstanding, the daemon looks again.
    mutating func reviewFired(generation: UInt32, _ conditions: TransferConditions,
                              settings: TransferSettings) -> [Effect] {
        takeReview(generation: generation) ? review(conditions, settings: settings) : []
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
    /// wake or hold stands (the app gets its results in front). A session
    /// object the process holds receives what waited (queued, not yet run:
    /// the caller runs the app's queue).
    mutating func appCameToFront(_ app: AppID, state: ProcessState, epoch: UInt32, _ effects: inout [Effect]) {
        apps[Int(app.index)].backgroundWakes = 0
        for s in sessions.indices where sessions[s].app == app {
            sessions[s].wakePending = false
            sessions[s].launchHeld = false
            sessions[s].lastHold = nil
        }
        for s in sessions.indices where sessions[s].app == app {
            handOverResults(s, TransferAppView(state: state, epoch: epoch), &effects)
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

    /// The session's `urlSessionDidFinishEvents` is queued for the app (once per events wake).
    mutating func queueFinishEvents(_ app: AppID, _ id: TextID, _ effects: inout [Effect]) {
        apps[Int(app.index)].eventsWake?.finishEventsQueued = true
        effects.append(.queueJob(app, .transfer(.finishEvents(id))))
    }
}

/// The moment and the device's conditions the transfer daemon decides by.
struct TransferConditions {
    var now: Nanoseconds
    var device: DeviceState
    /// Time of day at t = 0: an earliest begin date is written as a time of day.
    var wallClockOffset: Nanoseconds
}

/// What the transfer controller reads of an app's process, taken by the
/// engine at the moment it asks (after carrying out what came before).
struct TransferAppView {
    var state: ProcessState
    var epoch: UInt32
    /// Why the launch policy would not wake the app now for the session's
    /// cause (`transfer` or `newsstand`); nil when it would, or when the app runs.
    var launchRefusal: String? = nil
    /// The identifier of the session in question, in words ("" when none is).
    var sessionName = ""
    /// The identifier of the session whose events the app handles now, in words.
    var eventsSessionName: String? = nil
}

/// Where the transfer controller goes on once the engine has carried out
/// the effects before it: the app is read again then (a result handed over
/// runs the app's queue, which can suspend it; a wake can launch it).
enum TransferStep: Sendable, Equatable {
    /// Progress is settled at the device's conditions (before they change).
    case settle
    /// The daemon looks at every transfer.
    case review
    /// Sessions whose wake the launch policy refused are looked at again.
    case reviewHeld
    /// One such session, looked at again.
    case held(session: Int)
    /// A task of the session finished: results go to a running app holding the session object.
    case finished(session: Int)
    /// Every task of the session may have finished: the app may be woken for the results.
    case settled(session: Int)
    /// A Newsstand download of the session finished: its result goes to the app at once.
    case newsstandFinished(session: Int)
    /// The engine wakes or launches the session's app for `cause`, then the controller goes on.
    case wake(session: Int, cause: LaunchCause)
}

extension TransferController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        processEnded(app)
    }

    /// Progress is settled at the old conditions first (the hook's context
    /// carries no network: the engine settles with the device's, still the old).
    func deviceWillChange(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        if !tasks.isEmpty { effects.append(.continueTransfers(.settle)) }
    }

    /// The daemon looks again at the new conditions, and sessions held for a launch go.
    func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        if !tasks.isEmpty { effects.append(.continueTransfers(.review)) }
        if sessions.contains(where: \.launchHeld) { effects.append(.continueTransfers(.reviewHeld)) }
    }

    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        apps[Int(app.index)].eventsWake != nil ? .transferEvents : []
    }
}

// MARK: - The app's calls (rules §8; `BackgroundSessions.swift` forwards them)

extension TransferController {
    /// Why the system refuses to create the session, or nil.
    static func sessionRefusal(_ config: BackgroundSessionConfiguration, declaresNewsstand: Bool,
                               settings: TransferSettings, profileName: String) -> String? {
        if config.newsstand {
            guard declaresNewsstand else {
                return "Newsstand downloads need UIBackgroundModes 'newsstand-content'; the download is refused"
            }
        } else if !settings.backgroundSessions {
            return "Background URLSessions need iOS 7 or later (profile \(profileName)); "
                + "session '\(config.identifier)' is not created"
        }
        return nil
    }

    /// `URLSession(configuration: .background(withIdentifier:), delegate:)`: creates
    /// or recreates the session object in the app's process (`id` names it).
    mutating func createSession(_ app: AppID, _ id: TextID, _ config: BackgroundSessionConfiguration,
                                _ view: TransferAppView, settings: TransferSettings) -> [Effect] {
        var effects: [Effect] = []
        let s: Int
        if let existing = sessionIndex(app, id) {
            s = existing
            if sessions[s].attachedEpoch == view.epoch && !config.newsstand {
                effects.append(.log(app, "A background URLSession with identifier \(config.identifier) already exists!"))
            }
        } else {
            sessions.append(TransferSession(
                app: app, identifier: id, sendsLaunchEvents: true, isDiscretionary: false, allowsCellular: true,
                requestTimeout: 0, resourceTimeout: 0, newsstand: config.newsstand))
            s = sessions.count - 1
        }
        sessions[s].sendsLaunchEvents = config.sessionSendsLaunchEvents
        sessions[s].isDiscretionary = config.isDiscretionary
        sessions[s].allowsCellular = config.allowsCellularAccess
        sessions[s].requestTimeout = config.timeoutIntervalForRequest ?? settings.requestTimeout
        sessions[s].resourceTimeout = config.timeoutIntervalForResource ?? settings.resourceTimeout
        sessions[s].attachedEpoch = view.epoch
        sessions[s].lastHold = nil
        handOverResults(s, view, &effects)
        if let wake = apps[Int(app.index)].eventsWake, wake.session == id, !wake.finishEventsQueued {
            queueFinishEvents(app, id, &effects)
        }
        effects.append(.pump(app))
        return effects
    }

    /// `downloadTask(with:)` / `uploadTask(with:fromFile:)` then `resume()` on a session
    /// object this process created: the task's identifier (nil if refused) and the effects.
    mutating func startTransfer(_ app: AppID, _ id: TextID, name: String, _ spec: TransferTaskSpec,
                                _ view: TransferAppView, _ conditions: TransferConditions,
                                settings: TransferSettings) -> (task: Int32?, effects: [Effect]) {
        guard let s = sessionIndex(app, id), isAttached(s, view) else {
            return (nil, [.log(app, "No background URLSession '\(name)' in this process: create it before adding tasks")])
        }
        settle(conditions)
        let session = sessions[s]
        let discretion: TransferTask.Discretion = session.newsstand ? .no
            : spec.discretionary ?? session.isDiscretionary ? .configured
            : view.state.isForeground ? .no : .startedInBackground
        let task = TransferTask(id: nextTaskID, app: app, session: id, kind: spec.kind,
                                bytes: max(0, spec.bytes), remaining: max(0, spec.bytes), created: conditions.now,
                                earliestBegin: spec.earliestBegin, discretion: discretion,
                                allowsCellular: session.allowsCellular, requestTimeout: session.requestTimeout,
                                resourceTimeout: session.resourceTimeout)
        nextTaskID &+= 1
        tasks.append(task)
        var effects: [Effect] = [.countFetchBytes(app, task.bytes),
                                 .trace(app, .transferCreate(session: id, task: task.id, kind: spec.kind, bytes: task.bytes))]
        review(conditions, settings: settings, &effects)
        return (task.id, effects)
    }

    /// `URLSessionTask.cancel()`: the task ends with NSURLErrorCancelled.
    mutating func cancelTransfer(_ app: AppID, task: Int32, _ conditions: TransferConditions,
                                 settings: TransferSettings) -> [Effect] {
        guard let t = transferIndex(task), tasks[t].app == app, tasks[t].phase != .finished else { return [] }
        settle(conditions)
        var effects: [Effect] = [.transferNote(app, .cancel(session: tasks[t].session,
                                                            reason: "the app cancelled task \(task)", oneOff: false))]
        finish(t, .cancelled, reason: nil, &effects)
        review(conditions, settings: settings, &effects)
        return effects
    }

    /// The completion handler of `handleEventsForBackgroundURLSession` for
    /// session `id` (`view.sessionName` in words), or the system stopped
    /// waiting for it (`id` nil: whichever session's events are being handled).
    mutating func eventsHandled(_ app: AppID, session id: TextID?, _ view: TransferAppView) -> [Effect] {
        guard let ended = endEvents(app, session: id) else {
            return id == nil ? [] : [.log(app, "handleEventsForBackgroundURLSession completion handler for '"
                + view.sessionName + "' called while no events of that session are being handled (called twice, "
                + "or after the system stopped waiting for it)")]
        }
        var effects = ended.effects
        let name = id == nil ? view.eventsSessionName ?? "" : view.sessionName
        noteSessionNotRecreated(app, ended.wake.session, name: name, view, &effects)
        effects.append(.suspendIfThreadFree(app))
        return effects
    }

    /// The events wake's deadline: the completion handler was never called.
    mutating func eventsDeadline(_ app: AppID, _ view: TransferAppView) -> [Effect] {
        [.log(app, "Warning: Application delegate received call to -application:handleEventsForBackgroundURLSession:"
              + "completionHandler: but the completion handler was never called.")]
            + eventsHandled(app, session: nil, view)
    }

    /// The session's unfinished tasks: (task, kind, bytes, bytes still to move).
    func pendingTransfers(_ app: AppID, _ id: TextID) -> [(task: Int32, kind: TransferKind, bytes: Int64, remaining: Int64)] {
        tasks.filter { $0.app == app && $0.session == id && $0.phase != .finished }
            .map { ($0.id, $0.kind, $0.bytes, $0.remaining) }
    }

    /// Whether the app's session with this identifier is a Newsstand download's.
    func isNewsstandSession(_ app: AppID, _ id: TextID) -> Bool {
        sessionIndex(app, id).map { sessions[$0].newsstand } ?? false
    }

    /// A transfer job reached the front of the app's main thread: the
    /// callback to deliver now, if it still stands (a result is marked delivered).
    mutating func callback(for job: TransferJob, _ app: AppID, epoch: UInt32) -> Callback? {
        switch job {
        case let .events(id):
            guard apps[Int(app.index)].eventsWake?.session == id else { return nil }
            return .handleEventsForBackgroundURLSession(id)
        case let .result(taskID):
            guard let t = transferIndex(taskID), !tasks[t].delivered, tasks[t].queuedEpoch == epoch else { return nil }
            tasks[t].delivered = true
            let task = tasks[t]
            return .urlSessionTaskDidComplete(session: task.session, task: task.id, kind: task.kind,
                                              result: task.result ?? .success)
        case let .finishEvents(id):
            return .urlSessionDidFinishEvents(id)
        }
    }

    /// A swipe in the app switcher cancels the app's unfinished transfers (rules §8).
    mutating func cancelForForceQuit(_ app: AppID, _ conditions: TransferConditions,
                                     settings: TransferSettings) -> [Effect] {
        guard tasks.contains(where: { $0.app == app && $0.phase != .finished }) else { return [] }
        settle(conditions)
        var effects: [Effect] = []
        for s in sessions.indices where sessions[s].app == app {
            let id = sessions[s].identifier
            var cancelled = 0
            for t in tasks.indices where tasks[t].app == app && tasks[t].session == id && tasks[t].phase != .finished {
                tasks[t].phase = .finished
                tasks[t].result = .cancelled
                cancelled += 1
            }
            guard cancelled > 0 else { continue }
            effects.append(.transferNote(app, .cancel(session: id, reason:
                "the user force-quit the app: \(cancelled) pending transfer\(cancelled == 1 ? "" : "s") cancelled "
                + "(NSURLErrorCancelled -999, delivered when the app next creates the session); no relaunch",
                oneOff: true)))
        }
        review(conditions, settings: settings, &effects)
        return effects
    }
}

// MARK: - The live host's transfers (`HostMovedTransfers.swift` forwards them)

extension TransferController {
    /// From now on running transfers finish only when the host says so.
    mutating func letHostMoveBytes() { bytesMovedByHost = true }

    /// The host moved every byte of a running transfer: nil when the daemon no longer runs it.
    mutating func finishedByHost(_ task: Int32, _ conditions: TransferConditions,
                                 settings: TransferSettings) -> [Effect]? {
        settle(conditions)
        guard let t = transferIndex(task), tasks[t].phase == .running else { return nil }
        tasks[t].remaining = 0
        return review(conditions, settings: settings)
    }

    /// An attempt failed in a way another may mend: the task stays, the host tries again.
    func attemptFailedByHost(_ task: Int32, reason: String) -> [Effect] {
        guard let t = transferIndex(task), tasks[t].phase != .finished else { return [] }
        let current = tasks[t]
        return [.transferNote(current.app, .retry(session: current.session, task: current.id,
                                                  reason: reason + "; the daemon retries it, resuming from the bytes it has"))]
    }

    /// The server's answer cannot be used: the task ends with NSURLErrorBadServerResponse.
    /// Nil when the task has already finished.
    mutating func failedByHost(_ task: Int32, reason: String, _ conditions: TransferConditions,
                               settings: TransferSettings) -> [Effect]? {
        settle(conditions)
        guard let t = transferIndex(task), tasks[t].phase != .finished else { return nil }
        var effects: [Effect] = []
        finish(t, .badServerResponse, reason: reason, &effects)
        review(conditions, settings: settings, &effects)
        return effects
    }
}

// MARK: - The daemon's review (rules §8, `TransferDaemon.swift`)

extension TransferController {
    /// The daemon looks at every transfer: finishes what is done, fails what
    /// timed out, starts what may run, and schedules its next look.
    mutating func review(_ conditions: TransferConditions, settings: TransferSettings) -> [Effect] {
        var effects: [Effect] = []
        review(conditions, settings: settings, &effects)
        return effects
    }

    mutating func review(_ conditions: TransferConditions, settings: TransferSettings, _ effects: inout [Effect]) {
        let now = conditions.now
        settle(conditions)
        tasks.removeAll { $0.delivered }
        var t = 0
        while t < tasks.count {
            let task = tasks[t]
            if task.phase == .running && task.remaining == 0 {
                finish(t, .success, reason: nil, &effects)
            } else if task.phase != .finished && now >= task.created + task.resourceTimeout {
                finish(t, .timedOut, reason: "timeoutIntervalForResource (" + Time.describe(task.resourceTimeout)
                       + ") elapsed before the transfer finished", &effects)
            }
            t += 1
        }
        for t in tasks.indices where tasks[t].phase != .finished {
            updatePhase(t, conditions, settings: settings, &effects)
        }
        if let next = scheduleReview(now: now, bandwidth: conditions.device.bandwidth) { effects.append(next) }
    }

    mutating func updatePhase(_ t: Int, _ conditions: TransferConditions, settings: TransferSettings,
                              _ effects: inout [Effect]) {
        let now = conditions.now
        let task = tasks[t]
        let wait = Self.wait(task, now: now, device: conditions.device, settings: settings)
        switch (wait, task.phase) {
        case (nil, .running):
            break
        case (nil, _):
            tasks[t].phase = .running
            tasks[t].lastWait = nil
            tasks[t].stalledSince = nil
            tasks[t].retryNoted = false
            effects.append(.trace(task.app, .transferStart(session: task.session, task: task.id, bytesLeft: task.remaining)))
        case (.noNetwork?, .running), (.noNetwork?, .stalled):
            if task.phase == .running {
                tasks[t].phase = .stalled
                tasks[t].stalledSince = now
            }
            noteWait(t, .noNetwork, conditions, &effects)
        case let (w?, _):
            tasks[t].phase = .waiting
            tasks[t].stalledSince = nil
            noteWait(t, w, conditions, &effects)
        }
        let current = tasks[t]
        if current.phase == .stalled, !current.retryNoted, let since = current.stalledSince,
           now >= since + current.requestTimeout {
            tasks[t].retryNoted = true
            effects.append(.transferNote(current.app, .retry(session: current.session, task: current.id, reason:
                "the request timed out after \(Time.describe(current.requestTimeout)) without connectivity "
                + "(timeoutIntervalForRequest); the daemon retries it when the network returns")))
        }
    }

    mutating func noteWait(_ t: Int, _ wait: TransferWait, _ conditions: TransferConditions, _ effects: inout [Effect]) {
        let task = tasks[t]
        guard task.lastWait != wait else { return }
        tasks[t].lastWait = wait
        tasks[t].waitingSince = conditions.now
        effects.append(.transferNote(task.app, .deferred(session: task.session, task: task.id,
                                                         reason: Self.describe(wait, task, wallClockOffset: conditions.wallClockOffset))))
    }

    /// A task ends. Its result goes on once the engine has carried out what
    /// came before (`TransferStep.finished`): the app is read then.
    mutating func finish(_ t: Int, _ result: TransferResult, reason: String?, _ effects: inout [Effect]) {
        let task = tasks[t]
        tasks[t].phase = .finished
        tasks[t].result = result
        switch result {
        case .success: effects.append(.trace(task.app, .transferComplete(session: task.session, task: task.id)))
        case .timedOut, .cancelled, .badServerResponse:
            if let reason {
                effects.append(.transferNote(task.app, .fail(session: task.session, task: task.id, result: result,
                                                             reason: reason)))
            }
        }
        guard let s = sessionIndex(task.app, task.session) else { return }
        effects.append(.continueTransfers(sessions[s].newsstand ? .newsstandFinished(session: s) : .finished(session: s)))
    }

    /// Where the daemon keeps a transfer, by its id.
    func transferIndex(_ id: Int32) -> Int? { tasks.firstIndex { $0.id == id } }
}

// MARK: - Results reaching the app (rules §8, `BackgroundSessions.swift`)

extension TransferController {
    func sessionIndex(_ app: AppID, _ id: TextID) -> Int? {
        sessions.firstIndex { $0.app == app && $0.identifier == id }
    }

    /// The running process holds the session object (Newsstand needs none); `view` is the session's app.
    func isAttached(_ s: Int, _ view: TransferAppView) -> Bool {
        sessions[s].newsstand || sessions[s].attachedEpoch == view.epoch
    }

    /// Finished results the app has not received and is not about to receive.
    func undeliveredResults(_ s: Int, _ view: TransferAppView) -> [TransferTask] {
        let session = sessions[s]
        let running = view.state != .notRunning
        return tasks.filter {
            $0.app == session.app && $0.session == session.identifier && $0.phase == .finished && !$0.delivered
                && !($0.queuedEpoch == view.epoch && running)
        }
    }

    /// Queues the session's finished results on a running app holding the session object.
    mutating func handOverResults(_ s: Int, _ view: TransferAppView, _ effects: inout [Effect]) {
        let session = sessions[s]
        guard view.state.isRunning, isAttached(s, view) else { return }
        for t in tasks.indices {
            let task = tasks[t]
            guard task.app == session.app, task.session == session.identifier, task.phase == .finished,
                  !task.delivered, task.queuedEpoch != view.epoch else { continue }
            tasks[t].queuedEpoch = view.epoch
            effects.append(.queueJob(session.app, .transfer(.result(task.id))))
        }
    }

    /// The controller goes on where it left off (`TransferStep`), with the
    /// session's app as it is now. (`.settle`, `.review`, `.reviewHeld` and
    /// `.wake` need no app: the engine calls `settle`, `review`,
    /// `reviewHeld` and `woke`.)
    mutating func resume(_ step: TransferStep, _ view: TransferAppView, now: Nanoseconds,
                         settings: TransferSettings) -> [Effect] {
        var effects: [Effect] = []
        switch step {
        case .settle, .review, .reviewHeld, .wake:
            preconditionFailure("\(step) is not resumed with an app")
        case let .finished(s):
            handOverResults(s, view, &effects)
            effects.append(.pump(sessions[s].app))
            effects.append(.continueTransfers(.settled(session: s)))
        case let .settled(s):
            sessionSettled(s, view, now: now, settings: settings, &effects)
        case let .newsstandFinished(s):
            newsstandFinished(s, view, &effects)
        case let .held(s):
            guard sessions[s].launchHeld else { break }
            sessions[s].launchHeld = false
            if !sessions[s].newsstand {
                sessionSettled(s, view, now: now, settings: settings, &effects)
            } else if !undeliveredResults(s, view).isEmpty, !view.state.isRunning {
                newsstandFinished(s, view, &effects)
            }
        }
        return effects
    }

    /// Conditions for waking apps changed (first unlock, reboot, a device
    /// change): sessions whose wake was refused are looked at again, one by
    /// one. Results waiting for the app to create its session are not — no
    /// wake comes for them until the app has something new (`transfer.hold` said so).
    func reviewHeld() -> [Effect] {
        sessions.indices.filter { sessions[$0].launchHeld }.map { .continueTransfers(.held(session: $0)) }
    }

    /// Every task of the session has finished: if the app has not received the
    /// results, the system wakes it for them — after the rate limiter's delay.
    mutating func sessionSettled(_ s: Int, _ view: TransferAppView, now: Nanoseconds, settings: TransferSettings,
                                 _ effects: inout [Effect]) {
        let session = sessions[s]
        guard !session.newsstand, !session.wakePending,
              !tasks.contains(where: {
                  $0.app == session.app && $0.session == session.identifier && $0.phase != .finished }) else { return }
        let waiting = undeliveredResults(s, view)
        // Cancellations alone wake nobody: `transfer.cancel` said they wait for the next launch.
        guard waiting.contains(where: { $0.result != .cancelled }) else { return }
        if view.state.isForeground {
            hold(s, "the app is in front: the results go to its delegate when it creates the session '"
                 + view.sessionName + "'", &effects)
            return
        }
        if let why = launchBlock(s, view) { holdForLaunch(s, why, &effects); return }
        let (delay, wake) = nextWakeDelay(session.app, settings: settings)
        scheduleSessionWake(s, at: now + delay, &effects)
        hold(s, "relaunch rate limiter: the app is woken in \(Time.describe(delay)) (background wake "
             + "\(wake) since it was last in front; the delay doubles each time)", &effects)
    }

    mutating func scheduleSessionWake(_ s: Int, at time: Nanoseconds, _ effects: inout [Effect]) {
        sessions[s].wakePending = true
        sessions[s].wakeNumber &+= 1
        let session = sessions[s]
        effects.append(.schedule(.transferWake(session.app, session: session.identifier, number: session.wakeNumber),
                                 at: time))
    }

    /// Why the system may not wake the app for a session's events now: the
    /// session's own setting, then the launch policy (rules §11) for cause
    /// `transfer` or `newsstand` (`view.launchRefusal`). A running app needs no launch.
    func launchBlock(_ s: Int, _ view: TransferAppView) -> String? {
        let session = sessions[s]
        if !session.sendsLaunchEvents && !session.newsstand {
            return "sessionSendsLaunchEvents is false: the results wait until the app runs and creates the session"
        }
        if view.state.isRunning { return nil }
        return view.launchRefusal.map { "not woken for the session's events: " + $0 }
    }

    mutating func holdForLaunch(_ s: Int, _ reason: String, _ effects: inout [Effect]) {
        sessions[s].launchHeld = true
        hold(s, reason, &effects)
    }

    mutating func hold(_ s: Int, _ reason: String, _ effects: inout [Effect]) {
        guard sessions[s].lastHold != reason else { return }
        sessions[s].lastHold = reason
        effects.append(.transferNote(sessions[s].app, .hold(session: sessions[s].identifier, reason: reason)))
    }

    /// The rate limiter's wake for a session's events came up.
    mutating func wakeFired(_ app: AppID, session id: TextID, number: UInt32, _ view: TransferAppView,
                            now: Nanoseconds, settings: TransferSettings) -> [Effect] {
        guard let s = sessionIndex(app, id), sessions[s].wakePending, sessions[s].wakeNumber == number else { return [] }
        sessions[s].wakePending = false
        guard !undeliveredResults(s, view).isEmpty else { return [] }
        var effects: [Effect] = []
        if view.state.isForeground {
            handOverResults(s, view, &effects)
            effects.append(.pump(app))
            return effects
        }
        if let why = launchBlock(s, view) { holdForLaunch(s, why, &effects); return effects }
        if apps[Int(app.index)].eventsWake != nil {
            // One session's events at a time: look again once the app is done with the other.
            scheduleSessionWake(s, at: now + settings.eventsHandlingTime, &effects)
            hold(s, "the app is handling background session '\(view.eventsSessionName ?? "")''s events: "
                 + "looked at again in \(Time.describe(settings.eventsHandlingTime))", &effects)
            return effects
        }
        return [.continueTransfers(.wake(session: s, cause: .transfer))]
    }

    /// The engine woke (or launched) the session's app for `cause`: `running`
    /// says whether it runs now (a launch can be killed at once).
    mutating func woke(_ s: Int, cause: LaunchCause, running: Bool, _ view: TransferAppView, now: Nanoseconds,
                       settings: TransferSettings) -> [Effect] {
        var effects: [Effect] = []
        let app = sessions[s].app, id = sessions[s].identifier
        guard running else {
            holdForLaunch(s, cause == .newsstand ? "the app was terminated as it was launched for the download"
                          : "the app was terminated as it was launched for the session's events", &effects)
            return effects
        }
        if cause == .newsstand {
            handOverResults(s, view, &effects)
            effects.append(.pump(app))
            return effects
        }
        // The deadline is queued before the jobs: handing over results queues no event.
        effects += beginEvents(app, session: id, epoch: view.epoch, now: now, settings: settings)
        effects.append(.queueJob(app, .transfer(.events(id))))
        if isAttached(s, view) {
            handOverResults(s, view, &effects)
            queueFinishEvents(app, id, &effects)
        }
        effects.append(.pump(app))
        return effects
    }

    /// The app handled (or ignored) a session's events without creating the session object.
    mutating func noteSessionNotRecreated(_ app: AppID, _ id: TextID, name: String, _ view: TransferAppView,
                                          _ effects: inout [Effect]) {
        guard let s = sessionIndex(app, id), !isAttached(s, view) else { return }
        let waiting = undeliveredResults(s, view).count
        guard waiting > 0 else { return }
        hold(s, "the app did not recreate background session '\(name)' "
             + "(URLSessionConfiguration.background(withIdentifier:)) when handling its events: "
             + (waiting == 1 ? "1 result waits" : "\(waiting) results wait") + " until it does", &effects)
    }

    /// A Newsstand download ended: its result goes to the app at once, waking it.
    mutating func newsstandFinished(_ s: Int, _ view: TransferAppView, _ effects: inout [Effect]) {
        if !view.state.isRunning {
            if let why = launchBlock(s, view) { holdForLaunch(s, why, &effects); return }
            effects.append(.continueTransfers(.wake(session: s, cause: .newsstand)))
            return
        }
        handOverResults(s, view, &effects)
        effects.append(.pump(sessions[s].app))
    }
}
