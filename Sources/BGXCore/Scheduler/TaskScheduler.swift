/// rules §5: BGTaskScheduler — registration, submission, the tasks' run and
/// expiry, and the debug controls. The decision of *when* is the
/// scheduler's (SchedulerLoop.swift).
extension Engine {

    // MARK: Registration

    /// `register(forTaskWithIdentifier:using:launchHandler:)`. Returns false
    /// for an identifier not in `BGTaskSchedulerPermittedIdentifiers`; kills the
    /// app when called after launch finished or twice for one identifier.
    /// The handler runs on `queue`: the background serial queue for `using: nil` [D].
    public mutating func registerTask(for app: AppID, identifier: String, queue: ExecutionQueue = .background) -> Bool {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return false }
        if taskScheduler.launchFinished(app, epoch: apps[i].epoch) {
            terminate(app, .registrationAfterLaunch,
                      detail: "NSInternalInconsistencyException: All launch handlers must be registered before "
                        + "application finishes launching (\(identifier))")
            return false
        }
        guard apps[i].manifest.permittedTaskIdentifiers.contains(identifier) else {
            log(app, "BGTaskScheduler: \(identifier) is not in BGTaskSchedulerPermittedIdentifiers; register returns false")
            return false
        }
        let id = text(identifier)
        guard taskScheduler.register(app, id, onMain: queue == .main) else {
            terminate(app, .launchHandlerRegisteredTwice,
                      detail: "NSInternalInconsistencyException: Launch handler for task with identifier "
                        + "\(identifier) has already been registered")
            return false
        }
        record(app, .taskRegister(identifier: id))
        return true
    }

    // MARK: Submission

    /// `submit(_:)`: synchronous, throws like iOS. Resubmitting an identifier
    /// replaces its pending request.
    public mutating func submitTask(for submitter: AppID, _ request: TaskRequestSpec) throws(BGTaskSchedulerError) {
        // An extension submits for its containing app, which the task launches.
        let app = apps[Int(submitter.index)].manifest.extensionOf.flatMap { self.app(named: $0) } ?? submitter
        let fromExtension = app != submitter
        if fromExtension {
            log(submitter, "BGTaskScheduler: \(request.identifier) submitted for the containing app "
                + bundleIdentifier(app))
        }
        let i = Int(app.index)
        let id = text(request.identifier)
        func reject(_ error: BGTaskSchedulerError, _ why: String) -> BGTaskSchedulerError {
            record(app, .taskReject(identifier: id, error: error, reason: text(why)))
            noteTaskHistory(app, id, "rejected: \(error) — \(why)")
            return error
        }
        if let refusal = launchRule(.backgroundAppRefresh, app, cause: .bgTask) {
            throw reject(.unavailable, refusal.reason)
        }
        guard let mode = request.kind.requiredMode else {
            throw reject(.notPermitted, "a continued-processing request is a BGContinuedProcessingTaskRequest, "
                         + "with a title and subtitle")
        }
        if !apps[i].manifest.backgroundModes.contains(mode) {
            throw reject(.notPermitted, "UIBackgroundModes lacks '\(mode.rawValue)'")
        }
        if !apps[i].manifest.permittedTaskIdentifiers.contains(request.identifier) {
            throw reject(.notPermitted, "\(request.identifier) is not in BGTaskSchedulerPermittedIdentifiers")
        }
        if !fromExtension && apps[i].state.isRunning && !taskScheduler.isRegistered(app, id) {
            terminate(app, .noLaunchHandler,
                      detail: "NSInternalInconsistencyException: No launch handler registered for task with "
                        + "identifier \(request.identifier)")
            return
        }
        let replacing = scheduler.pendingTasks.serial(of: app, id)
        var sameKind = 0
        for p in scheduler.pendingTasks.serials(of: app) where scheduler.pendingTasks[p].request.kind == request.kind
            && scheduler.pendingTasks[p].identifier != id { sameKind += 1 }
        let limit = request.kind == .appRefresh ? schedulerSettings.maxPendingAppRefresh : schedulerSettings.maxPendingProcessing
        if sameKind >= limit {
            throw reject(.tooManyPendingTaskRequests,
                         "\(sameKind) \(request.kind) request(s) already pending (at most \(limit))")
        }
        var pending = PendingTask(app: app, identifier: id, request: request, submittedAt: now)
        if let r = replacing {
            scheduler.pendingTasks.replace(r, with: pending)
            record(app, .taskSubmit(identifier: id, kind: request.kind, replaced: true))
        } else {
            pending.request = request
            scheduler.pendingTasks.append(pending)
            record(app, .taskSubmit(identifier: id, kind: request.kind, replaced: false))
        }
        // Words when the history is read: a submission is made on nearly every trip to the background.
        let event = switch request.kind {
        case .appRefresh: "submitted (appRefresh)"
        case .processing: "submitted (processing)"
        case .continuedProcessing: "submitted (continuedProcessing)"
        }
        scheduler.noteHistory(TaskHistoryEntry(time: now, app: app, identifier: id, event: event, detail: nil,
                                            earliest: request.earliestBegin))
        markSchedulerDirty(for: app)
    }

    public mutating func cancelTask(for app: AppID, identifier: String) {
        let id = text(identifier)
        guard let r = scheduler.pendingTasks.serial(of: app, id) else { return }
        scheduler.pendingTasks.remove(r)
        record(app, .taskCancel(identifier: id))
        noteTaskHistory(app, id, "cancelled by the app")
        markSchedulerDirty(for: app)
    }

    public mutating func cancelAllTasks(for app: AppID) {
        for p in scheduler.pendingTasks.removeAll(of: app) { record(app, .taskCancel(identifier: p.identifier)) }
        markSchedulerDirty(for: app)
    }

    /// `getPendingTaskRequests`.
    public func pendingTaskRequests(for app: AppID) -> [TaskRequestSpec] {
        scheduler.pendingTasks.serials(of: app).map { scheduler.pendingTasks[$0].request }
    }

    // MARK: Running tasks

    /// Hands tasks to an app: launches it into the background, resumes it,
    /// or delivers to it where it runs. All tasks of one launch share one
    /// budget (rules §5).
    mutating func start(_ tasks: [PendingTask], for app: AppID, simulated: Bool = false, reason: TextID? = nil) {
        let i = Int(app.index)
        guard !tasks.isEmpty else { return }
        if apps[i].state.isForeground { return }
        let budget = tasks.contains { $0.request.kind == .processing }
            ? schedulerSettings.processingBudget : schedulerSettings.appRefreshBudget
        guard wakeForBackgroundWork(app, cause: .bgTask) else {
            // The launch died (its terminate is in the trace); the tasks went with it.
            for task in tasks {
                noteTaskHistory(app, task.identifier, "lost: the app was terminated as it was launched for it")
            }
            return
        }
        if let window = taskScheduler.openBudget(app, deadline: now + budget) {
            queue.push(.taskExpiry(app, ticket(app, window)),
                       at: now + budget - schedulerSettings.taskExpirationLeadTime)
        }
        if !simulated { scheduler.apps[i].lastBackgroundLaunch = now }
        for task in tasks {
            if task.request.kind == .processing { scheduler.processingTaskHasRun = true }
            taskScheduler.started(app, RunningTask(identifier: task.identifier, kind: task.request.kind, started: now,
                                                   requiresExternalPower: task.request.requiresExternalPower,
                                                   simulated: simulated))
            setAssertion(.scheduledTask, true, i)
            let why = simulated ? text("_simulateLaunchForTaskWithIdentifier") : reason ?? text("")
            apps[i].stats.scheduledTasksStarted += 1
            record(app, .taskStart(identifier: task.identifier, reason: why))
            noteTaskHistory(app, task.identifier, event: "started", detail: why)
            apps[i].jobs.append(.bgTask(task.identifier))
        }
        pump(app)
    }

    /// The identifier a task's launch handler is registered under: itself,
    /// or the wildcard permitted identifier it falls under (continued
    /// processing registers `com.example.export.*`); nil when neither is
    /// registered. The one lookup of a handler: where it runs, whether it
    /// exists and which scenario handler answers all ask this.
    func registeredHandler(of app: AppID, _ identifier: TextID) -> TextID? {
        if taskScheduler.isRegistered(app, identifier) { return identifier }
        guard let wildcard = wildcardIdentifier(of: app, matching: text(identifier)),
              let index = texts.index[wildcard] else { return nil }
        let id = TextID(index: Int32(index))
        return taskScheduler.isRegistered(app, id) ? id : nil
    }

    /// The identifier a running task's launch handler was registered under:
    /// itself, or the wildcard it falls under (continued processing).
    public func launchHandlerIdentifier(for app: AppID, identifier: String) -> String {
        guard let index = texts.index[identifier] else { return identifier }
        return registeredHandler(of: app, TextID(index: Int32(index))).map { text($0) } ?? identifier
    }

    /// The kind of a task running in the app, if it runs.

    public func runningTaskKind(for app: AppID, identifier: String) -> BGTaskKind? {
        guard let id = texts.index[identifier] else { return nil }
        return taskScheduler.runningTask(app, TextID(index: id))?.kind
    }

    /// `task.expirationHandler = …` (set or cleared).
    public mutating func setTaskExpirationHandler(for app: AppID, identifier: String, isSet: Bool) {
        taskScheduler.setExpirationHandler(app, text(identifier), isSet)
    }

    /// `setTaskCompleted(success:)`.
    public mutating func completeTask(for app: AppID, identifier: String, success: Bool) {
        let i = Int(app.index)
        let id = text(identifier)
        guard let kind = taskScheduler.complete(app, id) else {
            log(app, "BGTaskScheduler: setTaskCompleted called for \(identifier), which is not running")
            return
        }
        setAssertion(.scheduledTask, taskScheduler.holdsApp(app), i)
        if kind == .processing { scheduler.apps[i].lastProcessingEnd = ProcessingEnd(time: now, success: success) }
        record(app, .taskComplete(identifier: id, success: success))
        noteTaskHistory(app, id, "completed, success \(success)")
        if kind == .continuedProcessing {
            continuedTaskEnded(app, id)
            suspendIfThreadFree(app)
            return
        }
        if success && scheduler.apps[i].penalties > 0 { scheduler.apps[i].penalties -= 1 }
        finishTaskWindowIfDone(app)
    }

    mutating func finishTaskWindowIfDone(_ app: AppID) {
        // A continued-processing task has no window (rules §13: no fixed time limit).
        guard taskScheduler.closeBudgetIfDone(app) else { return }
        markSchedulerDirty(for: app)
        suspendIfThreadFree(app)
    }

    /// The budget's expiry (its ticket is outstanding: the budget is the one it was queued for).
    mutating func taskExpiryFired(_ app: AppID, _ ticket: Ticket) {
        guard let deadline = taskScheduler.apps[Int(app.index)].deadline else { return }
        queue.push(.taskDeadline(app, ticket), at: max(now, deadline))
        expireRunningTasks(app, because: "its time is running out")
    }

    mutating func expireRunningTasks(_ app: AppID, because why: String) {
        let i = Int(app.index)
        for task in taskScheduler.apps[i].running where !task.expired && task.kind != .continuedProcessing {
            guard taskScheduler.expire(app, task.identifier, completing: !task.hasExpirationHandler) else { continue }
            apps[i].stats.scheduledTasksExpired += 1
            record(app, .taskExpire(identifier: task.identifier))
            noteTaskHistory(app, task.identifier, "expired: \(why)")
            if task.hasExpirationHandler {
                apps[i].jobs.append(.bgTaskExpired(task.identifier))
            } else {
                // No handler set: the task is marked complete, unsuccessful [D] (`expire` removed it).
                setAssertion(.scheduledTask, taskScheduler.holdsApp(app), i)
                if task.kind == .processing { scheduler.apps[i].lastProcessingEnd = ProcessingEnd(time: now, success: false) }
                record(app, .taskComplete(identifier: task.identifier, success: false))
                noteTaskHistory(app, task.identifier, "completed unsuccessfully at expiry: no expiration handler set")
            }
        }
        finishTaskWindowIfDone(app)
        pump(app)
    }

    /// The budget's deadline (its ticket is outstanding): a task not completed ends the app.
    mutating func taskDeadlineFired(_ app: AppID) {
        let i = Int(app.index)
        let tasks = taskScheduler.apps[i]
        guard tasks.runsBudgetedTask else { return }
        let windowed = tasks.running.filter { $0.kind != .continuedProcessing }
        let names = windowed.map { text($0.identifier) }.joined(separator: ", ")
        for task in windowed where !task.simulated {
            noteTaskHistory(app, task.identifier, "never completed: the app was killed and will be launched less often")
        }
        scheduler.apps[i].penalties += 1
        if tasks.running.contains(where: { $0.kind == .processing }) { scheduler.apps[i].lastProcessingEnd = ProcessingEnd(time: now, success: false) }
        terminate(app, .taskNotCompleted,
                  detail: "setTaskCompleted(success:) was not called for \(names) before its time ran out")
    }

    /// A processing task is expired when the person starts using the device (rules §5).
    mutating func expireProcessingTasksForDeviceUse() {
        // A pass over every app at every unlock, unless no processing task has ever run.
        guard scheduler.processingTaskHasRun else { return }
        // Only a process runs tasks: the resident apps, in index order.
        for index in residentApps.sorted()
        where taskScheduler.apps[Int(index)].running.contains(where: { $0.kind == .processing && !$0.expired }) {
            expireTasksNow(AppID(index: index), because: "the user started using the device")
        }
    }

    /// Expiration handlers run now; the app has the lead time to complete.
    mutating func expireTasksNow(_ app: AppID, because why: String) {
        let deadline = now + schedulerSettings.taskExpirationLeadTime
        let window = taskScheduler.cutBudget(app, to: deadline)
        queue.push(.taskDeadline(app, ticket(app, window)), at: deadline)
        expireRunningTasks(app, because: why)
    }

    /// Launches, resumes or leaves running an app the scheduler hands work
    /// to (a task or a fetch), and charges the launch to its budgets. The
    /// scheduler has asked the launch policy (`launchVerdict`, rules §11)
    /// before it gets here; only the debugger's simulated launch does not.
    /// Returns false when the launch was killed at once (see `wakeIntoBackground`).
    mutating func wakeForBackgroundWork(_ app: AppID, cause: LaunchCause) -> Bool {
        guard wakeIntoBackground(app, cause: cause) else { return false }
        scheduler.wokeForBackgroundWork(app, now: now, cellular: device.network == .cellular, wallClockOffset: wallClockOffset)
        return true
    }

    // MARK: Debug controls (rules §5: first-class test API)

    /// `_simulateLaunchForTaskWithIdentifier`: starts a pending task now,
    /// whatever the scheduler would say.
    public mutating func simulateLaunch(for app: AppID, identifier: String) -> Bool {
        let id = text(identifier)
        guard let r = scheduler.pendingTasks.serial(of: app, id) else {
            log(app, "_simulateLaunchForTaskWithIdentifier: no pending request for \(identifier)")
            return false
        }
        let task = scheduler.pendingTasks.remove(r)
        start([task], for: app, simulated: true)
        return true
    }

    /// `_simulateExpirationForTaskWithIdentifier`: expires a running task now.
    public mutating func simulateExpiration(for app: AppID, identifier: String) -> Bool {
        let id = text(identifier)
        guard taskScheduler.isRunningUnexpired(app, id) else {
            log(app, "_simulateExpirationForTaskWithIdentifier: \(identifier) is not running")
            return false
        }
        expireTasksNow(app, because: "_simulateExpirationForTaskWithIdentifier")
        return true
    }

    // MARK: History for `explain`

    mutating func noteTaskHistory(_ app: AppID, _ id: TextID, _ what: String) {
        noteTaskHistory(app, id, event: what, detail: nil)
    }

    /// `event: detail`, joined only when the history is read (a decision's
    /// words are written then).
    mutating func noteTaskHistory(_ app: AppID, _ id: TextID, event: String, detail: TextID?) {
        scheduler.noteHistory(TaskHistoryEntry(time: now, app: app, identifier: id, event: event, detail: detail, earliest: nil))
    }
}

struct TaskHistoryEntry: Sendable, Codable {
    var time: Nanoseconds
    var app: AppID
    var identifier: TextID
    var event: String
    var detail: TextID?
    /// A submission's earliest begin date, said after the event.
    var earliest: Nanoseconds?
}

extension Engine {
    /// A history entry in words.
    func words(of entry: TaskHistoryEntry) -> String {
        let said = entry.detail.map { "\(entry.event): \(text($0))" } ?? entry.event
        return entry.earliest.map { said + " earliest \(clockText($0))" } ?? said
    }
}
