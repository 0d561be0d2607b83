/// rules §2's controller (and §13's `performExpiringActivity`, which holds
/// the app the same way): each app's open background-time assertions and
/// its background-time window. It takes what it is told — the time, the
/// budget — and answers; the engine records the trace, schedules the
/// window's timers and suspends the app when nothing holds it.
struct BackgroundTaskController: Sendable {
    /// Per app, by `AppID.index`.
    var apps: [BackgroundTaskState] = []

    mutating func appInstalled() { apps.append(BackgroundTaskState()) }

    /// Whether the app holds a background-time assertion (the
    /// `.backgroundTask` reason of its assertion set).
    func holdsApp(_ app: AppID) -> Bool { !apps[Int(app.index)].tasks.isEmpty }

    /// The name's interned text, if it is the last one the app used: apps reuse a few names.
    func knownText(of name: String, for app: AppID) -> TextID? {
        guard let last = apps[Int(app.index)].lastTaskName, last.name == name else { return nil }
        return last.text
    }

    /// Keeps the name's text for the app's next task (read by `knownText`).
    mutating func rememberName(_ name: String, _ text: TextID, for app: AppID) {
        apps[Int(app.index)].lastTaskName = (name, text)
    }

    /// Opens an assertion; returns its identifier (1, 2, … in the process).
    mutating func begin(_ app: AppID, name: String, text: TextID, now: Nanoseconds,
                        expiringActivity: Bool = false) -> Int {
        let i = Int(app.index)
        let id = apps[i].nextTaskID
        apps[i].nextTaskID += 1
        apps[i].tasks.append(BackgroundTaskRecord(id: id, name: name, nameText: text, began: now,
                                                  isExpiringActivity: expiringActivity))
        return id
    }

    /// Closes a `beginBackgroundTask` assertion; false if none is open by that identifier.
    mutating func end(_ app: AppID, _ id: Int) -> Bool {
        let i = Int(app.index)
        guard let t = apps[i].tasks.firstIndex(where: { $0.id == id && !$0.isExpiringActivity }) else { return false }
        apps[i].tasks.remove(at: t)
        return true
    }

    /// Closes a `performExpiringActivity` assertion; returns its name, nil if none is open by that identifier.
    mutating func endActivity(_ app: AppID, _ id: Int) -> TextID? {
        let i = Int(app.index)
        guard let t = apps[i].tasks.firstIndex(where: { $0.id == id && $0.isExpiringActivity }) else { return nil }
        return apps[i].tasks.remove(at: t).nameText
    }

    /// At the window's expiration warning: the assertions whose expiration
    /// handler (or expired call) is now owed, marked as called.
    mutating func expirationDue(_ app: AppID) -> [BackgroundTaskRecord] {
        let i = Int(app.index)
        var due: [BackgroundTaskRecord] = []
        for t in apps[i].tasks.indices where !apps[i].tasks[t].expirationHandlerCalled {
            apps[i].tasks[t].expirationHandlerCalled = true
            due.append(apps[i].tasks[t])
        }
        return due
    }

    /// Whether an assertion by that identifier is still open.
    func isOpen(_ app: AppID, _ id: Int) -> Bool { apps[Int(app.index)].tasks.contains { $0.id == id } }

    /// The app entered the background: its budget starts now. Expiration
    /// handlers already called are owed again in the new window.
    mutating func openWindow(_ app: AppID, now: Nanoseconds, budget: Nanoseconds) {
        let i = Int(app.index)
        apps[i].windowNumber &+= 1
        apps[i].window = BackgroundWindow(start: now, deadline: now + budget)
        for t in apps[i].tasks.indices { apps[i].tasks[t].expirationHandlerCalled = false }
    }

    /// The app left the background: its window's timers go stale.
    mutating func closeWindow(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].window != nil else { return }
        apps[i].window = nil
        apps[i].windowNumber &+= 1
    }

    /// Marks the window's timers scheduled; returns the window if they were not yet.
    mutating func windowNeedingTimers(_ app: AppID) -> BackgroundWindow? {
        let i = Int(app.index)
        guard let window = apps[i].window, !window.timersScheduled else { return nil }
        apps[i].window!.timersScheduled = true
        return window
    }

    /// Whether the budget is spent but for the expiration lead time: no new assertion is granted then.
    func windowExpired(_ app: AppID, now: Nanoseconds, leadTime: Nanoseconds) -> Bool {
        guard let window = apps[Int(app.index)].window else { return false }
        return now >= window.deadline - leadTime
    }

    /// `backgroundTimeRemaining` in seconds: infinite with no task open or no window.
    func timeRemaining(_ app: AppID, now: Nanoseconds) -> Double {
        let state = apps[Int(app.index)]
        guard !state.tasks.isEmpty, let window = state.window else { return Double.greatestFiniteMagnitude }
        return Time.toSeconds(max(0, window.deadline - now))
    }

    /// The process ended: its assertions go with it and the window's timers go stale.
    /// What is already empty is not touched (emptying checks uniqueness).
    mutating func processEnded(_ app: AppID) {
        let i = Int(app.index)
        if !apps[i].tasks.isEmpty { apps[i].tasks.removeAll(keepingCapacity: true) }
        if apps[i].window != nil { apps[i].window = nil }
        apps[i].windowNumber &+= 1
    }
}

/// One app's background-time assertions and window (rules §2, §13).
struct BackgroundTaskState: Sendable {
    var tasks: [BackgroundTaskRecord] = []
    /// The last task name and its interned text: apps reuse a few names.
    var lastTaskName: (name: String, text: TextID)?
    var nextTaskID = 1
    var window: BackgroundWindow?
    /// Bumped as a window opens and closes: the window's timers carry it in their ticket.
    var windowNumber: UInt32 = 0
}
