import HeapModule

/// rules §6: when the scheduler decides. Event-driven: any change that can
/// matter (a submission, a device change, a user action, a task ending)
/// marks the scheduler dirty and it judges every candidate at that moment;
/// where only time will change an answer (an earliest date, a predicted use,
/// idle time, a rate limit) it wakes at exactly that moment. No polling.
extension Engine {

    /// Judges what has changed (`SchedulerController.beginEvaluation` says
    /// which requests and fetch apps): the policies are asked of each, a
    /// deferral is traced when what holds it back changes, the requests
    /// that may run start, and the next wake is queued.
    mutating func evaluateScheduler() {
        guard let (serials, fetchers) = scheduler.beginEvaluation() else { return }
        scheduler.refreshDeviceUse(now: now, wallClockOffset: wallClockOffset)
        var starting: [UInt64] = []
        var reasons: [DecisionWords] = []
        for s in serials where scheduler.pendingTasks.kind(s) == .appRefresh {
            scheduler.refreshPredictionCache(scheduler.pendingTasks.app(s), now: now, wallClockOffset: wallClockOffset)
        }
        for app in fetchers { scheduler.refreshPredictionCache(app, now: now, wallClockOffset: wallClockOffset) }
        for s in serials {
            // Fields read in place: `let p = scheduler.pendingTasks[s]` copied (and retained) the whole request.
            let (app, identifier) = (scheduler.pendingTasks.app(s), scheduler.pendingTasks.identifier(s))
            // One run at a time per identifier: a request resubmitted from its
            // own launch handler waits for that run to end — else it would
            // start again at the same instant, forever (rules §5: to repeat,
            // resubmit in the handler).
            if taskScheduler.isRunning(app, identifier) { continue }
            let candidate = scheduler.pendingTasks.candidate(s)
            scheduler.countJudgements(1)
            var judgement = decide(candidate)
            if judgement.run { refuseIfLaunchPolicySaysNo(&judgement, app, cause: .bgTask, taskIdentifier: identifier) }
            scheduler.noteVetoes(s, mask: judgement.mustNotMask, now: now)
            if judgement.run {
                starting.append(s)
                reasons.append(decision(judgement, candidate))
            } else {
                // A deferral is traced when what holds the task back changes.
                if scheduler.deferralChanged(s, to: judgement.key) {
                    if let refusal = launchRefusal(behind: judgement.key, app, cause: .bgTask) {
                        noteRefusedLaunch(app, .bgTask, refusal)
                    }
                    let why = appendDecision(decision(judgement, candidate))
                    apply(scheduler.deferred(app, identifier, why: why, now: now))
                }
                if let n = judgement.nextChange { scheduler.wake(app, at: n) }
            }
        }
        scheduler.countJudgements(fetchers.count)
        for app in fetchers {
            if let n = evaluateFetch(app) { scheduler.wake(app, at: n) }
        }
        if !starting.isEmpty {
            if scheduler.recordsDasdDecisions {
                for s in starting {
                    let (app, id) = (scheduler.pendingTasks[s].app, text(scheduler.pendingTasks[s].identifier))
                    if let d = dasdDecision(app: app, identifier: id) {
                        scheduler.noteDasdStart(DasdStart(app: app, identifier: id, time: now, decision: d))
                    }
                }
            }
            let chosen = starting.map { scheduler.take($0) }
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

    /// One event in the queue, at the earliest wake of any app.
    mutating func scheduleNextSchedulerWake() {
        if let wake = scheduler.nextWake() { apply(wake) }
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
        if let wake = scheduler.wakeFired(generation: generation, now: now, tasks: taskScheduler) { apply(wake) }
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
