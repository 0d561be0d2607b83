/// rules §2's controller (and §13's `performExpiringActivity`, which holds
/// the app the same way): each app's open background-time assertions and
/// its background-time window. It takes what it is told — the time, the
/// budget — and answers; the engine records the trace, schedules the
/// window's timers and suspends the app when nothing holds it.
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
