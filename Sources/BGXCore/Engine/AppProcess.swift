/// Everything the system knows about one installed app.
struct AppProcess: Sendable, Codable {
    let manifest: AppManifest
    var state: ProcessState = .notRunning
    var stateSince: Nanoseconds = 0
    /// Bumped at every termination; events from an earlier life are stale.
    var epoch: UInt32 = 0
    /// Set by a swipe in the app switcher; cleared by a user launch or reboot.
    var forceQuit = false

    /// What holds the app running in the background, set and cleared by each concern.
    var assertions: BackgroundAssertions = []

    var inFlight: InFlightJob?
    var jobCounter: UInt32 = 0
    var jobs = JobQueue()
    /// The background serial queue, once the app has put work there.
    var backgroundQueue: BackgroundQueueState?
    var heldTimers: [HeldTimer] = []
    /// Tokens of work app code queued for now that has not started yet (see `InFlightJob.queuedForNow`).
    var queuedNow: Set<Int32> = []

    // `beginBackgroundTask` assertions and the background-time window are the background-task controller's.

    var stats = AppStats()

    // Launch handlers, running BGTasks and their budget are the task scheduler controller's.

    /// Files the app wrote, with their protection class (rules §13): on disk, so they outlive the process.
    var files: [TextID: ProtectedFile] = [:]

    // Memory, the CPU monitor and the responsible-background rules are the memory controller's.

    init(manifest: AppManifest) {
        self.manifest = manifest
    }
}

extension AppProcess {
    /// The process has ended: what it held goes with it, in one access to
    /// the app's record; what the system knows of the app (usage, budgets,
    /// force-quit, the system's services) stays. Storage is kept for the
    /// next launch — under memory pressure processes come and go all the time —
    /// and what is already empty is not touched (emptying checks uniqueness).
    /// `reason` is counted here, in the same access.
    mutating func processEnded(_ reason: TerminationReason) {
        stats.terminations[Int(reason.rawValue)] &+= 1
        assertions = []
        epoch &+= 1
        inFlight = nil
        jobs.removeAll()
        if backgroundQueue != nil { backgroundQueue = nil }
        heldTimers.clearKeepingCapacity()
        if !queuedNow.isEmpty { queuedNow.removeAll() }
    }

    /// Whether the timer job `token` is work app code queued for now (forgotten as it starts).
    mutating func startsQueuedWork(_ token: Int32) -> Bool {
        !queuedNow.isEmpty && queuedNow.remove(token) != nil
    }
}

/// A timer that came due while its app was suspended: it fires when the app runs again.
struct HeldTimer: Sendable, Codable {
    var token: Int32
    var continuation: Bool
}
