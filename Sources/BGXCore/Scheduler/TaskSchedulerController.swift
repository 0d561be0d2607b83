/// rules §5's BGTaskScheduler in each process: the launch handlers the app
/// registered, the tasks handed to it and not yet completed, and the
/// launch's shared budget those tasks run in. When a task runs is the
/// scheduler's decision (`SchedulerController`, which outlives processes);
/// what a process holds of tasks is this controller's, and ends with it.
/// It takes what it is told and answers; the engine records the trace,
/// queues the budget's expiry and deadline, and sets the `.scheduledTask`
/// reason of the assertion set from `holdsApp`.
///
/// Every change is one mutating call on the app's `ProcessTasks`, in one
/// access to `apps`; the calls made at every launch and every process end
/// are inlined (see `BackgroundTaskController`).
struct TaskSchedulerController: Sendable, Codable {
    /// Per app, by `AppID.index`.
    private(set) var apps: [ProcessTasks] = []

    mutating func appInstalled() { apps.append(ProcessTasks()) }

    // MARK: Registration

    // `@inline(__always)` as in the rest of Scheduler/: these came after the folder was measured
    // (docs/architecture.md, "Speed"), and are not measured on their own.
    /// Whether the app registered a launch handler for the identifier in this process.
    @inline(__always) func isRegistered(_ app: AppID, _ id: TextID) -> Bool {
        apps[Int(app.index)].registered.contains(id)
    }

    /// `didFinishLaunching` has returned in the process of this epoch: registering is over there.
    @inline(__always) func launchFinished(_ app: AppID, epoch: UInt32) -> Bool {
        apps[Int(app.index)].launchFinishedIn == epoch
    }

    @inline(__always) mutating func finishLaunching(_ app: AppID, epoch: UInt32) {
        apps[Int(app.index)].launchFinishedIn = epoch
    }

    /// Registers a launch handler: the trace's event, nil if one is registered for the identifier already.
    mutating func register(_ app: AppID, _ id: TextID, onMain: Bool) -> Effect? {
        apps[Int(app.index)].register(id, onMain: onMain) ? .trace(app, .taskRegister(identifier: id)) : nil
    }

    /// Whether the handler was registered with the main queue.
    @inline(__always) func runsOnMain(_ app: AppID, _ handler: TextID) -> Bool {
        apps[Int(app.index)].onMain.contains(handler)
    }

    // MARK: Running tasks

    /// Whether a task runs in the app (the `.scheduledTask` reason of its assertion set).
    @inline(__always) func holdsApp(_ app: AppID) -> Bool { !apps[Int(app.index)].running.isEmpty }

    /// Whether a task of that identifier runs in the app.
    @inline(__always) func isRunning(_ app: AppID, _ id: TextID) -> Bool { apps[Int(app.index)].isRunning(id) }

    /// Whether a task of that identifier runs in the app and has not been expired.
    func isRunningUnexpired(_ app: AppID, _ id: TextID) -> Bool {
        apps[Int(app.index)].running.contains { $0.identifier == id && !$0.expired }
    }

    /// The running task of that identifier, if any.
    func runningTask(_ app: AppID, _ id: TextID) -> RunningTask? {
        apps[Int(app.index)].running.first { $0.identifier == id }
    }

    /// Opens the launch's budget, to run out at `deadline`, if none is open;
    /// returns its number then (the engine queues its expiry).
    @inline(__always) mutating func openBudget(_ app: AppID, deadline: Nanoseconds) -> UInt32? {
        apps[Int(app.index)].openBudget(deadline: deadline)
    }

    /// The task was handed to the app.
    @inline(__always) mutating func started(_ app: AppID, _ task: RunningTask) {
        apps[Int(app.index)].running.append(task)
    }

    /// `task.expirationHandler = …` (set or cleared).
    mutating func setExpirationHandler(_ app: AppID, _ id: TextID, _ isSet: Bool) {
        apps[Int(app.index)].setExpirationHandler(id, isSet)
    }

    /// `setTaskCompleted`: the task leaves the app; its kind, nil if it was not running.
    mutating func complete(_ app: AppID, _ id: TextID) -> BGTaskKind? { apps[Int(app.index)].complete(id) }

    /// The task's time is up (see `ProcessTasks.expire`); false if it is not running.
    mutating func expire(_ app: AppID, _ id: TextID, completing: Bool) -> Bool {
        apps[Int(app.index)].expire(id, completing: completing)
    }

    /// Closes the budget once no refresh or processing task runs; false while one does.
    mutating func closeBudgetIfDone(_ app: AppID) -> Bool { apps[Int(app.index)].closeBudgetIfDone() }

    /// Cuts the budget short: the tasks are expired now and have until `deadline`. Returns its number.
    mutating func cutBudget(_ app: AppID, to deadline: Nanoseconds) -> UInt32 {
        apps[Int(app.index)].cutBudget(to: deadline)
    }

    /// The process ended: its registrations, tasks and budget go with it.
    /// A process that holds nothing here (most: they never registered) is
    /// not written, which would check its uniqueness.
    @inline(__always) mutating func processEnded(_ app: AppID) {
        if apps[Int(app.index)].holdsSomething { apps[Int(app.index)].processEnded() }
    }

    // MARK: A launch's tasks (rules §5)

    /// Hands tasks to the app woken for them (its process of `epoch`): the
    /// launch's budget opens if none is (its expiry queued `leadTime` before
    /// it runs out), and each task runs, holds the app, is traced with `why`
    /// and has its launch handler queued; then the app runs what it can.
    mutating func start(_ tasks: [PendingTask], for app: AppID, why: TextID, simulated: Bool, now: Nanoseconds,
                        epoch: UInt32, budget: Nanoseconds, leadTime: Nanoseconds, _ effects: inout [Effect]) {
        if let window = openBudget(app, deadline: now + budget) {
            effects.append(.schedule(.taskExpiry(app, Ticket(epoch: epoch, number: window)), at: now + budget - leadTime))
        }
        for task in tasks {
            started(app, RunningTask(identifier: task.identifier, kind: task.request.kind, started: now,
                                     requiresExternalPower: task.request.requiresExternalPower, simulated: simulated))
            effects.append(.setAssertion(app, .scheduledTask, true))
            effects.append(.trace(app, .taskStart(identifier: task.identifier, reason: why)))
            effects.append(.queueJob(app, .bgTask(task.identifier)))
        }
        effects.append(.pump(app))
    }

    /// `setTaskCompleted(success:)`: the task leaves the app, which it holds
    /// no longer if it was the last; its kind, nil if it was not running.
    mutating func complete(_ app: AppID, _ id: TextID, _ effects: inout [Effect]) -> BGTaskKind? {
        guard let kind = complete(app, id) else { return nil }
        effects.append(.setAssertion(app, .scheduledTask, holdsApp(app)))
        return kind
    }

    /// The budget's expiry came (its ticket is outstanding): the deadline is
    /// queued with the same ticket, and the tasks are expired. Returns how many were.
    mutating func budgetExpiring(_ app: AppID, _ ticket: Ticket, now: Nanoseconds, _ effects: inout [Effect]) -> Int {
        guard let deadline = apps[Int(app.index)].deadline else { return 0 }
        effects.append(.schedule(.taskDeadline(app, ticket), at: max(now, deadline)))
        return expireRunning(app, because: "its time is running out", &effects)
    }

    /// Expiration handlers run now; the app has `leadTime` to complete (its
    /// budget is cut short and the new deadline queued). Returns how many tasks were expired.
    mutating func expireNow(_ app: AppID, because why: String, now: Nanoseconds, epoch: UInt32, leadTime: Nanoseconds,
                            _ effects: inout [Effect]) -> Int {
        let deadline = now + leadTime
        let window = cutBudget(app, to: deadline)
        effects.append(.schedule(.taskDeadline(app, Ticket(epoch: epoch, number: window)), at: deadline))
        return expireRunning(app, because: why, &effects)
    }

    /// Each running task with a budget (not continued processing, which has
    /// none) is expired: its expiration handler is queued, or, with none set,
    /// it is completed unsuccessfully [D]. The budget closes if no task is
    /// left in it, and the app runs what it can. Returns how many were expired.
    private mutating func expireRunning(_ app: AppID, because why: String, _ effects: inout [Effect]) -> Int {
        var expired = 0
        for task in apps[Int(app.index)].running where !task.expired && task.kind != .continuedProcessing {
            guard expire(app, task.identifier, completing: !task.hasExpirationHandler) else { continue }
            expired += 1
            effects.append(.trace(app, .taskExpire(identifier: task.identifier)))
            effects.append(.noteTaskHistory(app, task.identifier, "expired: \(why)"))
            if task.hasExpirationHandler {
                effects.append(.queueJob(app, .bgTaskExpired(task.identifier)))
            } else {
                // No handler set: the task is marked complete, unsuccessful (`expire` removed it).
                effects.append(.setAssertion(app, .scheduledTask, holdsApp(app)))
                if task.kind == .processing { effects.append(.processingTaskEnded(app, success: false)) }
                effects.append(.trace(app, .taskComplete(identifier: task.identifier, success: false)))
                effects.append(.noteTaskHistory(app, task.identifier,
                                                "completed unsuccessfully at expiry: no expiration handler set"))
            }
        }
        closeBudgetIfDone(app, &effects)
        effects.append(.pump(app))
        return expired
    }

    /// Closes the budget once no refresh or processing task runs: the
    /// scheduler may judge the app again, and it may suspend.
    mutating func closeBudgetIfDone(_ app: AppID, _ effects: inout [Effect]) {
        // A continued-processing task has no window (rules §13: no fixed time limit).
        guard closeBudgetIfDone(app) else { return }
        effects.append(.markSchedulerDirty(app))
        effects.append(.suspendIfThreadFree(app))
    }

    /// The budget's deadline came (its ticket is outstanding): the tasks
    /// with a budget still running, which end the app; nil if none runs.
    func deadlinePassed(_ app: AppID) -> [RunningTask]? {
        let tasks = apps[Int(app.index)]
        guard tasks.runsBudgetedTask else { return nil }
        return tasks.running.filter { $0.kind != .continuedProcessing }
    }

    /// Processing tasks running in the app (ActivityGroupPolicy's count).
    @inline(__always) func processingTasksRunning(_ app: AppID) -> Int {
        apps[Int(app.index)].running.reduce(0) { $0 + ($1.kind == .processing ? 1 : 0) }
    }

    /// Whether a processing task runs in the app and has not been expired
    /// (the person's use of the device expires it).
    func runsUnexpiredProcessing(_ app: AppID) -> Bool {
        apps[Int(app.index)].running.contains { $0.kind == .processing && !$0.expired }
    }
}

extension TaskSchedulerController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    /// The process ended: each task it ran is lost (written into the
    /// scheduler's history), and its handlers, tasks and budget go.
    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        let i = Int(app.index)
        guard apps[i].holdsSomething else { return }
        for task in apps[i].running {
            effects.append(.noteTaskHistory(app, task.identifier, "lost: the app was terminated (\(reason)) while it ran"))
        }
        apps[i].processEnded()
    }

    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        holdsApp(app) ? .scheduledTask : []
    }
}
