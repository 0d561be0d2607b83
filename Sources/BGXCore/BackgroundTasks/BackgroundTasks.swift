/// rules §2: finite-length background tasks (`beginBackgroundTask`). The
/// budget is the app's, counted from entering the background [S][A]; the
/// expiration handlers run `expirationLeadTime` before it ends [D]; a task
/// still open at the end terminates the app (`backgroundTaskTimeout`) [D].
extension Engine {
    /// `UIBackgroundTaskInvalid`.
    public static let invalidBackgroundTask = 0

    public mutating func beginBackgroundTask(for app: AppID, name: String?) -> Int {
        let i = Int(app.index)
        let label = name ?? "Untitled"
        if let refusal = assertionRefusal(app) {
            record(app, .bgtaskInvalid(name: text(label), reason: text(refusal)))
            return Engine.invalidBackgroundTask
        }
        let id = apps[i].nextTaskID
        apps[i].nextTaskID += 1
        let nameText: TextID
        if let last = apps[i].lastTaskName, last.name == label {
            nameText = last.text
        } else {
            nameText = text(label)
            apps[i].lastTaskName = (label, nameText)
        }
        apps[i].tasks.append(BackgroundTaskRecord(id: id, name: label, nameText: nameText, began: now))
        setAssertion(.backgroundTask, true, i)
        apps[i].stats.backgroundTasksBegun += 1
        record(app, .bgtaskBegin(id: id, name: nameText))
        if apps[i].state == .background { scheduleBudgetTimers(app) }
        return id
    }

    public mutating func endBackgroundTask(for app: AppID, _ id: Int) {
        let i = Int(app.index)
        guard let index = apps[i].tasks.firstIndex(where: { $0.id == id && !$0.isExpiringActivity }) else {
            // iOS logs this and carries on [O].
            log(app, ("Can't end BackgroundTask: no background task exists with identifier \(id), "
                             + "or it may have already been ended. "
                             + "Break in UIApplicationEndBackgroundTaskError() to debug."))
            return
        }
        Self.end(&apps[i], at: index)
        record(app, .bgtaskEnd(id: id))
        suspendIfThreadFree(app)
    }

    /// `endBackgroundTask`'s changes to the app's record, in one access
    /// (field by field, each write checked the apps array's uniqueness).
    @inline(__always) static func end(_ a: inout AppProcess, at index: Int) {
        a.tasks.remove(at: index)
        a.assertions.set(.backgroundTask, !a.tasks.isEmpty)
    }

    /// `backgroundTimeRemaining`: effectively infinite in the foreground or
    /// with no task open [O]; otherwise what is left of the budget.
    public func backgroundTimeRemaining(for app: AppID) -> Double {
        let i = Int(app.index)
        guard apps[i].state == .background, !apps[i].tasks.isEmpty, let window = apps[i].window else {
            return Double.greatestFiniteMagnitude
        }
        return Time.toSeconds(max(0, window.deadline - now))
    }

    // MARK: The budget window

    mutating func openBackgroundWindow(_ app: AppID) {
        let i = Int(app.index)
        apps[i].windowNumber &+= 1
        apps[i].window = BackgroundWindow(start: now, deadline: now + profile.backgroundTaskBudget)
        for t in apps[i].tasks.indices { apps[i].tasks[t].expirationHandlerCalled = false }
        if let age = profile.staleBackgroundTaskWarningAge {
            for task in apps[i].tasks where now - task.began >= age && !task.isExpiringActivity {
                log(app, ("Background Task \(task.id) (\"\(task.name)\"), was created over "
                                 + "\(Time.describe(age)) ago. In applications running in the background, "
                                 + "this creates a risk of termination. Remember to call "
                                 + "UIApplication.endBackgroundTask(_:) for your task in a timely manner "
                                 + "to avoid this."))
            }
        }
        if !apps[i].tasks.isEmpty { scheduleBudgetTimers(app) }
    }

    mutating func closeBackgroundWindow(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].window != nil else { return }
        apps[i].window = nil
        apps[i].windowNumber &+= 1
    }

    mutating func scheduleBudgetTimers(_ app: AppID) {
        let i = Int(app.index)
        guard let window = apps[i].window, !window.timersScheduled else { return }
        apps[i].window!.timersScheduled = true
        // The deadline is queued when the warning fires: most windows end
        // (their tasks ended) before either.
        queue.push(.expirationWarning(app, ticket(app, apps[i].windowNumber)),
                   at: max(now, window.deadline - profile.expirationLeadTime))
    }

    mutating func expirationWarningFired(_ app: AppID, _ ticket: Ticket) {
        let i = Int(app.index)
        guard let budget = apps[i].window else { return }
        queue.push(.budgetDeadline(app, ticket), at: max(now, budget.deadline))
        for t in apps[i].tasks.indices where !apps[i].tasks[t].expirationHandlerCalled {
            apps[i].tasks[t].expirationHandlerCalled = true
            if apps[i].tasks[t].isExpiringActivity { expireActivity(app, at: t); continue }
            apps[i].stats.backgroundTasksExpired += 1
            let id = apps[i].tasks[t].id
            record(app, .bgtaskExpire(id: id, name: apps[i].tasks[t].nameText))
            apps[i].jobs.append(.expirationHandler(id))
        }
        pump(app)
    }

    mutating func budgetDeadlineFired(_ app: AppID) {
        let i = Int(app.index)
        guard !apps[i].tasks.isEmpty else { return }
        // Names, not identifiers: the same few texts recur, so the interned
        // table stays small however long the run. With one task open (the
        // usual case) the words are the name's, made once.
        if apps[i].tasks.count == 1, !apps[i].tasks[0].isExpiringActivity {
            let name = apps[i].tasks[0].nameText
            if budgetTimeoutDetails[name] == nil {
                budgetTimeoutDetails[name] = text(budgetTimeoutDetail("\"\(apps[i].tasks[0].name)\""))
            }
            terminate(app, .backgroundTaskTimeout, detailText: budgetTimeoutDetails[name])
        } else {
            let open = apps[i].tasks.map { ($0.isExpiringActivity ? "expiring activity " : "") + "\"\($0.name)\"" }
                .joined(separator: ", ")
            terminate(app, .backgroundTaskTimeout, detail: budgetTimeoutDetail(open))
        }
    }

    func budgetTimeoutDetail(_ open: String) -> String {
        "background task \(open) still open when the \(Time.describe(profile.backgroundTaskBudget)) "
            + "background budget ran out"
    }
}
