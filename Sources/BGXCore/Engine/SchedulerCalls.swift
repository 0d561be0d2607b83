/// The scheduler's public calls (rules §5, §6): each takes its input, asks
/// `SchedulerController` or `TaskSchedulerController`, and carries out what
/// it answers. What decides is in the controllers (Scheduler/).
extension Engine {
    /// The scheduler controller's state for the app now.
    public func schedulerControllerDump(of app: AppID) -> SchedulerControllerDump {
        scheduler.dump(of: app, now: now) { text($0) }
    }

    /// The task scheduler controller's state for the app now.
    public func taskSchedulerDump(of app: AppID) -> TaskSchedulerDump {
        taskScheduler.dump(of: app, epoch: apps[Int(app.index)].epoch,
                           expirationLeadTime: schedulerSettings.taskExpirationLeadTime) { text($0) }
    }

    /// The app's fetch standing, for `explain` and tests.
    public func fetchReputation(of app: AppID) -> Double { scheduler.fetchReputation(of: app) }

    /// Time the app has spent awake in the background today, launched for
    /// refresh or fetch work (EnergyBudgetPolicy's count), the current stretch included.
    public func backgroundEnergyUsedToday(of app: AppID) -> Nanoseconds {
        scheduler.energyUsedToday(of: app, now: now)
    }

    /// `bgx explain --app`: the app's background-fetch standing and why
    /// (the scheduler controller's dump in words). Empty for an app that
    /// never asked for fetches.
    public func explainFetch(app: AppID) -> String {
        schedulerControllerDump(of: app).explainSection(app: bundleIdentifier(app), at: Time.wallClock(wall(now), seconds: true)) {
            Time.wallClock(wall($0), seconds: true)
        }?.text ?? ""
    }
}

// MARK: BGTaskScheduler (rules §5): registration, submission, the tasks' run and expiry, the debug controls

extension Engine {
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
        guard let registered = taskScheduler.register(app, text(identifier), onMain: queue == .main) else {
            terminate(app, .launchHandlerRegisteredTwice,
                      detail: "NSInternalInconsistencyException: Launch handler for task with identifier "
                        + "\(identifier) has already been registered")
            return false
        }
        apply(registered)
        return true
    }

    /// `submit(_:)`: synchronous, throws like iOS. Resubmitting an identifier
    /// replaces its pending request. The app's declarations are checked here
    /// (they are the process table's and the launch policy's); the pending
    /// requests are the scheduler's.
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
            apply(scheduler.rejected(app, id, error, why, now: now))
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
        switch scheduler.submit(app, id, request, now: now, runsTask: taskScheduler.holdsApp(app)) {
        case let .accepted(submitted):
            apply(submitted)
        case let .rejected(error, rejection):
            apply(rejection)
            throw error
        }
    }

    public mutating func cancelTask(for app: AppID, identifier: String) {
        if let cancelled = scheduler.cancel(app, text(identifier), now: now, runsTask: taskScheduler.holdsApp(app)) {
            apply(cancelled)
        }
    }

    public mutating func cancelAllTasks(for app: AppID) {
        apply(scheduler.cancelAll(app, runsTask: taskScheduler.holdsApp(app)))
    }

    /// `getPendingTaskRequests`.
    public func pendingTaskRequests(for app: AppID) -> [TaskRequestSpec] {
        scheduler.pendingTasks.serials(of: app).map { scheduler.pendingTasks[$0].request }
    }

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
            scheduler.tasksLost(app, tasks, now: now)
            return
        }
        let why = simulated ? text("_simulateLaunchForTaskWithIdentifier") : reason ?? text("")
        apps[i].stats.scheduledTasksStarted += tasks.count
        scheduler.tasksStarted(app, tasks, why: why, simulated: simulated, now: now)
        taskScheduler.start(tasks, for: app, why: why, simulated: simulated, now: now, epoch: apps[i].epoch,
                            budget: budget, leadTime: schedulerSettings.taskExpirationLeadTime, &hookEffects.effects)
        carryOutHookEffects()
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
        let id = text(identifier)
        guard let kind = taskScheduler.complete(app, id, &hookEffects.effects) else {
            log(app, "BGTaskScheduler: setTaskCompleted called for \(identifier), which is not running")
            return
        }
        hookEffects.effects.append(scheduler.taskCompleted(app, id, kind, success: success, now: now))
        if kind == .continuedProcessing {
            carryOutHookEffects()
            continuedTaskEnded(app, id)
            suspendIfThreadFree(app)
            return
        }
        taskScheduler.closeBudgetIfDone(app, &hookEffects.effects)
        carryOutHookEffects()
    }

    /// The budget's expiry (its ticket is outstanding: the budget is the one it was queued for).
    mutating func taskExpiryFired(_ app: AppID, _ ticket: Ticket) {
        apps[Int(app.index)].stats.scheduledTasksExpired += taskScheduler.budgetExpiring(app, ticket, now: now,
                                                                                         &hookEffects.effects)
        carryOutHookEffects()
    }

    /// The budget's deadline (its ticket is outstanding): a task not completed ends the app.
    mutating func taskDeadlineFired(_ app: AppID) {
        guard let tasks = taskScheduler.deadlinePassed(app) else { return }
        scheduler.tasksNeverCompleted(app, tasks, now: now)
        terminate(app, .taskNotCompleted,
                  detail: "setTaskCompleted(success:) was not called for "
                    + tasks.map { text($0.identifier) }.joined(separator: ", ") + " before its time ran out")
    }

    /// A processing task is expired when the person starts using the device (rules §5).
    mutating func expireProcessingTasksForDeviceUse() {
        // A pass over every app at every unlock, unless no processing task has ever run.
        guard scheduler.processingTaskHasRun else { return }
        // Only a process runs tasks: the resident apps, in index order.
        for index in residentApps.sorted() where taskScheduler.runsUnexpiredProcessing(AppID(index: index)) {
            expireTasksNow(AppID(index: index), because: "the user started using the device")
        }
    }

    /// Expiration handlers run now; the app has the lead time to complete.
    mutating func expireTasksNow(_ app: AppID, because why: String) {
        let i = Int(app.index)
        apps[i].stats.scheduledTasksExpired += taskScheduler.expireNow(
            app, because: why, now: now, epoch: apps[i].epoch, leadTime: schedulerSettings.taskExpirationLeadTime,
            &hookEffects.effects)
        carryOutHookEffects()
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

    /// `_simulateLaunchForTaskWithIdentifier`: starts a pending task now,
    /// whatever the scheduler would say.
    public mutating func simulateLaunch(for app: AppID, identifier: String) -> Bool {
        guard let r = scheduler.pendingTasks.serial(of: app, text(identifier)) else {
            log(app, "_simulateLaunchForTaskWithIdentifier: no pending request for \(identifier)")
            return false
        }
        start([scheduler.take(r)], for: app, simulated: true)
        return true
    }

    /// `_simulateExpirationForTaskWithIdentifier`: expires a running task now.
    public mutating func simulateExpiration(for app: AppID, identifier: String) -> Bool {
        guard taskScheduler.isRunningUnexpired(app, text(identifier)) else {
            log(app, "_simulateExpirationForTaskWithIdentifier: \(identifier) is not running")
            return false
        }
        expireTasksNow(app, because: "_simulateExpirationForTaskWithIdentifier")
        return true
    }

    /// A request's event, kept in the scheduler's history for `explain`.
    mutating func noteTaskHistory(_ app: AppID, _ id: TextID, _ what: String) {
        scheduler.noteHistory(app, id, what, now: now)
    }

    // MARK: Background fetch (rules §6)

    /// nil is `UIApplicationBackgroundFetchIntervalNever`.
    public mutating func setMinimumBackgroundFetchInterval(for app: AppID, _ interval: Nanoseconds?) {
        let declaresFetch = apps[Int(app.index)].manifest.backgroundModes.contains(.fetch)
        if let warning = scheduler.setMinimumFetchInterval(app, interval, declaresFetch: declaresFetch) { apply(warning) }
    }

    /// The fetch completion handler.
    public mutating func completeFetch(for app: AppID, result: BackgroundFetchResult) {
        scheduler.completeFetch(app, result, now: now, inBackground: apps[Int(app.index)].state == .background,
                                &hookEffects.effects)
        carryOutHookEffects()
    }
}

// MARK: The scheduler's judgement (rules §6), asked of the controller with the engine's facts

extension Engine: SchedulingFacts {
    @inline(__always) func isForeground(_ app: AppID) -> Bool { apps[Int(app.index)].state.isForeground }
    @inline(__always) func processingTasksRunning(_ app: AppID) -> Int { taskScheduler.processingTasksRunning(app) }
}

extension Engine {
    var schedulerSettings: SchedulerSettings { profile.scheduler }

    /// `1d 08:15` in the scenario's wall-clock time.
    public func clockText(_ t: Nanoseconds) -> String { Time.wallClock(wall(t)) }
    /// A run's moment as the scenario writes it: `0d 23:30`, with seconds
    /// only when they are not zero (`0d 17:50:25`).
    public func momentText(_ t: Nanoseconds) -> String { Time.wallClock(wall(t), seconds: t % Time.seconds(60) != 0) }

    /// All policies for one candidate and the decision they add up to (`SchedulerController.decide`).
    @inline(__always) func decide(_ c: Candidate) -> Judgement { scheduler.decide(c, self) }

    /// One policy's answer, with its rationale when `detailed` (for `explain`).
    func evaluate(_ policy: SchedulingPolicy, _ c: Candidate, detailed: Bool = true) -> PolicyOutcome {
        scheduler.evaluate(policy, c, self, detailed: detailed)
    }

    /// The decision as a value, with the deciding policy's rationale. Ask before anything changes.
    @inline(__always) func decision(_ j: Judgement, _ c: Candidate) -> DecisionWords { scheduler.decision(j, c, self) }

    /// ThunderingHerdPolicy's hold now, if any (pushes ask it too).
    func thunderingHerd() -> (words: Rationale, until: Nanoseconds)? { scheduler.thunderingHerd(self) }

    /// MemoryPressurePolicy and FileProtectionPolicy, for tasks and pushes alike.
    @inline(__always) func memoryPressureAnswer() -> (verdict: PolicyVerdict, words: Rationale) {
        SchedulerController.memoryPressureAnswer(device)
    }
    @inline(__always) func fileProtectionAnswer() -> (verdict: PolicyVerdict, words: Rationale) {
        SchedulerController.fileProtectionAnswer(device)
    }

    /// `0.79`, `1.0`: the score as a rationale shows it (truncated, as before),
    /// without formatting a Double.
    static func twoDecimals(_ v: Double) -> String {
        let hundredths = Int(v * 100)
        let whole = hundredths / 100, rest = hundredths % 100
        if rest == 0 { return "\(whole).0" }
        return rest % 10 == 0 ? "\(whole).\(rest / 10)" : (rest < 10 ? "\(whole).0\(rest)" : "\(whole).\(rest)")
    }

    /// `0.91`: a threshold rounded to two decimals (the threshold moves, so it is rarely round).
    static func rounded(_ v: Double) -> String {
        let hundredths = Int((v * 100).rounded())
        return twoDecimals(Double(hundredths) / 100 + 0.000_001)
    }
}
