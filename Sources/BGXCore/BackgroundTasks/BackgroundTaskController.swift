/// rules §2's controller (and §13's `performExpiringActivity`, which holds
/// the app the same way): each app's open background-time assertions and
/// its background-time window. The budget is the app's, counted from
/// entering the background [S][A]; the expiration handlers run
/// `expirationLeadTime` before it ends [D]; a task still open at the end
/// terminates the app (`backgroundTaskTimeout`) [D].
///
/// It takes what it is told — the time, the budget, the app's facts — and
/// decides: whether an assertion may be taken and why not, the window's
/// timers (returned as `BudgetTimer`s for the coordinator to schedule),
/// which expiration handlers are owed, and the words of a budget's kill.
/// The coordinator (`Engine/BackgroundTaskCalls.swift`) records the trace,
/// schedules the timers and suspends the app when nothing holds it; on this
/// hot path the answers are small values, not arrays of effects.
///
/// Every change is one mutating call on the app's `BackgroundTaskState`, in
/// one access to `apps` (field by field, each write checked the array's
/// uniqueness); the calls the engine makes at every task and every
/// background entry are inlined. Out of line, with an array per expiration
/// warning, the controller cost about 128 instructions per engine event
/// (`bgx bench`, callgrind: 2,160 against 2,032); inlined, about 31 (2,035
/// against 2,004), before `begin` read the last name in its own access and
/// a process ending with nothing here stopped writing its record.
struct BackgroundTaskController: Sendable, Codable {
    /// Per app, by `AppID.index`.
    private(set) var apps: [BackgroundTaskState] = []

    mutating func appInstalled() { apps.append(BackgroundTaskState()) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in BackgroundTasks/ (11 of them in this file) cost the engine 69 instructions per event.
    /// Whether the app holds a background-time assertion (the
    /// `.backgroundTask` reason of its assertion set).
    @inline(__always) func holdsApp(_ app: AppID) -> Bool { !apps[Int(app.index)].tasks.isEmpty }

    /// Opens a `beginBackgroundTask` assertion; returns its identifier (1,
    /// 2, … in the process) and its name's text if the app used the name
    /// last (apps reuse a few names); without it, the engine interns the
    /// name and calls `named`.
    @inline(__always) mutating func begin(_ app: AppID, name: String, now: Nanoseconds) -> (id: Int, text: TextID?) {
        apps[Int(app.index)].begin(name: name, now: now)
    }

    /// The name of the assertion just opened, interned: kept for the app's next.
    mutating func named(_ app: AppID, _ name: String, _ text: TextID) { apps[Int(app.index)].named(name, text) }

    /// Opens an assertion; returns its identifier (1, 2, … in the process).
    @inline(__always) mutating func begin(_ app: AppID, name: String, text: TextID, now: Nanoseconds,
                                          expiringActivity: Bool = false) -> Int {
        apps[Int(app.index)].begin(name: name, text: text, now: now, expiringActivity: expiringActivity)
    }

    /// Closes a `beginBackgroundTask` assertion; false if none is open by that identifier.
    @inline(__always) mutating func end(_ app: AppID, _ id: Int) -> Bool {
        apps[Int(app.index)].end(id)
    }

    /// Closes a `performExpiringActivity` assertion; returns its name, nil if none is open by that identifier.
    mutating func endActivity(_ app: AppID, _ id: Int) -> TextID? {
        let i = Int(app.index)
        guard let t = apps[i].tasks.firstIndex(where: { $0.id == id && $0.isExpiringActivity }) else { return nil }
        return apps[i].tasks.remove(at: t).nameText
    }

    /// At the window's expiration warning: the next assertion (from `t`
    /// on) whose expiration handler (or expired call) is now owed, marked as
    /// called; nil when none is. One at a time, so a warning allocates nothing.
    @inline(__always) mutating func expirationDue(_ app: AppID, from t: inout Int) -> ExpirationDue? {
        apps[Int(app.index)].expirationDue(from: &t)
    }

    /// Whether an assertion by that identifier is still open.
    @inline(__always) func isOpen(_ app: AppID, _ id: Int) -> Bool { apps[Int(app.index)].isOpen(id) }

    /// The app entered the background: its budget starts now. Expiration
    /// handlers already called are owed again in the new window.
    @inline(__always) mutating func openWindow(_ app: AppID, now: Nanoseconds, budget: Nanoseconds) {
        apps[Int(app.index)].openWindow(now: now, budget: budget)
    }

    /// The app left the background: its window's timers go stale.
    @inline(__always) mutating func closeWindow(_ app: AppID) {
        if apps[Int(app.index)].window != nil { apps[Int(app.index)].closeWindow() }
    }

    /// Marks the window's timers scheduled; returns the window if they were not yet.
    @inline(__always) mutating func windowNeedingTimers(_ app: AppID) -> BackgroundWindow? {
        apps[Int(app.index)].windowNeedingTimers()
    }

    /// Why no background-time assertion can be taken now, if it cannot
    /// (`beginBackgroundTask` and `performExpiringActivity` alike).
    @inline(__always) func refusal(_ app: AppID, _ facts: AssertionFacts, now: Nanoseconds,
                                   leadTime: Nanoseconds) -> AssertionRefusal? {
        if !facts.running { return .notRunning }
        if !facts.multitasking { return .noMultitasking }
        if facts.exitsOnSuspend { return .exitsOnSuspend }
        if facts.inBackground, windowExpired(app, now: now, leadTime: leadTime) { return .backgroundTimeExpired }
        return nil
    }

    /// The window's first timer, if not yet scheduled: its expiration
    /// warning, `leadTime` before the budget ends. The deadline is queued
    /// when the warning fires: most windows end (their tasks ended) before
    /// either. Its ticket carries the process's `epoch` and the window's number.
    @inline(__always) mutating func budgetWarning(_ app: AppID, epoch: UInt32, now: Nanoseconds,
                                                  leadTime: Nanoseconds) -> BudgetTimer? {
        let i = Int(app.index)
        guard let window = apps[i].windowNeedingTimers() else { return nil }
        return BudgetTimer(event: .expirationWarning(app, Ticket(epoch: epoch, number: apps[i].windowNumber)),
                           at: max(now, window.deadline - leadTime))
    }

    /// The window's expiration warning came due (its ticket outstanding):
    /// its deadline, with the same ticket; nil when no window is open.
    @inline(__always) func budgetDeadline(_ app: AppID, _ ticket: Ticket, now: Nanoseconds) -> BudgetTimer? {
        guard let window = apps[Int(app.index)].window else { return nil }
        return BudgetTimer(event: .budgetDeadline(app, ticket), at: max(now, window.deadline))
    }

    /// The budget's deadline came (its ticket outstanding): what is still
    /// open ends the app; nil when nothing is.
    func budgetTimeout(_ app: AppID, budget: Nanoseconds) -> BudgetTimeout? {
        let i = Int(app.index)
        // Read in place: a copy of the tasks would retain and release them.
        guard !apps[i].tasks.isEmpty else { return nil }
        // Names, not identifiers: the same few texts recur, so the interned
        // table stays small however long the run. With one task open (the
        // usual case) the words are the name's, made once by the coordinator.
        if apps[i].tasks.count == 1, !apps[i].tasks[0].isExpiringActivity { return .task(apps[i].tasks[0].nameText) }
        let open = apps[i].tasks
            .map { ($0.isExpiringActivity ? "expiring activity " : "") + "\"\($0.name)\"" }
            .joined(separator: ", ")
        return .several(Self.timeoutDetail(open, budget: budget))
    }

    /// The words of a budget's kill with the app's one task open (`budgetTimeout`'s `.task`).
    func onlyTaskTimeoutDetail(_ app: AppID, budget: Nanoseconds) -> String {
        Self.timeoutDetail("\"\(apps[Int(app.index)].tasks[0].name)\"", budget: budget)
    }

    static func timeoutDetail(_ open: String, budget: Nanoseconds) -> String {
        "background task \(open) still open when the \(Time.describe(budget)) background budget ran out"
    }

    /// As the window opens: the next `beginBackgroundTask` assertion (from
    /// `t` on) open for `age` or longer, as iOS's console warns of it (iOS
    /// 13 and later); nil when no more is.
    func staleTaskWarning(_ app: AppID, from t: inout Int, now: Nanoseconds, age: Nanoseconds) -> String? {
        let i = Int(app.index)
        // In place: a copy of the tasks would retain and release them at every window.
        while t < apps[i].tasks.count {
            let k = t
            t += 1
            guard now - apps[i].tasks[k].began >= age, !apps[i].tasks[k].isExpiringActivity else { continue }
            let task = apps[i].tasks[k]
            return "Background Task \(task.id) (\"\(task.name)\"), was created over "
                + "\(Time.describe(age)) ago. In applications running in the background, "
                + "this creates a risk of termination. Remember to call "
                + "UIApplication.endBackgroundTask(_:) for your task in a timely manner "
                + "to avoid this."
        }
        return nil
    }

    /// iOS's console line for `endBackgroundTask` with no such task open: it logs it and carries on [O].
    static func unknownTaskEnded(_ id: Int) -> String {
        "Can't end BackgroundTask: no background task exists with identifier \(id), "
            + "or it may have already been ended. "
            + "Break in UIApplicationEndBackgroundTaskError() to debug."
    }

    /// Whether the budget is spent but for the expiration lead time: no new assertion is granted then.
    @inline(__always) func windowExpired(_ app: AppID, now: Nanoseconds, leadTime: Nanoseconds) -> Bool {
        guard let window = apps[Int(app.index)].window else { return false }
        return now >= window.deadline - leadTime
    }

    /// `backgroundTimeRemaining` in seconds: infinite with no task open or no window.
    func timeRemaining(_ app: AppID, now: Nanoseconds) -> Double {
        let i = Int(app.index)
        guard !apps[i].tasks.isEmpty, let window = apps[i].window else { return Double.greatestFiniteMagnitude }
        return Time.toSeconds(max(0, window.deadline - now))
    }

    /// The process ended: its assertions go with it and the window's timers
    /// go stale. Most processes end holding nothing here (suspended, their
    /// window closed): then the record is not written, which would check its uniqueness.
    @inline(__always) mutating func processEnded(_ app: AppID) {
        if apps[Int(app.index)].holdsSomething { apps[Int(app.index)].processEnded() }
    }
}

/// What the coordinator reads of the app and the device before an assertion is taken.
struct AssertionFacts {
    var running: Bool
    var inBackground: Bool
    var multitasking: Bool
    /// `UIApplicationExitsOnSuspend`.
    var exitsOnSuspend: Bool
}

/// Why no background-time assertion can be taken now.
enum AssertionRefusal: Sendable, Equatable {
    case notRunning, noMultitasking, exitsOnSuspend, backgroundTimeExpired

    var words: String {
        switch self {
        case .notRunning: "the app is not running"
        case .noMultitasking: "this device does not support multitasking"
        case .exitsOnSuspend: "the app exits on suspend (UIApplicationExitsOnSuspend)"
        case .backgroundTimeExpired: "the app's background time has expired"
        }
    }
}

/// A timer of the window the controller asks the coordinator to schedule.
struct BudgetTimer: Sendable, Equatable {
    var event: EngineEvent
    var at: Nanoseconds
}

/// What is still open when a window's budget runs out: the app is ended for it.
enum BudgetTimeout: Sendable, Equatable {
    /// One `beginBackgroundTask` assertion, by its name's text (the coordinator keeps the kill's words by it).
    case task(TextID)
    /// Several, or an expiring activity: the kill's words.
    case several(String)
}

/// What the engine needs of an assertion whose expiration is owed: not its
/// name's string, which the trace holds as text already.
struct ExpirationDue: Sendable, Equatable {
    var id: Int
    var nameText: TextID
    var isExpiringActivity: Bool
}

extension BackgroundTaskController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        processEnded(app)
    }

    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        holdsApp(app) ? .backgroundTask : []
    }
}
