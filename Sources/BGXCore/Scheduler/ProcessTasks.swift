/// One process's side of BGTaskScheduler (rules §5, §13), kept by the task
/// scheduler controller: the launch handlers it registered, the tasks it was
/// handed and has not completed, and their launch's shared budget. It all
/// ends with the process. Each change is one mutating call, so the
/// controller touches its `apps` array once per change.
struct ProcessTasks: Sendable, Codable {
    /// Identifiers with a launch handler in this process.
    var registered: Set<TextID> = []
    /// Of those, the ones registered with the main queue (the rest run on the background queue).
    var onMain: Set<TextID> = []
    /// The process (by its epoch) in which `didFinishLaunching` returned:
    /// registering is over in that process. Kept as the epoch, so that a
    /// process's end need not clear it: the next process has another epoch,
    /// and a process that only launched has nothing to drop at its end
    /// (clearing a flag at every end cost about 4 instructions per engine
    /// event, `bgx bench`, callgrind).
    var launchFinishedIn: UInt32?
    /// Tasks handed to the app and not yet completed, in the order they started.
    var running: [RunningTask] = []
    /// When the launch's shared budget runs out (rules §5: per launch, not
    /// per task); nil with no refresh or processing task running.
    var deadline: Nanoseconds?
    /// Bumped as a budget opens, is cut short or closes: its expiry and
    /// deadline carry it in their ticket.
    var budgetNumber: UInt32 = 0

    // `@inline(__always)` as in the rest of Scheduler/: these came after the folder was measured
    // (docs/architecture.md, "Speed"), and are not measured on their own.
    /// Whether a task of that identifier is running.
    @inline(__always) func isRunning(_ id: TextID) -> Bool {
        for t in running.indices where running[t].identifier == id { return true }
        return false
    }

    /// Whether a refresh or processing task runs: continued processing has
    /// no budget (rules §13: no fixed time limit).
    @inline(__always) var runsBudgetedTask: Bool {
        for t in running.indices where running[t].kind != .continuedProcessing { return true }
        return false
    }

    /// Registers a launch handler: false if one is registered for the identifier already.
    mutating func register(_ id: TextID, onMain: Bool) -> Bool {
        guard registered.insert(id).inserted else { return false }
        if onMain { self.onMain.insert(id) }
        return true
    }

    /// Opens the launch's budget if none is open; returns its number then.
    @inline(__always) mutating func openBudget(deadline: Nanoseconds) -> UInt32? {
        guard self.deadline == nil else { return nil }
        budgetNumber &+= 1
        self.deadline = deadline
        return budgetNumber
    }

    /// Cuts the budget short to `deadline` (the tasks are being expired now); returns its number.
    mutating func cutBudget(to deadline: Nanoseconds) -> UInt32 {
        budgetNumber &+= 1
        self.deadline = deadline
        return budgetNumber
    }

    /// Closes the budget once no budgeted task runs; false while one does.
    mutating func closeBudgetIfDone() -> Bool {
        guard !runsBudgetedTask else { return false }
        deadline = nil
        budgetNumber &+= 1
        return true
    }

    /// `setTaskCompleted`: the task leaves; its kind, nil if it was not running.
    mutating func complete(_ id: TextID) -> BGTaskKind? {
        guard let t = running.firstIndex(where: { $0.identifier == id }) else { return nil }
        return running.remove(at: t).kind
    }

    /// The task's time is up: marked expired and, when `completing` (no
    /// expiration handler set: it is completed, unsuccessfully [D]), gone.
    /// False if it is not running.
    mutating func expire(_ id: TextID, completing: Bool) -> Bool {
        guard let t = running.firstIndex(where: { $0.identifier == id }) else { return false }
        if completing { running.remove(at: t) } else { running[t].expired = true }
        return true
    }

    /// Whether a task of that identifier runs and has not been expired.
    func isRunningUnexpired(_ id: TextID) -> Bool {
        running.first { $0.identifier == id }.map { !$0.expired } ?? false
    }

    /// `task.expirationHandler = …` (set or cleared) of a running task.
    mutating func setExpirationHandler(_ id: TextID, _ isSet: Bool) {
        if let t = running.firstIndex(where: { $0.identifier == id }) { running[t].hasExpirationHandler = isSet }
    }

    /// Whether the process holds anything of this concern (its end then has something to drop).
    @inline(__always) var holdsSomething: Bool {
        !registered.isEmpty || !running.isEmpty || deadline != nil
    }

    /// The process ended: its registrations, tasks and budget go with it.
    /// Storage is kept for the next launch. (The budget's tickets go stale
    /// with the epoch; the number moves on too.) Inlined: nearly every
    /// process has finished launching, so nearly every end comes here.
    @inline(__always) mutating func processEnded() {
        if !registered.isEmpty { registered.removeAll(keepingCapacity: true) }
        if !onMain.isEmpty { onMain.removeAll(keepingCapacity: true) }
        running.clearKeepingCapacity()
        deadline = nil
        budgetNumber &+= 1
    }
}
