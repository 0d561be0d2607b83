/// The coordinator's side of the background-task controller (rules §2,
/// and §13's `performExpiringActivity`): the public calls as forwarders —
/// take the input, ask the controller, carry out its answer — what it
/// reads of the engine for the controller (an app's process and the
/// device, as `AssertionFacts`), the window's moments it forwards, and the
/// window's timers it schedules. The controller decides; its answers on
/// this hot path are small values (an `AssertionRefusal`, a `BudgetTimer`, an
/// `ExpirationDue`, a `BudgetTimeout`), carried out here, not arrays of effects.
extension Engine {
    /// `UIBackgroundTaskInvalid`.
    public static let invalidBackgroundTask = 0

    /// The app and the device as the background-task controller reads them before an assertion.
    /// Inlined: called from a mutating method, a call copied the whole
    /// engine first (about 40 instructions per engine event in `bgx bench`).
    @inline(__always) func assertionFacts(_ app: AppID) -> AssertionFacts {
        let i = Int(app.index)
        return AssertionFacts(running: apps[i].state.isRunning, inBackground: apps[i].state == .background,
                              multitasking: device.multitasking, exitsOnSuspend: apps[i].manifest.exitsOnSuspend)
    }

    // MARK: beginBackgroundTask (rules §2)

    public mutating func beginBackgroundTask(for app: AppID, name: String?) -> Int {
        let i = Int(app.index)
        let label = name ?? "Untitled"
        if let refusal = backgroundTasks.refusal(app, assertionFacts(app), now: now, leadTime: profile.expirationLeadTime) {
            record(app, .bgtaskInvalid(name: text(label), reason: text(refusal.words)))
            return Engine.invalidBackgroundTask
        }
        let (id, known) = backgroundTasks.begin(app, name: label, now: now)
        let nameText: TextID
        if let known {
            nameText = known
        } else {
            nameText = text(label)
            backgroundTasks.named(app, label, nameText)
        }
        Self.beganBackgroundTask(&apps[i])
        record(app, .bgtaskBegin(id: id, name: nameText))
        if apps[i].state == .background { scheduleBudgetTimers(app) }
        return id
    }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in BackgroundTasks/ (1 of them here, then in that folder) cost the engine 69 instructions per event.
    /// The assertion and its count, in one access to the app's record (each write checks the array's uniqueness).
    @inline(__always) static func beganBackgroundTask(_ a: inout AppProcess) {
        a.assertions.insert(.backgroundTask)
        a.stats.backgroundTasksBegun += 1
    }

    public mutating func endBackgroundTask(for app: AppID, _ id: Int) {
        let i = Int(app.index)
        guard backgroundTasks.end(app, id) else {
            log(app, BackgroundTaskController.unknownTaskEnded(id))
            return
        }
        setAssertion(.backgroundTask, backgroundTasks.holdsApp(app), i)
        record(app, .bgtaskEnd(id: id))
        suspendIfThreadFree(app)
    }

    /// `backgroundTimeRemaining`: effectively infinite in the foreground or
    /// with no task open [O]; otherwise what is left of the budget.
    public func backgroundTimeRemaining(for app: AppID) -> Double {
        guard apps[Int(app.index)].state == .background else { return Double.greatestFiniteMagnitude }
        return backgroundTasks.timeRemaining(app, now: now)
    }

    // MARK: performExpiringActivity (rules §13)

    // `ProcessInfo.performExpiringActivity(withReason:using:)`, for app
    // extensions and apps [S: WWDC19 707][D]: "Performs the specified block
    // asynchronously and notifies you if the process is about to be suspended."
    // https://developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
    // The block runs on the background queue with `expired == false`, and the
    // process is held running like a background task — the same assertion,
    // the same budget. Where a task's expiration handler would run, the block is
    // called again with `expired == true` (on another thread: here the main
    // thread, so it can run while the first call still works); when that call
    // returns, the system takes the assertion back. When the first call returns,
    // the activity is over. No assertion to be had: the block runs once, with
    // `true`.

    /// Begins an activity and queues its block (`expired == false`) on the
    /// background queue. Returns nil, traced `activity.refuse` with the reason,
    /// when no assertion can be taken: the host then calls the block with `true`.
    public mutating func performExpiringActivity(for app: AppID, reason label: String) -> Int? {
        let i = Int(app.index)
        let name = text(label)
        if let refusal = backgroundTasks.refusal(app, assertionFacts(app), now: now, leadTime: profile.expirationLeadTime) {
            record(app, .activityRefuse(name: name, reason: text(refusal.words + ": the block is called once, with expired = true")))
            return nil
        }
        let id = backgroundTasks.begin(app, name: label, text: name, now: now, expiringActivity: true)
        setAssertion(.backgroundTask, true, i)
        record(app, .activityBegin(id: id, name: name))
        if apps[i].state == .background { scheduleBudgetTimers(app) }
        enqueueInBackground(.expiringActivity(id), for: app)
        return id
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

    // MARK: The budget window, its moments and timers

    mutating func openBackgroundWindow(_ app: AppID) {
        backgroundTasks.openWindow(app, now: now, budget: profile.backgroundTaskBudget)
        guard backgroundTasks.holdsApp(app) else { return }
        if let age = profile.staleBackgroundTaskWarningAge {
            var t = 0
            while let warning = backgroundTasks.staleTaskWarning(app, from: &t, now: now, age: age) { log(app, warning) }
        }
        scheduleBudgetTimers(app)
    }

    mutating func closeBackgroundWindow(_ app: AppID) {
        backgroundTasks.closeWindow(app)
    }

    /// The window's expiration warning, if the controller has not had it scheduled yet.
    mutating func scheduleBudgetTimers(_ app: AppID) {
        guard let warning = backgroundTasks.budgetWarning(app, epoch: apps[Int(app.index)].epoch, now: now,
                                                          leadTime: profile.expirationLeadTime) else { return }
        queue.push(warning.event, at: warning.at)
    }

    /// The warning came (its ticket outstanding): the deadline is queued, and
    /// each assertion the controller says is owed its expiration has it —
    /// a task's expiration handler, an activity's block called again.
    mutating func expirationWarningFired(_ app: AppID, _ ticket: Ticket) {
        let i = Int(app.index)
        guard let deadline = backgroundTasks.budgetDeadline(app, ticket, now: now) else { return }
        queue.push(deadline.event, at: deadline.at)
        var t = 0
        while let task = backgroundTasks.expirationDue(app, from: &t) {
            if task.isExpiringActivity {
                record(app, .activityExpire(id: task.id, name: task.nameText, reason: text(
                    "the background time is about to run out: the block is called again with expired = true")))
                apps[i].jobs.append(.expiringActivityExpired(task.id))
                continue
            }
            apps[i].stats.backgroundTasksExpired += 1
            record(app, .bgtaskExpire(id: task.id, name: task.nameText))
            apps[i].jobs.append(.expirationHandler(task.id))
        }
        pump(app)
    }

    /// The deadline came (its ticket outstanding): what is still open ends the app.
    mutating func budgetDeadlineFired(_ app: AppID) {
        switch backgroundTasks.budgetTimeout(app, budget: profile.backgroundTaskBudget) {
        case nil:
            return
        case let .task(name):
            // The words are made once per name: the same few recur.
            if budgetTimeoutDetails[name] == nil {
                budgetTimeoutDetails[name] = text(backgroundTasks.onlyTaskTimeoutDetail(app, budget: profile.backgroundTaskBudget))
            }
            terminate(app, .backgroundTaskTimeout, detailText: budgetTimeoutDetails[name])
        case let .several(detail):
            terminate(app, .backgroundTaskTimeout, detail: detail)
        }
    }
}
