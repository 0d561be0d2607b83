import HeapModule

/// rules §6: when the scheduler decides. Event-driven: any change that can
/// matter (a submission, a device change, a user action, a task ending)
/// marks the scheduler dirty and it judges every candidate at that moment;
/// where only time will change an answer (an earliest date, a predicted use,
/// idle time, a rate limit) it wakes at exactly that moment. No polling.
extension Engine {

    /// Judges what has changed: every request and fetch app after a change
    /// of the device (`scheduler.dirty`), else only the apps something
    /// happened to or whose wake is due (`scheduler.dirtyApps`) — with
    /// thousands of apps, a user action re-judges one app, not all.
    mutating func evaluateScheduler() {
        let everything = scheduler.dirty
        scheduler.dirty = false
        scheduler.evaluations &+= 1
        // The two sets trade places rather than copy and clear: clearing a set still shared with
        // a copy allocated a new table on every evaluation. The spare is emptied in place at the end.
        swap(&scheduler.dirtyApps, &scheduler.dirtyAppsSpare)
        defer { scheduler.dirtyAppsSpare.removeAll() }
        if scheduler.pendingTasks.isEmpty && scheduler.fetchApps.isEmpty {
            scheduler.wakes = Heap()
            scheduler.wakeAt.removeAll()
            scheduler.wake = nil
            return
        }
        // In the order a pass over every request would take them: submission order, fetch apps as they asked.
        var serials: [UInt64]
        var fetchers: [AppID]
        if everything {
            serials = scheduler.pendingTasks.serials
            fetchers = scheduler.fetchApps
        } else if scheduler.dirtyAppsSpare.count == 1, let index = scheduler.dirtyAppsSpare.first {
            // The common case, one app: its serials are already in submission order.
            let app = AppID(index: index)
            serials = scheduler.pendingTasks.serials(of: app)
            fetchers = scheduler.fetchRank[index] != nil ? [app] : []
        } else {
            serials = []
            var ranked: [(rank: Int, app: AppID)] = []
            for index in scheduler.dirtyAppsSpare {
                let app = AppID(index: index)
                serials += scheduler.pendingTasks.serials(of: app)
                if let rank = scheduler.fetchRank[index] { ranked.append((rank, app)) }
            }
            serials.sort()
            fetchers = ranked.sorted { $0.rank < $1.rank }.map(\.app)
        }
        refreshDeviceUsePrediction()
        var starting: [UInt64] = []
        var reasons: [DecisionWords] = []
        for s in serials where scheduler.pendingTasks.kind(s) == .appRefresh {
            refreshPredictionCache(scheduler.pendingTasks.app(s))
        }
        for app in fetchers { refreshPredictionCache(app) }
        for s in serials {
            // Fields read in place: `let p = scheduler.pendingTasks[s]` copied (and retained) the whole request.
            let (app, identifier) = (scheduler.pendingTasks.app(s), scheduler.pendingTasks.identifier(s))
            // One run at a time per identifier: a request resubmitted from its
            // own launch handler waits for that run to end — else it would
            // start again at the same instant, forever (rules §5: to repeat,
            // resubmit in the handler).
            if taskScheduler.isRunning(app, identifier) { continue }
            let candidate = scheduler.pendingTasks.candidate(s)
            scheduler.judgements &+= 1
            var judgement = decide(candidate)
            if judgement.run { refuseIfLaunchPolicySaysNo(&judgement, app, cause: .bgTask, taskIdentifier: identifier) }
            // Where the vetoes changed (for `explain`'s "since").
            if scheduler.pendingTasks[s].blockedMask != judgement.mustNotMask {
                scheduler.pendingTasks[s].blockedMask = judgement.mustNotMask
                Self.noteBlocked(&scheduler.pendingTasks[s].blockedSince, mask: judgement.mustNotMask, now: now)
            }
            if judgement.run {
                starting.append(s)
                reasons.append(decision(judgement, candidate))
            } else {
                // A deferral is recorded when what holds the task back changes.
                if scheduler.pendingTasks[s].lastDeferKey != judgement.key {
                    scheduler.pendingTasks[s].lastDeferKey = judgement.key
                    if let refusal = launchRefusal(behind: judgement.key, app, cause: .bgTask) {
                        noteRefusedLaunch(app, .bgTask, refusal)
                    }
                    let why = appendDecision(decision(judgement, candidate))
                    record(app, .taskDefer(identifier: identifier, reason: why))
                    noteTaskHistory(app, identifier, event: "deferred", detail: why)
                }
                if let n = judgement.nextChange { wakeScheduler(for: app, at: n) }
            }
        }
        scheduler.judgements &+= fetchers.count
        for app in fetchers {
            if let n = evaluateFetch(app) { wakeScheduler(for: app, at: n) }
        }
        if !starting.isEmpty {
            if scheduler.recordsDasdDecisions {
                for s in starting {
                    let (app, id) = (scheduler.pendingTasks[s].app, text(scheduler.pendingTasks[s].identifier))
                    if let d = dasdDecision(app: app, identifier: id) { scheduler.dasdStarts.append(DasdStart(app: app, identifier: id, time: now, decision: d)) }
                }
            }
            let chosen = starting.map { scheduler.pendingTasks.remove($0) }
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

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Scheduler/ (5 of them in this file) cost the engine 23 instructions per event.
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
    @inline(__always) mutating func wakeScheduler(for app: AppID, at time: Nanoseconds) {
        scheduler.wake(app, at: time)
    }

    /// One event in the queue, at the earliest wake of any app.
    mutating func scheduleNextSchedulerWake() {
        if let (event, time) = scheduler.nextWakeEvent() { queue.push(event, at: time) }
    }

    /// The policies said run; the launch policy (rules §11) has the last word
    /// on launching or waking the app. A refusal waits for a change (a
    /// device change or user action marks the scheduler dirty).
    @inline(__always) func refuseIfLaunchPolicySaysNo(_ j: inout Judgement, _ app: AppID, cause: LaunchCause, taskIdentifier: TextID? = nil) {
        let verdict = launchVerdict(for: app, cause: cause, taskIdentifier: taskIdentifier.map { text($0) })
        guard let refusal = verdict.refusal else { return }
        j.run = false
        j.key = .launchRefused(refusal)
    }

    /// The launch policy's refusal behind a deferral, if one decided it: its
    /// verdict after the policies said run, or one of its rules asked as a
    /// dasd policy (BackgroundAppRefreshPolicy, FirstUnlockPolicy, ForceQuitPolicy).
    /// Inlined, and the rules asked of their facts in place: called out of
    /// line from `evaluateScheduler` it copied the whole engine at every
    /// deferral (0.7 % of the demo's instructions, callgrind).
    @inline(__always) func launchRefusal(behind key: DecisionKey, _ app: AppID, cause: LaunchCause) -> LaunchRefusal? {
        switch key {
        case let .launchRefused(refusal): return refusal
        case .mustNot(.backgroundAppRefresh):
            return LaunchPolicy.backgroundAppRefresh(cause, device: device.backgroundAppRefresh,
                                                     app: apps[Int(app.index)].manifest.backgroundAppRefresh)
        case .mustNot(.firstUnlock): return LaunchPolicy.firstUnlock(cause, unlockedSinceBoot: device.unlockedSinceBoot)
        case .mustNot(.forceQuit): return launches.policy.forceQuit(cause, forceQuit: apps[Int(app.index)].forceQuit)
        default: return nil
        }
    }

    /// Something changed for `app`: judge it again if the scheduler has
    /// anything of it in hand. Inlined: a user action and a termination
    /// ask on every event, and the call cost more than the answer.
    @inline(__always) mutating func markSchedulerDirty(for app: AppID) {
        scheduler.markDirty(app, running: taskScheduler.holdsApp(app))
    }

    /// The wake fired: the apps whose wake is due are judged again.
    mutating func schedulerWakeFired(generation: UInt32) {
        guard generation == scheduler.generation else { return }
        scheduler.wake = nil
        while let first = scheduler.wakes.min, first.time <= now {
            scheduler.wakes.removeMin()
            // Superseded by an earlier wake of the same app, which has already judged it.
            guard scheduler.wakeAt[first.app] == first.time else { continue }
            scheduler.wakeAt[first.app] = nil
            markSchedulerDirty(for: AppID(index: first.app))
        }
        if scheduler.dirtyApps.isEmpty && !scheduler.dirty { scheduleNextSchedulerWake() }
    }

    /// What the scheduler last decided about a pending request, for `explain`.
    func pendingTask(for app: AppID, identifier: String) -> PendingTask? {
        guard let id = texts.index[identifier] else { return nil }
        return scheduler.pendingTasks.serial(of: app, TextID(index: Int32(id))).map { scheduler.pendingTasks[$0] }
    }
}

/// An app's requests to judge again at `time` (the scheduler's wakes, earliest first).
struct SchedulerWakeEntry: Sendable, Comparable, Codable {
    var time: Nanoseconds
    var app: Int32
    static func < (a: Self, b: Self) -> Bool { (a.time, a.app) < (b.time, b.app) }
}
