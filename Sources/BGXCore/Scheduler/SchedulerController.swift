import HeapModule

/// rules §5, §6's controller: what dasd knows — the apps' task requests and
/// their history, the usage predictor, background fetch, the per-app
/// budgets — and when it will look again (its wakes and dirty sets). It
/// survives every process: none of it is the process table's.
///
/// One controller, not one per policy: every judgement reads the request,
/// the app's usage and its budgets together, and the wakes and dirty sets
/// serve all of them. Per app it keeps one record (`SchedulerAppState`)
/// rather than one array per part, so a judgement reaches all it reads
/// about an app through one array access.
struct SchedulerController: Sendable, Codable {
    /// Per app, by `AppID.index`.
    private(set) var apps: [SchedulerAppState] = []
    private(set) var pendingTasks = PendingRequests()
    /// Each request's submissions, starts and deferrals, for `explain` (the newest 4096).
    private(set) var taskHistory: [TaskHistoryEntry] = []

    // MARK: When the scheduler looks again
    /// Judge every request and fetch app at the next evaluation (a device change).
    private(set) var dirty = false
    /// Apps to judge again at the next evaluation (`dirty` judges all).
    private(set) var dirtyApps = AppIndexSet()
    /// The set `dirtyApps` trades places with at each evaluation, kept empty between them.
    private var dirtyAppsSpare = AppIndexSet()
    /// Each app's earliest time-based change, earliest first; stale entries are skipped.
    private(set) var wakes = Heap<SchedulerWakeEntry>()
    private(set) var wakeAt = AppTable<Nanoseconds>()
    /// The one scheduler wake in the event queue, and its generation (an older one is stale).
    private(set) var wake: Nanoseconds?
    private(set) var generation: UInt32 = 0

    // MARK: Background fetch's candidates
    /// Apps with a background fetch interval, in the order they set it.
    private(set) var fetchApps: [AppID] = []
    /// Each fetch app's place in `fetchApps` (nil: not a fetch app).
    private(set) var fetchRank = AppTable<Int>()
    private var nextFetchRank = 0

    /// When the person uses the device, by quarter-hour (DeviceActivityPolicy's prediction).
    private(set) var deviceUse: DeviceUsePrediction
    /// dasd's ThunderingHerdPolicy: its last trigger, and whether its in-use window still applies.
    private(set) var herd: ThunderingHerd
    let settings: SchedulerSettings

    /// The settings' weights as tables indexed by policy.
    let refreshWeights: [Double]
    let processingWeights: [Double]
    /// A processing task has started at some point (see `expireProcessingTasksForDeviceUse`).
    private(set) var processingTaskHasRun = false

    // MARK: Diagnostics
    private(set) var evaluations = 0
    private(set) var judgements = 0
    private(set) var recordsDasdDecisions = false
    private(set) var dasdStarts: [DasdStart] = []

    init(settings: SchedulerSettings,
         herd: ThunderingHerd = ThunderingHerd(locked: false, charging: false, online: true)) {
        self.settings = settings
        self.herd = herd
        refreshWeights = settings.weightTable(processing: false)
        processingWeights = settings.weightTable(processing: true)
        deviceUse = DeviceUsePrediction(days: settings.usageHistoryDays)
    }

    mutating func appInstalled(usageDays: Int) { apps.append(SchedulerAppState(usageDays: usageDays)) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Scheduler/ (5 of them in this file) cost the engine 23 instructions per event.
    /// The app's process ended: a fetch in flight ends with it; what the
    /// scheduler knows of the app stays.
    @inline(__always) mutating func processEnded(_ app: AppID) {
        if apps[Int(app.index)].fetchInFlight != nil { apps[Int(app.index)].fetchInFlight = nil }
    }

    /// Something changed for `app`: judge it again at the next evaluation if
    /// the scheduler has anything of it in hand (`running`: the app runs a task).
    @inline(__always) mutating func markDirty(_ app: AppID, running: Bool) {
        if dirty { return }
        if running || pendingTasks.has(app) || fetchRank[app.index] != nil { dirtyApps.insert(app.index) }
    }

    /// Time alone changes an answer about `app` at `time`: judge it again
    /// then. Only the earliest wake of an app is kept.
    mutating func wake(_ app: AppID, at time: Nanoseconds) {
        if let earlier = wakeAt[app.index], earlier <= time { return }
        wakeAt[app.index] = time
        wakes.insert(SchedulerWakeEntry(time: time, app: app.index))
    }

    /// The app sets (`interval` non-nil) or clears its fetch interval: it
    /// joins the fetch candidates at the end, or leaves them.
    mutating func setFetchInterval(_ app: AppID, _ interval: Nanoseconds?) {
        apps[Int(app.index)].fetchInterval = interval
        if interval != nil && fetchRank[app.index] == nil {
            fetchApps.append(app)
            fetchRank[app.index] = nextFetchRank
            nextFetchRank += 1
        }
        if interval == nil && fetchRank[app.index] != nil {
            fetchApps.removeAll { $0 == app }
            fetchRank[app.index] = nil
        }
        dirtyApps.insert(app.index)
    }

    /// The app was woken for a fetch: one is in flight, numbered, until its
    /// completion handler is called or it times out. Returns its number.
    mutating func fetchStarted(_ app: AppID, now: Nanoseconds) -> UInt32 {
        let i = Int(app.index)
        apps[i].fetchDeferKey = nil
        apps[i].fetchNumber &+= 1
        apps[i].fetchInFlight = FetchInFlight(number: apps[i].fetchNumber, started: now)
        apps[i].lastFetch = now
        apps[i].lastBackgroundLaunch = now
        return apps[i].fetchNumber
    }

    /// The app was launched or woken for background work (a task or a
    /// fetch): its energy clock runs from now, if it is not running already,
    /// and a launch over cellular spends its data budget (per calendar day).
    @inline(__always) mutating func wokeForBackgroundWork(_ app: AppID, now: Nanoseconds, cellular: Bool,
                                                          wallClockOffset: Nanoseconds) {
        let i = Int(app.index)
        if apps[i].energyStartedAt == nil { apps[i].energyStartedAt = now }
        if cellular { apps[i].cellularLaunches.add(1, at: now, day: .calendar(wallClockOffset: wallClockOffset)) }
    }

    /// Keeps a request's event for `explain`, dropping the oldest quarter when full.
    /// Inlined: as a call the entry was copied (and its words retained) on
    /// the way in — 0.4 % of the demo's instructions (callgrind).
    @inline(__always) mutating func noteHistory(_ entry: TaskHistoryEntry) {
        taskHistory.append(entry)
        if taskHistory.count > 4096 { taskHistory.removeFirst(1024) }
    }

    /// A request's event, in words that need no decision (`explain`'s history).
    mutating func noteHistory(_ app: AppID, _ id: TextID, _ what: String, now: Nanoseconds) {
        noteHistory(TaskHistoryEntry(time: now, app: app, identifier: id, event: what, detail: nil, earliest: nil))
    }

    // MARK: The device, as the scheduler sees it

    /// Judge every request and fetch app at the next evaluation (the device changed).
    mutating func judgeEverything() { dirty = true }

    /// The person started or stopped using the device; a lock or unlock may be a
    /// thundering-herd trigger (true: the herd's state changed).
    mutating func deviceLocked(at now: Nanoseconds, wallClockOffset: Nanoseconds) {
        deviceUse.locked(at: now, wallClockOffset: wallClockOffset)
    }
    mutating func deviceUnlocked(at now: Nanoseconds) { deviceUse.unlocked(at: now) }
    mutating func lockChanged(_ locked: Bool, now: Nanoseconds) -> Bool {
        herd.lockChanged(locked, now: now, lengthy: settings.thunderingHerdLengthyState)
    }
    /// The device restarted: a thundering-herd trigger of its own.
    mutating func booted(now: Nanoseconds, locked: Bool) { herd.booted(now: now, locked: locked) }
    /// The device-use prediction starts watching, at t = 0 (the engine's start).
    mutating func watchDeviceUse(fromWall wall: Nanoseconds, charging: Bool, wallClockOffset: Nanoseconds) {
        deviceUse.watch(fromWall: wall)
        deviceUse.plugged(in: charging, at: 0, wallClockOffset: wallClockOffset)
    }

    /// The app came to the front: a use the usage predictor learns from.
    mutating func noteUse(_ app: AppID, at now: Nanoseconds, wallClockOffset: Nanoseconds) {
        apps[Int(app.index)].usage.noteUse(at: now, wall: now + wallClockOffset)
    }

    mutating func recordDasdDecisions(_ on: Bool) { recordsDasdDecisions = on }

    // MARK: Requests (BGTaskScheduler's submit and cancel)

    /// `submit(_:)`, past the checks of the app's own declarations: the
    /// request joins the pending ones, or replaces its identifier's, unless
    /// its kind has as many pending as the limit. Either way, the trace's event.
    mutating func submit(_ app: AppID, _ id: TextID, _ request: TaskRequestSpec, now: Nanoseconds,
                         runsTask: Bool) -> Submission {
        let replacing = pendingTasks.serial(of: app, id)
        var sameKind = 0
        for p in pendingTasks.serials(of: app) where pendingTasks[p].request.kind == request.kind
            && pendingTasks[p].identifier != id { sameKind += 1 }
        let limit = request.kind == .appRefresh ? settings.maxPendingAppRefresh : settings.maxPendingProcessing
        if sameKind >= limit {
            return .rejected(.tooManyPendingTaskRequests, rejected(
                app, id, .tooManyPendingTaskRequests,
                "\(sameKind) \(request.kind) request(s) already pending (at most \(limit))", now: now))
        }
        let pending = PendingTask(app: app, identifier: id, request: request, submittedAt: now)
        if let r = replacing { pendingTasks.replace(r, with: pending) } else { pendingTasks.append(pending) }
        // Words when the history is read: a submission is made on nearly every trip to the background.
        let event = switch request.kind {
        case .appRefresh: "submitted (appRefresh)"
        case .processing: "submitted (processing)"
        case .continuedProcessing: "submitted (continuedProcessing)"
        }
        noteHistory(TaskHistoryEntry(time: now, app: app, identifier: id, event: event, detail: nil,
                                     earliest: request.earliestBegin))
        markDirty(app, running: runsTask)
        return .accepted(.trace(app, .taskSubmit(identifier: id, kind: request.kind, replaced: replacing != nil)))
    }

    /// A submission's outcome: the trace's event, and the error `submit` throws with a rejection.
    enum Submission {
        case accepted(Effect)
        case rejected(BGTaskSchedulerError, Effect)
    }

    /// A submission refused: kept in the history, and the trace's event (its words interned by the coordinator).
    mutating func rejected(_ app: AppID, _ id: TextID, _ error: BGTaskSchedulerError, _ why: String,
                           now: Nanoseconds) -> Effect {
        noteHistory(app, id, "rejected: \(error) — \(why)", now: now)
        return .taskReject(app, id, error, reason: why)
    }

    /// `cancel(taskRequestWithIdentifier:)`: the trace's event, nil when nothing of that identifier is pending.
    mutating func cancel(_ app: AppID, _ id: TextID, now: Nanoseconds, runsTask: Bool) -> Effect? {
        guard let r = pendingTasks.serial(of: app, id) else { return nil }
        pendingTasks.remove(r)
        noteHistory(app, id, "cancelled by the app", now: now)
        markDirty(app, running: runsTask)
        return .trace(app, .taskCancel(identifier: id))
    }

    /// `cancelAllTaskRequests`: each request's cancellation, in submission order.
    mutating func cancelAll(_ app: AppID, runsTask: Bool) -> [Effect] {
        let cancelled = pendingTasks.removeAll(of: app).map { Effect.trace(app, .taskCancel(identifier: $0.identifier)) }
        markDirty(app, running: runsTask)
        return cancelled
    }

    /// The pending request, taken out to be started (by the scheduler or the debugger).
    mutating func take(_ serial: UInt64) -> PendingTask { pendingTasks.remove(serial) }

    // MARK: Tasks that run (their launch's bookkeeping)

    /// Tasks were handed to the app (`why`: the decision, or the debugger's
    /// call): a launch the scheduler chose counts toward its spacing, a
    /// processing task has now run at some point, and each start is kept in the history.
    mutating func tasksStarted(_ app: AppID, _ tasks: [PendingTask], why: TextID, simulated: Bool, now: Nanoseconds) {
        if !simulated { apps[Int(app.index)].lastBackgroundLaunch = now }
        for task in tasks {
            if task.request.kind == .processing { processingTaskHasRun = true }
            noteHistory(TaskHistoryEntry(time: now, app: app, identifier: task.identifier, event: "started", detail: why,
                                         earliest: nil))
        }
    }

    /// `setTaskCompleted`: kept in the history; a processing task's end
    /// spaces the next, and a success forgives a penalty (continued
    /// processing has neither). The trace's event.
    mutating func taskCompleted(_ app: AppID, _ id: TextID, _ kind: BGTaskKind, success: Bool, now: Nanoseconds) -> Effect {
        if kind == .processing { processingTaskEnded(app, success: success, now: now) }
        noteHistory(app, id, "completed, success \(success)", now: now)
        let i = Int(app.index)
        if kind != .continuedProcessing && success && apps[i].penalties > 0 { apps[i].penalties -= 1 }
        return .trace(app, .taskComplete(identifier: id, success: success))
    }

    /// A processing task of the app ended: the next waits the spacing after it (longer after a success).
    mutating func processingTaskEnded(_ app: AppID, success: Bool, now: Nanoseconds) {
        apps[Int(app.index)].lastProcessingEnd = ProcessingEnd(time: now, success: success)
    }

    /// The launch's budget ran out with `tasks` not completed (the app is
    /// ended): each the scheduler chose is kept in the history, the app is
    /// penalised, and a processing task among them failed.
    mutating func tasksNeverCompleted(_ app: AppID, _ tasks: [RunningTask], now: Nanoseconds) {
        for task in tasks where !task.simulated {
            noteHistory(app, task.identifier, "never completed: the app was killed and will be launched less often", now: now)
        }
        apps[Int(app.index)].penalties += 1
        if tasks.contains(where: { $0.kind == .processing }) { processingTaskEnded(app, success: false, now: now) }
    }

    /// The app's launch for `tasks` was killed at once: they went with it.
    mutating func tasksLost(_ app: AppID, _ tasks: [PendingTask], now: Nanoseconds) {
        for task in tasks { noteHistory(app, task.identifier, "lost: the app was terminated as it was launched for it", now: now) }
    }

    // MARK: An evaluation

    /// Starts an evaluation: the requests (by serial, in submission order)
    /// and fetch apps to judge — every one after a change of the device
    /// (`dirty`), else only the apps something happened to or whose wake
    /// is due (`dirtyApps`): with thousands of apps, a user action re-judges
    /// one app, not all. Nil when nothing is pending (the wakes are dropped).
    mutating func beginEvaluation() -> (serials: [UInt64], fetchers: [AppID])? {
        let everything = dirty
        dirty = false
        evaluations &+= 1
        // The two sets trade places rather than copy and clear: clearing a set still shared with
        // a copy allocated a new table on every evaluation. The spare is emptied in place after.
        swap(&dirtyApps, &dirtyAppsSpare)
        defer { dirtyAppsSpare.removeAll() }
        if pendingTasks.isEmpty && fetchApps.isEmpty {
            wakes = Heap()
            wakeAt.removeAll()
            wake = nil
            return nil
        }
        // In the order a pass over every request would take them: submission order, fetch apps as they asked.
        if everything { return (pendingTasks.serials, fetchApps) }
        if dirtyAppsSpare.count == 1, let index = dirtyAppsSpare.first {
            // The common case, one app: its serials are already in submission order.
            let app = AppID(index: index)
            return (pendingTasks.serials(of: app), fetchRank[index] != nil ? [app] : [])
        }
        var serials: [UInt64] = []
        var ranked: [(rank: Int, app: AppID)] = []
        for index in dirtyAppsSpare {
            let app = AppID(index: index)
            serials += pendingTasks.serials(of: app)
            if let rank = fetchRank[index] { ranked.append((rank, app)) }
        }
        serials.sort()
        return (serials, ranked.sorted { $0.rank < $1.rank }.map(\.app))
    }

    /// Requests and fetch opportunities judged (a diagnostic).
    @inline(__always) mutating func countJudgements(_ n: Int) { judgements &+= n }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Scheduler/ cost the engine 23 instructions per event.
    /// Which policies hold the request back, and since when (for `explain`'s "since").
    @inline(__always) private mutating func noteVetoes(_ serial: UInt64, mask: UInt32, now: Nanoseconds) {
        guard pendingTasks[serial].blockedMask != mask else { return }
        pendingTasks[serial].blockedMask = mask
        Self.noteBlocked(&pendingTasks[serial].blockedSince, mask: mask, now: now)
    }

    /// Each policy holding a request back (a bit of `mask`) since when: set
    /// when it starts to, cleared when it stops (for `explain`).
    @inline(__always) static func noteBlocked(_ blockedSince: inout [Nanoseconds?], mask: UInt32, now: Nanoseconds) {
        for index in blockedSince.indices {
            if mask & (1 << UInt32(index)) != 0 {
                if blockedSince[index] == nil { blockedSince[index] = now }
            } else if blockedSince[index] != nil {
                blockedSince[index] = nil
            }
        }
    }

    /// A pending request was judged (the launch policy's word included): the
    /// policies that hold it back are noted, and one that may not run is
    /// judged again when time alone changes the answer. True when it may
    /// not run and what holds it back changed: a deferral is traced then.
    @inline(__always) mutating func judged(_ serial: UInt64, _ j: Judgement, now: Nanoseconds) -> Bool {
        noteVetoes(serial, mask: j.mustNotMask, now: now)
        if j.run { return false }
        if let next = j.nextChange { wake(pendingTasks.app(serial), at: next) }
        return deferralChanged(serial, to: j.key)
    }

    /// What holds the request back is `key`: true when it changed.
    @inline(__always) private mutating func deferralChanged(_ serial: UInt64, to key: DecisionKey) -> Bool {
        guard pendingTasks[serial].lastDeferKey != key else { return false }
        pendingTasks[serial].lastDeferKey = key
        return true
    }

    /// The requests chosen at one evaluation (`serials`, in the order judged),
    /// taken out to be started: one launch per app, the apps in index order,
    /// each app's tasks in the order judged; `first` is the position in
    /// `serials` of the app's first task, whose decision the launch carries.
    mutating func takeForLaunch(_ serials: [UInt64]) -> [(app: AppID, tasks: [PendingTask], first: Int)] {
        let chosen = serials.map { take($0) }
        let order = chosen.indices.sorted { (chosen[$0].app.index, $0) < (chosen[$1].app.index, $1) }
        var launches: [(app: AppID, tasks: [PendingTask], first: Int)] = []
        for k in order {
            if let last = launches.last, last.app == chosen[k].app {
                launches[launches.count - 1].tasks.append(chosen[k])
            } else {
                launches.append((chosen[k].app, [chosen[k]], k))
            }
        }
        return launches
    }

    /// A request deferred for a new reason (`why`, the decision kept as trace
    /// text): kept in the history, and the trace's event.
    @inline(__always) mutating func deferred(_ app: AppID, _ id: TextID, why: TextID, now: Nanoseconds) -> Effect {
        noteHistory(TaskHistoryEntry(time: now, app: app, identifier: id, event: "deferred", detail: why, earliest: nil))
        return .trace(app, .taskDefer(identifier: id, reason: why))
    }

    /// The app's next fetch opportunity, to be judged: nil while it has
    /// none (no interval, no `fetch` mode, a fetch in flight, or the app
    /// never used) — from the app's first use or its last fetch, plus the interval.
    func fetchCandidate(_ app: AppID, declaresFetch: Bool) -> Candidate? {
        let i = Int(app.index)
        guard let interval = apps[i].fetchInterval, declaresFetch, apps[i].fetchInFlight == nil,
              let firstUse = apps[i].usage.firstUse else { return nil }
        let since = apps[i].lastFetch ?? firstUse
        return Candidate(app: app, kind: .fetch, earliest: since + interval, submittedAt: since,
                         requiresNetwork: false, requiresPower: false)
    }

    /// The app's fetch opportunity was judged and may not run: judged again
    /// when time alone changes the answer. True when what holds it back
    /// changed: a deferral is traced then.
    mutating func fetchHeld(_ app: AppID, _ j: Judgement) -> Bool {
        if let next = j.nextChange { wake(app, at: next) }
        guard apps[Int(app.index)].fetchDeferKey != j.key else { return false }
        apps[Int(app.index)].fetchDeferKey = j.key
        return true
    }

    /// A BGTask start, with the dasd-style decision that let it run (`recordsDasdDecisions`).
    mutating func noteDasdStart(_ start: DasdStart) { dasdStarts.append(start) }

    /// Brings the device-use prediction to the present (judgements only read it).
    mutating func refreshDeviceUse(now: Nanoseconds, wallClockOffset: Nanoseconds) {
        let horizonBins = Int(max(1, settings.deviceUseHorizon / UsageHistory.bin))
        deviceUse.refresh(now: now, wallClockOffset: wallClockOffset, horizonBins: horizonBins)
    }

    /// Fills the app's prediction cache for the quarter-hour of `now` (the
    /// evaluation is mutating; a judgement is not, and reads the cache).
    mutating func refreshPredictionCache(_ app: AppID, now: Nanoseconds, wallClockOffset: Nanoseconds) {
        let i = Int(app.index)
        guard let firstUse = apps[i].usage.firstUse else { return }
        let wallNow = now + wallClockOffset
        let bin = wallNow / UsageHistory.bin
        if let cached = apps[i].predictionCache, cached.bin == bin, cached.uses == apps[i].usage.version { return }
        let day = wallNow / Time.days(1)
        if apps[i].usageTableDay != day || apps[i].usageTableUses != apps[i].usage.version {
            let (counts, observed) = apps[i].usage.binCounts(beforeDay: day, firstUseWall: firstUse + wallClockOffset)
            apps[i].usageTableDay = day
            apps[i].usageTableUses = apps[i].usage.version
            apps[i].usageCounts = counts
            apps[i].usageObserved = observed
        }
        let predicted = UsageHistory.predictedUse(afterWall: wallNow, counts: apps[i].usageCounts,
                                                  observed: apps[i].usageObserved,
                                                  threshold: settings.usageProbabilityThreshold)
        apps[i].predictionCache = PredictionCache(bin: bin, uses: apps[i].usage.version,
                                                  predicted: predicted.map { $0 - wallClockOffset })
    }

    /// The wake fired: the apps whose wake is due are judged again; the
    /// next wake's event, when nothing is to be judged now.
    mutating func wakeFired(generation: UInt32, now: Nanoseconds, tasks: TaskSchedulerController) -> Effect? {
        guard generation == self.generation else { return nil }
        wake = nil
        while let first = wakes.min, first.time <= now {
            wakes.removeMin()
            // Superseded by an earlier wake of the same app, which has already judged it.
            guard wakeAt[first.app] == first.time else { continue }
            wakeAt[first.app] = nil
            let app = AppID(index: first.app)
            markDirty(app, running: tasks.holdsApp(app))
        }
        return dirtyApps.isEmpty && !dirty ? nextWake() : nil
    }

    /// The one event to queue for the earliest wake, if it is not queued already.
    mutating func nextWake() -> Effect? {
        guard let first = wakes.min else { wake = nil; return nil }
        guard wake != first.time else { return nil }
        generation &+= 1
        wake = first.time
        return .schedule(.schedulerWake(generation: generation), at: first.time)
    }

    // MARK: Background fetch (rules §6)

    /// `setMinimumBackgroundFetchInterval` (nil: never), at least the
    /// settings' minimum; the console's warning when the app does not declare `fetch`.
    mutating func setMinimumFetchInterval(_ app: AppID, _ interval: Nanoseconds?, declaresFetch: Bool) -> Effect? {
        setFetchInterval(app, interval.map { max($0, settings.minimumFetchInterval) })
        guard interval != nil && !declaresFetch else { return nil }
        return .log(app, "You've set a background fetch interval, but you still need to add \"fetch\" to the list of "
                    + "your supported UIBackgroundModes in your Info.plist; no fetch will happen.")
    }

    /// The app was woken for a fetch (`fetchStarted`): the assertion, the
    /// trace, the fetch's timeout and `performFetch` on its main thread.
    mutating func startFetch(_ app: AppID, now: Nanoseconds, epoch: UInt32, _ effects: inout [Effect]) {
        let number = fetchStarted(app, now: now)
        effects.append(.setAssertion(app, .fetch, true))
        effects.append(.trace(app, .fetchStart))
        effects.append(.schedule(.fetchTimeout(app, Ticket(epoch: epoch, number: number)), at: now + settings.fetchTimeout))
        effects.append(.enqueue(app, .performFetch))
    }

    /// The fetch completion handler: the fetch ends; it is judged once the
    /// app leaves the background (`fetchLeftBackground`: the energy clock
    /// runs on until then, and time awake is what the fetch cost).
    mutating func completeFetch(_ app: AppID, _ result: BackgroundFetchResult, now: Nanoseconds, inBackground: Bool,
                                _ effects: inout [Effect]) {
        let i = Int(app.index)
        guard let fetch = apps[i].fetchInFlight else {
            effects.append(.log(app, "performFetch completion handler called with no fetch in progress"))
            return
        }
        apps[i].fetchInFlight = nil
        effects.append(.setAssertion(app, .fetch, false))
        effects.append(.trace(app, .fetchComplete(result: result)))
        if apps[i].fetchAwaitingCost != nil { effects += fetchLeftBackground(app, now: now) }  // an earlier one, still awake
        apps[i].fetchAwaitingCost = FetchAwaitingCost(
            result: result, started: fetch.started, fetchedSomething: fetch.asyncWork > 0 || fetch.bytes > 0,
            bytes: fetch.bytes)
        if !inBackground { effects += fetchLeftBackground(app, now: now) }
        effects.append(.markSchedulerDirty(app))
        effects.append(.suspendIfThreadFree(app))
    }

    /// The fetch's timeout (its ticket is outstanding): judged timed out; false if none is in flight.
    mutating func fetchTimedOut(_ app: AppID, now: Nanoseconds) -> Bool {
        guard let fetch = apps[Int(app.index)].fetchInFlight else { return false }
        judgeFetch(app, .timedOut, took: now - fetch.started, now: now, settings: settings)
        return true
    }

    /// A transfer the app created during a fetch: its data counts toward the fetch's cost.
    mutating func fetchMoved(_ app: AppID, bytes: Int64) {
        if apps[Int(app.index)].fetchInFlight != nil { apps[Int(app.index)].fetchInFlight!.bytes += bytes }
    }

    /// Judges a fetch that ended and moves the app's standing.
    mutating func judgeFetch(_ app: AppID, _ verdict: FetchVerdict, took: Nanoseconds, bytes: Int64 = 0, now: Nanoseconds,
                             settings p: SchedulerSettings) {
        apps[Int(app.index)].fetchStanding.judge(verdict, took: took, bytes: bytes, at: now, settings: p)
    }
}

/// What the scheduler knows of one app; it survives termination (but a
/// fetch in flight, which ends with the process).
struct SchedulerAppState: Sendable, Codable {
    // MARK: The usage predictor
    var usage: UsageHistory
    var predictionCache: PredictionCache?
    /// Per quarter-hour use counts over the past days, as of one day
    /// (kept as separate fields: reading a tuple holding an array copies it).
    var usageTableDay: Int64 = -1
    var usageTableUses = -1
    var usageCounts: [UInt8] = []
    var usageObserved: Int64 = 0

    // MARK: Background fetch (rules §6)
    var fetchInFlight: FetchInFlight?
    /// A fetch that reported, judged once the app leaves the background.
    var fetchAwaitingCost: FetchAwaitingCost?
    /// `setMinimumBackgroundFetchInterval`; nil is "never" (the default).
    var fetchInterval: Nanoseconds?
    var lastFetch: Nanoseconds?
    var fetchStanding = FetchStanding()
    var fetchNumber: UInt32 = 0
    /// What held the last fetch opportunity back (a deferral is traced when it changes).
    var fetchDeferKey: DecisionKey?

    // MARK: Budgets and spacing (dasd's policies)
    var lastBackgroundLaunch: Nanoseconds?
    /// When a processing task of the app last ended, and whether it succeeded.
    var lastProcessingEnd: ProcessingEnd?
    /// Tasks left uncompleted; each doubles the spacing between launches.
    var penalties = 0
    /// Time awake in the background today (EnergyBudgetPolicy), stretches that have ended.
    var energy = DailyCounter<Nanoseconds>()
    var energyStartedAt: Nanoseconds?
    /// Background launches over cellular today (DataBudgetPolicy).
    var cellularLaunches = DailyCounter<Int>()

    init(usageDays: Int) { usage = UsageHistory(days: usageDays) }

    /// The app left the background: the stretch awake there is spent energy
    /// (every second counts, rules §12, busy or waiting).
    @inline(__always) mutating func stopEnergyClock(now: Nanoseconds, wallClockOffset: Nanoseconds) {
        guard let started = energyStartedAt else { return }
        energyStartedAt = nil
        energy.add(now - started, at: now, day: .calendar(wallClockOffset: wallClockOffset))
    }
}

/// A BGTask the scheduler started, with the dasd-style decision that let it run.
public struct DasdStart: Sendable, Codable {
    public var app: AppID
    public var identifier: String
    public var time: Nanoseconds
    public var decision: DasdDecision
}

/// The usage predictor's answer for one time bin, valid while the app's usage history is at `uses`.
struct PredictionCache: Sendable, Codable {
    var bin: Int64
    var uses: Int
    var predicted: Nanoseconds?
}

/// When the app's last processing task ended, and whether it completed.
struct ProcessingEnd: Sendable, Codable {
    var time: Nanoseconds
    var success: Bool
}

extension SchedulerController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled(usageDays: settings.usageHistoryDays) }

    /// Leaving the background stops the energy clock (EnergyBudgetPolicy),
    /// and a fetch that reported is judged on the time the app stayed awake.
    /// Asked first: the write would check the array's uniqueness, and the clock usually stopped already.
    @inline(__always) mutating func processStateChanged(_ app: AppID, from: ProcessState, to: ProcessState,
                                                        _ context: ControllerContext, _ effects: inout [Effect]) {
        let i = Int(app.index)
        guard from == .background, apps[i].energyStartedAt != nil else { return }
        apps[i].stopEnergyClock(now: context.now, wallClockOffset: context.wallClockOffset)
        if apps[i].fetchAwaitingCost != nil { effects += fetchLeftBackground(app, now: context.now) }
    }

    /// The process ended: its energy clock stops (usually stopped already,
    /// as the app left the background) and a fetch in flight ends with it;
    /// what the scheduler knows of the app stays.
    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        let i = Int(app.index)
        if apps[i].energyStartedAt != nil {
            apps[i].stopEnergyClock(now: context.now, wallClockOffset: context.wallClockOffset)
        }
        processEnded(app)
    }

    /// Any device change may change an answer: every request is judged again.
    @inline(__always) mutating func deviceWillChange(_ change: DeviceChange, _ context: ControllerContext,
                                                     _ effects: inout [Effect]) {
        dirty = true
    }

    /// Charging feeds the device-use prediction; charging and the network
    /// are thundering-herd triggers, traced when they fire.
    mutating func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        switch change {
        case let .charging(v):
            deviceUse.plugged(in: v, at: context.now, wallClockOffset: context.wallClockOffset)
            if herd.chargingChanged(v, now: context.now, lengthy: settings.thunderingHerdLengthyState) {
                effects += herdTriggerEffects()
            }
        case let .network(v):
            if herd.networkChanged(online: v != .none, now: context.now, lengthy: settings.thunderingHerdLengthyState) {
                effects += herdTriggerEffects()
            }
        default:
            break
        }
    }

    /// The app that reported a fetch left the background (suspended, ended, or
    /// brought to the front): the fetch is judged on the time it stayed awake.
    mutating func fetchLeftBackground(_ app: AppID, now: Nanoseconds) -> [Effect] {
        let i = Int(app.index)
        guard let ended = apps[i].fetchAwaitingCost else { return [] }
        apps[i].fetchAwaitingCost = nil
        let awake = now - ended.started
        let verdict = Self.fetchVerdict(result: ended.result, awake: awake, bytes: ended.bytes,
                                        fetchedSomething: ended.fetchedSomething, settings: settings)
        judgeFetch(app, verdict, took: awake, bytes: ended.bytes, now: now, settings: settings)
        return [.markSchedulerDirty(app)]
    }

    /// A thundering-herd trigger other than a restart (which says so itself) goes in the trace.
    func herdTriggerEffects() -> [Effect] {
        guard let reason = herd.reason else { return [] }
        return [.device(property: "thunderingHerdTrigger", value: reason.identifier ?? "boot")]
    }

    /// App code queued work while a fetch is in flight: the fetch did something.
    @inline(__always) mutating func appWorkQueued(_ app: AppID) {
        if apps[Int(app.index)].fetchInFlight != nil { apps[Int(app.index)].fetchInFlight!.asyncWork += 1 }
    }

    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        apps[Int(app.index)].fetchInFlight != nil ? .fetch : []
    }
}

/// An app's requests to judge again at `time` (the scheduler's wakes, earliest first).
struct SchedulerWakeEntry: Sendable, Comparable, Codable {
    var time: Nanoseconds
    var app: Int32
    static func < (a: Self, b: Self) -> Bool { (a.time, a.app) < (b.time, b.app) }
}
