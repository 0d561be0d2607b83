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
    // in BackgroundTasks/ (1 of them in this file) cost the engine 69 instructions per event.
    /// The assertion and its count, in one access to the app's record (each write checks the array's uniqueness).
    @inline(__always) static func beganBackgroundTask(_ a: inout AppProcess) {
        a.assertions.insert(.backgroundTask)
        a.stats.backgroundTasksBegun += 1
    }

    public mutating func endBackgroundTask(for app: AppID, _ id: Int) {
        let i = Int(app.index)
        guard backgroundTasks.end(app, id) else {
            // iOS logs this and carries on [O].
            log(app, ("Can't end BackgroundTask: no background task exists with identifier \(id), "
                             + "or it may have already been ended. "
                             + "Break in UIApplicationEndBackgroundTaskError() to debug."))
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

    // MARK: The budget window

    mutating func openBackgroundWindow(_ app: AppID) {
        let i = Int(app.index)
        backgroundTasks.openWindow(app, now: now, budget: profile.backgroundTaskBudget)
        if let age = profile.staleBackgroundTaskWarningAge {
            for task in backgroundTasks.apps[i].tasks where now - task.began >= age && !task.isExpiringActivity {
                log(app, ("Background Task \(task.id) (\"\(task.name)\"), was created over "
                                 + "\(Time.describe(age)) ago. In applications running in the background, "
                                 + "this creates a risk of termination. Remember to call "
                                 + "UIApplication.endBackgroundTask(_:) for your task in a timely manner "
                                 + "to avoid this."))
            }
        }
        if backgroundTasks.holdsApp(app) { scheduleBudgetTimers(app) }
    }

    mutating func closeBackgroundWindow(_ app: AppID) {
        backgroundTasks.closeWindow(app)
    }

    mutating func scheduleBudgetTimers(_ app: AppID) {
        guard let window = backgroundTasks.windowNeedingTimers(app) else { return }
        // The deadline is queued when the warning fires: most windows end
        // (their tasks ended) before either.
        queue.push(.expirationWarning(app, ticket(app, backgroundTasks.apps[Int(app.index)].windowNumber)),
                   at: max(now, window.deadline - profile.expirationLeadTime))
    }

    mutating func expirationWarningFired(_ app: AppID, _ ticket: Ticket) {
        let i = Int(app.index)
        guard let budget = backgroundTasks.apps[i].window else { return }
        queue.push(.budgetDeadline(app, ticket), at: max(now, budget.deadline))
        var t = 0
        while let task = backgroundTasks.expirationDue(app, from: &t) {
            if task.isExpiringActivity { expireActivity(app, task); continue }
            apps[i].stats.backgroundTasksExpired += 1
            record(app, .bgtaskExpire(id: task.id, name: task.nameText))
            apps[i].jobs.append(.expirationHandler(task.id))
        }
        pump(app)
    }

    mutating func budgetDeadlineFired(_ app: AppID) {
        let i = Int(app.index)
        // Read in place: a copy of the tasks would retain and release them.
        guard !backgroundTasks.apps[i].tasks.isEmpty else { return }
        // Names, not identifiers: the same few texts recur, so the interned
        // table stays small however long the run. With one task open (the
        // usual case) the words are the name's, made once.
        if backgroundTasks.apps[i].tasks.count == 1, !backgroundTasks.apps[i].tasks[0].isExpiringActivity {
            let name = backgroundTasks.apps[i].tasks[0].nameText
            if budgetTimeoutDetails[name] == nil {
                budgetTimeoutDetails[name] = text(budgetTimeoutDetail("\"\(backgroundTasks.apps[i].tasks[0].name)\""))
            }
            terminate(app, .backgroundTaskTimeout, detailText: budgetTimeoutDetails[name])
        } else {
            let open = backgroundTasks.apps[i].tasks
                .map { ($0.isExpiringActivity ? "expiring activity " : "") + "\"\($0.name)\"" }
                .joined(separator: ", ")
            terminate(app, .backgroundTaskTimeout, detail: budgetTimeoutDetail(open))
        }
    }

    func budgetTimeoutDetail(_ open: String) -> String {
        "background task \(open) still open when the \(Time.describe(profile.backgroundTaskBudget)) "
            + "background budget ran out"
    }
}
