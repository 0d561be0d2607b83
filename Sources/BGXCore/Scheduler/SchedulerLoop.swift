import HeapModule

/// SPEC §6: when the scheduler decides. Event-driven: any change that can
/// matter (a submission, a device change, a user action, a task ending)
/// marks the scheduler dirty and it judges every candidate at that moment;
/// where only time will change an answer (an earliest date, a predicted use,
/// idle time, a rate limit) it wakes at exactly that moment. No polling.
extension Engine {

    /// Judges what has changed: every request and fetch app after a change
    /// of the device (`schedulerDirty`), else only the apps something
    /// happened to or whose wake is due (`schedulerDirtyApps`) — with
    /// thousands of apps, a user action re-judges one app, not all.
    mutating func evaluateScheduler() {
        let everything = schedulerDirty
        schedulerDirty = false
        schedulerEvaluations &+= 1
        // The two sets trade places rather than copy and clear: clearing a set still shared with
        // a copy allocated a new table on every evaluation. The spare is emptied in place at the end.
        swap(&schedulerDirtyApps, &schedulerDirtyAppsSpare)
        defer { schedulerDirtyAppsSpare.removeAll() }
        if pendingTasks.isEmpty && fetchApps.isEmpty {
            schedulerWakes = Heap()
            schedulerWakeAt.removeAll()
            schedulerWake = nil
            return
        }
        // In the order a pass over every request would take them: submission order, fetch apps as they asked.
        var serials: [UInt64]
        var fetchers: [AppID]
        if everything {
            serials = pendingTasks.serials
            fetchers = fetchApps
        } else if schedulerDirtyAppsSpare.count == 1, let index = schedulerDirtyAppsSpare.first {
            // The common case, one app: its serials are already in submission order.
            let app = AppID(index: index)
            serials = pendingTasks.serials(of: app)
            fetchers = fetchRank[index] != nil ? [app] : []
        } else {
            serials = []
            var ranked: [(rank: Int, app: AppID)] = []
            for index in schedulerDirtyAppsSpare {
                let app = AppID(index: index)
                serials += pendingTasks.serials(of: app)
                if let rank = fetchRank[index] { ranked.append((rank, app)) }
            }
            serials.sort()
            fetchers = ranked.sorted { $0.rank < $1.rank }.map(\.app)
        }
        var starting: [UInt64] = []
        var reasons: [DecisionWords] = []
        for s in serials where pendingTasks.kind(s) == .appRefresh {
            refreshPredictionCache(pendingTasks.app(s))
        }
        for app in fetchers { refreshPredictionCache(app) }
        for s in serials {
            // Fields read in place: `let p = pendingTasks[s]` copied (and retained) the whole request.
            let (app, identifier) = (pendingTasks.app(s), pendingTasks.identifier(s))
            // One run at a time per identifier: a request resubmitted from its
            // own launch handler waits for that run to end — else it would
            // start again at the same instant, forever (SPEC §5: to repeat,
            // resubmit in the handler).
            if apps[Int(app.index)].runningTasks.contains(where: { $0.identifier == identifier }) { continue }
            let candidate = pendingTasks.candidate(s)
            schedulerJudgements &+= 1
            var judgement = decide(candidate)
            if judgement.run { refuseIfLaunchPolicySaysNo(&judgement, app, cause: .bgTask, taskIdentifier: identifier) }
            // Where the vetoes changed (for `explain`'s "since").
            if pendingTasks[s].blockedMask != judgement.mustNotMask {
                pendingTasks[s].blockedMask = judgement.mustNotMask
                Self.noteBlocked(&pendingTasks[s].blockedSince, mask: judgement.mustNotMask, now: now)
            }
            if judgement.run {
                starting.append(s)
                reasons.append(decision(judgement, candidate))
            } else {
                // A deferral is recorded when what holds the task back changes.
                if pendingTasks[s].lastDeferKey != judgement.key {
                    pendingTasks[s].lastDeferKey = judgement.key
                    let why = appendDecision(decision(judgement, candidate))
                    record(app, .taskDefer(identifier: identifier, reason: why))
                    noteTaskHistory(app, identifier, event: "deferred", detail: why)
                }
                if let n = judgement.nextChange { wakeScheduler(for: app, at: n) }
            }
        }
        schedulerJudgements &+= fetchers.count
        for app in fetchers {
            if let n = evaluateFetch(app) { wakeScheduler(for: app, at: n) }
        }
        if !starting.isEmpty {
            if recordsDasdDecisions {
                for s in starting {
                    let (app, id) = (pendingTasks[s].app, text(pendingTasks[s].identifier))
                    if let d = dasdDecision(app: app, identifier: id) { dasdStarts.append((app, id, now, d)) }
                }
            }
            let chosen = starting.map { pendingTasks.remove($0) }
            // By app in index order, each app's tasks in submission order, with its first task's reason.
            let order = chosen.indices.sorted { (chosen[$0].app.index, $0) < (chosen[$1].app.index, $1) }
            var k = 0
            while k < order.count {
                let app = chosen[order[k]].app
                var end = k + 1
                while end < order.count && chosen[order[end]].app == app { end += 1 }
                start(order[k..<end].map { chosen[$0] }, for: app, reason: appendDecision(reasons[order[k]]))
                k = end
            }
        }
        scheduleNextSchedulerWake()
    }

    /// Each policy holding a request back (a bit of `mask`) since when: set
    /// when it starts to, cleared when it stops (for `explain`).
    @inline(__always) static func noteBlocked(_ blockedSince: inout [Nanoseconds?], mask: UInt32, now: Nanoseconds) {
        for index in blockedSince.indices {
            if mask & (1 << UInt32(index)) != 0 {
                if blockedSince[index] == nil { blockedSince[index] = now }
            } else if blockedSince[index] != nil {
                blockedSince[index] = nil
            }
        }
    }

    /// Time alone changes an answer about `app` at `time`: judge its
    /// requests again then. Only the earliest wake of an app is kept.
    mutating func wakeScheduler(for app: AppID, at time: Nanoseconds) {
        if let earlier = schedulerWakeAt[app.index], earlier <= time { return }
        schedulerWakeAt[app.index] = time
        schedulerWakes.insert(SchedulerWakeEntry(time: time, app: app.index))
    }

    /// One event in the queue, at the earliest wake of any app.
    mutating func scheduleNextSchedulerWake() {
        guard let first = schedulerWakes.min else { schedulerWake = nil; return }
        guard schedulerWake != first.time else { return }
        schedulerGeneration &+= 1
        schedulerWake = first.time
        queue.push(.schedulerWake(generation: schedulerGeneration), at: first.time)
    }

    /// The policies said run; the launch policy (SPEC §11) has the last word
    /// on launching or waking the app. A refusal waits for a change (a
    /// device change or user action marks the scheduler dirty).
    @inline(__always) func refuseIfLaunchPolicySaysNo(_ j: inout Judgement, _ app: AppID, cause: LaunchCause, taskIdentifier: TextID? = nil) {
        let verdict = launchVerdict(for: app, cause: cause, taskIdentifier: taskIdentifier.map { text($0) })
        guard let refusal = verdict.refusal else { return }
        j.run = false
        j.key = .launchRefused(refusal)
    }

    /// Something changed for `app`: judge it again if the scheduler has
    /// anything of it in hand. Inlined: a user action and a termination
    /// ask on every event, and the call cost more than the answer.
    @inline(__always) mutating func markSchedulerDirty(for app: AppID) {
        if schedulerDirty { return }
        if pendingTasks.has(app) || fetchRank[app.index] != nil || !apps[Int(app.index)].runningTasks.isEmpty {
            schedulerDirtyApps.insert(app.index)
        }
    }

    /// The wake fired: the apps whose wake is due are judged again.
    mutating func schedulerWakeFired(generation: UInt32) {
        guard generation == schedulerGeneration else { return }
        schedulerWake = nil
        while let first = schedulerWakes.min, first.time <= now {
            schedulerWakes.removeMin()
            // Superseded by an earlier wake of the same app, which has already judged it.
            guard schedulerWakeAt[first.app] == first.time else { continue }
            schedulerWakeAt[first.app] = nil
            markSchedulerDirty(for: AppID(index: first.app))
        }
        if schedulerDirtyApps.isEmpty && !schedulerDirty { scheduleNextSchedulerWake() }
    }

    /// What the scheduler last decided about a pending request, for `explain`.
    func pendingTask(for app: AppID, identifier: String) -> PendingTask? {
        guard let id = texts.index[identifier] else { return nil }
        return pendingTasks.serial(of: app, TextID(index: Int32(id))).map { pendingTasks[$0] }
    }
}

/// An app's requests to judge again at `time` (the scheduler's wakes, earliest first).
struct SchedulerWakeEntry: Sendable, Comparable {
    var time: Nanoseconds
    var app: Int32
    static func < (a: Self, b: Self) -> Bool { (a.time, a.app) < (b.time, b.app) }
}
