/// One app's background-time assertions and window (rules §2, §13), kept by
/// the background-task controller. Each change is one mutating call, so the
/// controller touches its `apps` array once per change.
struct BackgroundTaskState: Sendable, Codable {
    var tasks: [BackgroundTaskRecord] = []
    /// The last task name and its interned text: apps reuse a few names.
    var lastTaskName: NamedText?
    var nextTaskID = 1
    var window: BackgroundWindow?
    /// Bumped as a window opens and closes: the window's timers carry it in their ticket.
    var windowNumber: UInt32 = 0

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in BackgroundTasks/ (8 of them in this file) cost the engine 69 instructions per event.
    /// A `beginBackgroundTask` assertion, in one access: its name's text is
    /// the last name's when the same (apps reuse a few names); nil when the
    /// engine must intern it (then `named`).
    @inline(__always) mutating func begin(name: String, now: Nanoseconds) -> (id: Int, text: TextID?) {
        // Read through optional chaining, in place: binding the pair would copy (retain) its string.
        let known = lastTaskName?.name == name ? lastTaskName?.text : nil
        return (begin(name: name, text: known ?? TextID(index: 0), now: now, expiringActivity: false), known)
    }

    /// The newest assertion's name, interned: kept for the next.
    mutating func named(_ name: String, _ text: TextID) {
        tasks[tasks.count - 1].nameText = text
        lastTaskName = NamedText(name: name, text: text)
    }

    @inline(__always) mutating func begin(name: String, text: TextID, now: Nanoseconds, expiringActivity: Bool) -> Int {
        let id = nextTaskID
        nextTaskID += 1
        tasks.append(BackgroundTaskRecord(id: id, name: name, nameText: text, began: now,
                                          isExpiringActivity: expiringActivity))
        return id
    }

    @inline(__always) mutating func end(_ id: Int) -> Bool {
        guard let t = tasks.firstIndex(where: { $0.id == id && !$0.isExpiringActivity }) else { return false }
        tasks.remove(at: t)
        return true
    }

    /// The first assertion from `t` on whose expiration is not yet owed,
    /// marked owed; `t` moves past it.
    @inline(__always) mutating func expirationDue(from t: inout Int) -> ExpirationDue? {
        while t < tasks.count {
            let k = t
            t += 1
            if !tasks[k].expirationHandlerCalled {
                tasks[k].expirationHandlerCalled = true
                return ExpirationDue(id: tasks[k].id, nameText: tasks[k].nameText, isExpiringActivity: tasks[k].isExpiringActivity)
            }
        }
        return nil
    }

    /// Whether an assertion by that identifier is open (a loop: `contains`' closure was a call).
    @inline(__always) func isOpen(_ id: Int) -> Bool {
        for t in tasks.indices where tasks[t].id == id { return true }
        return false
    }

    /// Whether the process holds anything of this concern (its end then has something to drop).
    @inline(__always) var holdsSomething: Bool { !tasks.isEmpty || window != nil }

    @inline(__always) mutating func openWindow(now: Nanoseconds, budget: Nanoseconds) {
        windowNumber &+= 1
        window = BackgroundWindow(start: now, deadline: now + budget)
        for t in tasks.indices { tasks[t].expirationHandlerCalled = false }
    }

    mutating func closeWindow() {
        window = nil
        windowNumber &+= 1
    }

    @inline(__always) mutating func windowNeedingTimers() -> BackgroundWindow? {
        guard let window, !window.timersScheduled else { return nil }
        self.window!.timersScheduled = true
        return window
    }

    /// The process ended. (Its window's tickets go stale with its epoch;
    /// the number moves on too, so they would with the epoch unchecked.)
    mutating func processEnded() {
        tasks.clearKeepingCapacity()
        window = nil
        windowNumber &+= 1
    }
}

/// A name and its interned text, remembered so the next use of the same name is not interned again.
struct NamedText: Sendable, Codable {
    var name: String
    var text: TextID
}
