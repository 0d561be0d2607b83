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
    var apps: [SchedulerAppState] = []
    var pendingTasks = PendingRequests()
    /// Each request's submissions, starts and deferrals, for `explain` (the newest 4096).
    var taskHistory: [TaskHistoryEntry] = []

    // MARK: When the scheduler looks again
    /// Judge every request and fetch app at the next evaluation (a device change).
    var dirty = false
    /// Apps to judge again at the next evaluation (`dirty` judges all).
    var dirtyApps = AppIndexSet()
    /// The set `dirtyApps` trades places with at each evaluation, kept empty between them.
    var dirtyAppsSpare = AppIndexSet()
    /// Each app's earliest time-based change, earliest first; stale entries are skipped.
    var wakes = Heap<SchedulerWakeEntry>()
    var wakeAt = AppTable<Nanoseconds>()
    /// The one scheduler wake in the event queue, and its generation (an older one is stale).
    var wake: Nanoseconds?
    var generation: UInt32 = 0

    // MARK: Background fetch's candidates
    /// Apps with a background fetch interval, in the order they set it.
    var fetchApps: [AppID] = []
    /// Each fetch app's place in `fetchApps` (nil: not a fetch app).
    var fetchRank = AppTable<Int>()
    var nextFetchRank = 0

    /// When the person uses the device, by quarter-hour (DeviceActivityPolicy's prediction).
    var deviceUse: DeviceUsePrediction
    /// dasd's ThunderingHerdPolicy: its last trigger, and whether its in-use window still applies.
    var herd: ThunderingHerd
    let settings: SchedulerSettings

    /// The settings' weights as tables indexed by policy.
    let refreshWeights: [Double]
    let processingWeights: [Double]
    /// A processing task has started at some point (see `expireProcessingTasksForDeviceUse`).
    var processingTaskHasRun = false

    // MARK: Diagnostics
    var evaluations = 0
    var judgements = 0
    var recordsDasdDecisions = false
    var dasdStarts: [DasdStart] = []

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

    /// The one event to queue for the earliest wake, if it is not queued already.
    mutating func nextWakeEvent() -> (event: EngineEvent, at: Nanoseconds)? {
        guard let first = wakes.min else { wake = nil; return nil }
        guard wake != first.time else { return nil }
        generation &+= 1
        wake = first.time
        return (.schedulerWake(generation: generation), first.time)
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
    var fetchDeferKey: Engine.DecisionKey?

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
