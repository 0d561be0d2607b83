/// rules §13: `ProcessInfo.performExpiringActivity(withReason:using:)`, for app
/// extensions and apps [S: WWDC19 707][D]: "Performs the specified block
/// asynchronously and notifies you if the process is about to be suspended."
/// https://developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
/// The block runs on the background queue with `expired == false`, and the
/// process is held running like a background task — the same assertion,
/// the same budget. Where a task's expiration handler would run, the block is
/// called again with `expired == true` (on another thread: here the main
/// thread, so it can run while the first call still works); when that call
/// returns, the system takes the assertion back. When the first call returns,
/// the activity is over. No assertion to be had: the block runs once, with
/// `true`.
extension Engine {
    /// Begins an activity and queues its block (`expired == false`) on the
    /// background queue. Returns nil, traced `activity.refuse` with the reason,
    /// when no assertion can be taken: the host then calls the block with `true`.
    public mutating func performExpiringActivity(for app: AppID, reason label: String) -> Int? {
        let i = Int(app.index)
        let name = text(label)
        if let refusal = assertionRefusal(app) {
            record(app, .activityRefuse(name: name, reason: text(refusal + ": the block is called once, with expired = true")))
            return nil
        }
        let id = backgroundTasks.begin(app, name: label, text: name, now: now, expiringActivity: true)
        setAssertion(.backgroundTask, true, i)
        record(app, .activityBegin(id: id, name: name))
        if apps[i].state == .background { scheduleBudgetTimers(app) }
        enqueueInBackground(.expiringActivity(id), for: app)
        return id
    }

    /// The time runs out: the block is called again, with `expired == true`.
    mutating func expireActivity(_ app: AppID, _ activity: ExpirationDue) {
        record(app, .activityExpire(id: activity.id, name: activity.nameText, reason: text(
            "the background time is about to run out: the block is called again with expired = true")))
        apps[Int(app.index)].jobs.append(.expiringActivityExpired(activity.id))
    }

    /// The block's first call (`expired == false`) returned: the activity is over.
    mutating func expiringActivityBlockReturned(_ app: AppID, _ id: Int) {
        endActivity(app, id, "the block returned")
    }

    /// The block's `expired == true` call returned: the system takes the assertion back.
    mutating func expiredCallReturned(_ app: AppID, _ id: Int) {
        endActivity(app, id, "the block's expired call returned: the system takes the assertion back")
    }

    mutating func endActivity(_ app: AppID, _ id: Int, _ why: String) {
        let i = Int(app.index)
        guard let name = backgroundTasks.endActivity(app, id) else { return }
        setAssertion(.backgroundTask, backgroundTasks.holdsApp(app), i)
        record(app, .activityEnd(id: id, name: name, reason: text(why)))
        suspendIfThreadFree(app)
    }

    /// Why no background-time assertion can be taken now, if it cannot
    /// (shared with `beginBackgroundTask`).
    /// Inlined: called from a mutating method, a call copied the whole
    /// engine first (about 40 instructions per engine event in `bgx bench`).
    @inline(__always) func assertionRefusal(_ app: AppID) -> String? {
        let i = Int(app.index)
        if !apps[i].state.isRunning { return "the app is not running" }
        if !device.multitasking { return "this device does not support multitasking" }
        if apps[i].manifest.exitsOnSuspend { return "the app exits on suspend (UIApplicationExitsOnSuspend)" }
        if apps[i].state == .background, backgroundTasks.windowExpired(app, now: now, leadTime: profile.expirationLeadTime) {
            return "the app's background time has expired"
        }
        return nil
    }

    /// The queue a delivered callback runs on, for the host.
    public func queue(of callback: Callback, for app: AppID) -> ExecutionQueue {
        switch callback {
        case let .bgTask(id): launchHandlerQueue(for: app, identifier: id)
        case .expiringActivity(_, expired: false): .background
        default: .main
        }
    }
}
