import DequeModule

/// Work queued for an app's main thread. Each runs only when the thread is
/// free, in order, the way UIKit's run loop serialises lifecycle events.
/// Each lifecycle job names the state it leaves; if the app is no longer in
/// it, the job is skipped.
enum MainThreadJob: Sendable, Equatable {
    case finishLaunching(LaunchCause)
    case becomeActive            // inactive → active, didBecomeActive
    case resignActive            // active → inactive, willResignActive
    case enterBackground         // inactive → background, didEnterBackground
    case enterForeground         // background → inactive, willEnterForeground
    case terminateGracefully(TerminationReason)  // willTerminate, then terminate
    case expirationHandler(Int)
    case timer(Int32)
    case notification(NotificationID)
    case notificationResponse(NotificationID)
    case bgTask(TextID)
    case bgTaskExpired(TextID)
    case performFetch
    case memoryWarning          // didReceiveMemoryWarning (SPEC §10)
    case socketsClosed          // the app hears of sockets closed while it was suspended
    /// A long-running service's callback (SPEC §4): location, accessory, audio.
    case service(Callback)
    /// The transfer daemon's deliveries (SPEC §8).
    case transfer(TransferJob)
    case remoteNotification(UInt32, PushType)
    case voipPush(UInt32)
    case voipSocket
    case keepAlive
    /// `performExpiringActivity`'s block with `expired == false` (on the background queue),
    /// and again with `true` as the time runs out (SPEC §13).
    case expiringActivity(Int)
    case expiringActivityExpired(Int)
}

/// The job holding the main thread right now.
struct InFlightJob: Sendable {
    var number: UInt32
    /// Callbacks are watched by watchdogs and keep the app from suspending;
    /// a timer's work is simply frozen by suspension.
    var isCallback: Bool
    /// The callback running (nil for a timer's work).
    var callback: Callback?
    var terminateAfterwards: TerminationReason?
}

/// SPEC §2: one `beginBackgroundTask` assertion.
struct BackgroundTaskRecord: Sendable {
    var id: Int
    var name: String
    var nameText: TextID
    var began: Nanoseconds
    var expirationHandlerCalled = false
    /// SPEC §13: `performExpiringActivity`'s assertion, not a `beginBackgroundTask`.
    var isExpiringActivity = false
}

/// The background-time budget, counted from entering the background [S][A].
struct BackgroundWindow: Sendable {
    var start: Nanoseconds
    var deadline: Nanoseconds
    var timersScheduled = false
}

/// Per-app accounting for the summary (DESIGN.md issue 8, SPEC §12).
/// Counters live in fixed-size SIMD vectors: inline storage, so updating
/// them on the hot path touches no heap and checks no uniqueness.
public struct AppStats: Sendable, Equatable {
    public var timeInState = StateTimes()
    /// Indexed by `LaunchCause.rawValue` (a test checks the enums fit).
    public var launches = SIMD32<Int32>()
    /// Indexed by `TerminationReason.rawValue`.
    public var terminations = SIMD32<Int32>()
    public var backgroundTasksBegun = 0
    public var backgroundTasksExpired = 0
    public var watchdogHits = 0
    public var scheduledTasksStarted = 0
    public var scheduledTasksExpired = 0
    public var fetches = 0
    /// Returns to the front of a process that was still there (suspended or
    /// in the background); every launch is a cold one.
    public var warmLaunches = 0
    public init() {}
}

extension SIMD32 where Scalar == Int32 {
    /// Adds one to a lane in place: `v[i] += 1` on a vector stored in an
    /// array element copies all 128 bytes out and back.
    @inline(__always) mutating func increment(_ lane: Int) {
        precondition(lane >= 0 && lane < 32, "lane \(lane) out of range")
        withUnsafeMutableBytes(of: &self) { bytes in
            let offset = lane * MemoryLayout<Int32>.stride
            bytes.storeBytes(of: bytes.load(fromByteOffset: offset, as: Int32.self) &+ 1, toByteOffset: offset, as: Int32.self)
        }
    }
}

/// Everything the system knows about one installed app.
struct AppProcess: Sendable {
    let manifest: AppManifest
    var state: ProcessState = .notRunning
    var stateSince: Nanoseconds = 0
    /// Bumped at every termination; events from an earlier life are stale.
    var epoch: UInt32 = 0
    /// Set by a swipe in the app switcher; cleared by a user launch or reboot.
    var forceQuit = false

    var inFlight: InFlightJob?
    var jobCounter: UInt32 = 0
    var jobs = JobQueue()
    /// The background serial queue, once the app has put work there.
    var backgroundQueue: BackgroundQueueState?
    /// Launch handlers registered with the main queue (the rest run on the background queue).
    var launchHandlersOnMain: Set<TextID> = []
    var heldTimers: [(token: Int32, continuation: Bool)] = []

    var tasks: [BackgroundTaskRecord] = []
    /// The last task name and its interned text: apps reuse a few names.
    var lastTaskName: (name: String, text: TextID)?
    var nextTaskID = 1
    var window: BackgroundWindow?
    var windowNumber: UInt32 = 0

    var stats = AppStats()

    // MARK: BGTaskScheduler and fetch (SPEC §5, §6)
    /// Identifiers with a launch handler in this process.
    var registered: Set<TextID> = []
    /// `didFinishLaunching` has returned in this process: registering is over.
    var launchFinished = false
    var runningTasks: [RunningTask] = []
    /// The launch's shared task budget (SPEC §5: per launch, not per task).
    var taskDeadline: Nanoseconds?
    var taskWindowNumber: UInt32 = 0
    var fetchInFlight: FetchInFlight?
    /// `setMinimumBackgroundFetchInterval`; nil is "never" (the default).
    var fetchInterval: Nanoseconds?
    var lastFetch: Nanoseconds?
    var fetchStanding = FetchStanding()
    /// Files the app wrote, with their protection class (SPEC §13): on disk, so they outlive the process.
    var files: [TextID: ProtectedFile] = [:]
    var fetchNumber: UInt32 = 0
    var fetchDeferKey: Engine.DecisionKey?

    // MARK: What the scheduler knows of the app (survives termination)
    var usage: UsageHistory
    var predictionCache: (bin: Int64, uses: Int, predicted: Nanoseconds?)?
    /// Per quarter-hour use counts over the past days, as of one day
    /// (kept as separate fields: reading a tuple holding an array copies it).
    var usageTableDay: Int64 = -1
    var usageTableUses = -1
    var usageCounts: [UInt8] = []
    var usageObserved: Int64 = 0
    var lastBackgroundLaunch: Nanoseconds?
    /// When a processing task of the app last ended, and whether it succeeded.
    var lastProcessingEnd: (time: Nanoseconds, success: Bool)?
    /// Tasks left uncompleted; each doubles the spacing between launches.
    var penalties = 0
    var energyDay: Int64 = -1
    var energyUsed: Nanoseconds = 0
    var energyStartedAt: Nanoseconds?
    /// Background launches over cellular today (DataBudgetPolicy).
    var cellularDay: Int64 = -1
    var cellularLaunches = 0

    // MARK: CPU monitor (SPEC §10)
    var cpu = CPUUsage()

    // MARK: Memory and the responsible-background rules (SPEC §10)
    var memory = ProcessMemory()
    /// An audio or accessory session keeps the app in jetsam's
    /// audio-and-accessory band (set by those services, SPEC §4).
    var holdsAudioOrAccessoryAssertion = false
    // MARK: Long-running services (SPEC §4)
    var services = AppServices()
    // MARK: Background transfers (SPEC §8)
    /// A wake for a session's events, until the completion handler is called.
    var transferEvents: TransferEventsWake?
    var transferEventsNumber: UInt32 = 0
    /// Background wakes for transfer events since the app was last in front
    /// (the relaunch rate limiter; survives termination).
    var transferWakes = 0
    // MARK: Pushes and VoIP (SPEC §7, §4)
    var push = PushState()
    var voip = VoIPState()

    init(manifest: AppManifest, usageDays: Int) {
        self.manifest = manifest
        self.usage = UsageHistory(days: usageDays)
    }
}

extension AppProcess {
    /// The process has ended: what it held goes with it, in one access to
    /// the app's record; what the system knows of the app (usage, budgets,
    /// force-quit, the system's services) stays. Storage is kept for the
    /// next launch — under memory pressure processes come and go all the time —
    /// and what is already empty is not touched (emptying checks uniqueness).
    mutating func processEnded() {
        memory.processEnded()
        holdsAudioOrAccessoryAssertion = false
        epoch &+= 1
        inFlight = nil
        jobs.removeAll()
        if backgroundQueue != nil { backgroundQueue = nil }
        if !launchHandlersOnMain.isEmpty { launchHandlersOnMain.removeAll(keepingCapacity: true) }
        heldTimers.clearKeepingCapacity()
        tasks.clearKeepingCapacity()
        window = nil
        windowNumber &+= 1
        if !registered.isEmpty { registered.removeAll(keepingCapacity: true) }
        launchFinished = false
        runningTasks.clearKeepingCapacity()
        taskDeadline = nil
        taskWindowNumber &+= 1
        fetchInFlight = nil
        transferEvents = nil
        push.processEnded()
        voip.processEnded()
        cpu.intervals.clearKeepingCapacity()
        services.processEnded()
    }
}

extension RangeReplaceableCollection {
    /// `removeAll(keepingCapacity: true)`, skipped when already empty:
    /// emptying an array or deque checks its storage is unique, even when there is nothing to remove.
    @inline(__always) mutating func clearKeepingCapacity() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }
}

/// A FIFO of main-thread jobs: swift-collections' ring buffer, so taking
/// the last job leaves nothing to tidy (an array read from a moving head
/// had to be emptied each time it drained) and no allocation once it has
/// grown to its working size.
struct JobQueue: Sendable {
    private var items = Deque<MainThreadJob>()

    @inline(__always) var isEmpty: Bool { items.isEmpty }
    @inline(__always) mutating func append(_ job: MainThreadJob) { items.append(job) }
    @inline(__always) mutating func popFirst() -> MainThreadJob? { items.popFirst() }
    mutating func removeAll() { items.clearKeepingCapacity() }
}

/// Nanoseconds spent in each process state. Plain fields behind a switch:
/// a SIMD vector indexed at run time is spilled to memory on every update.
public struct StateTimes: Sendable, Equatable {
    public var notRunning: Nanoseconds = 0
    public var inactive: Nanoseconds = 0
    public var active: Nanoseconds = 0
    public var background: Nanoseconds = 0
    public var suspended: Nanoseconds = 0

    public subscript(state: ProcessState) -> Nanoseconds {
        get {
            switch state {
            case .notRunning: notRunning
            case .inactive: inactive
            case .active: active
            case .background: background
            case .suspended: suspended
            }
        }
        set {
            switch state {
            case .notRunning: notRunning = newValue
            case .inactive: inactive = newValue
            case .active: active = newValue
            case .background: background = newValue
            case .suspended: suspended = newValue
            }
        }
    }
}

/// A legacy background fetch in progress (SPEC §6).
struct FetchInFlight: Sendable {
    var number: UInt32
    var started: Nanoseconds
    /// Asynchronous work (network) the app started during the fetch.
    var asyncWork = 0
}

/// Busy main-thread intervals of the recent past, for the CPU monitor.
struct CPUUsage: Sendable {
    var intervals: [(start: Nanoseconds, end: Nanoseconds)] = []
    var checkNumber: UInt32 = 0
}
