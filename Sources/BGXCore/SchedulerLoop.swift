/// SPEC §6: when the scheduler decides. Event-driven: any change that can
/// matter (a submission, a device change, a user action, a task ending)
/// marks the scheduler dirty and it judges every candidate at that moment;
/// where only time will change an answer (an earliest date, a predicted use,
/// idle time, a rate limit) it wakes at exactly that moment. No polling.
extension Engine {

    mutating func evaluateScheduler() {
        schedulerDirty = false
        schedulerEvaluations &+= 1
        if pendingTasks.isEmpty && fetchApps.isEmpty {
            schedulerWake = nil
            return
        }
        var next: Nanoseconds?
        var starting: [Int] = []
        var reasons: [DecisionWords] = []
        for k in pendingTasks.indices where pendingTasks[k].request.kind == .appRefresh {
            refreshPredictionCache(pendingTasks[k].app)
        }
        for app in fetchApps { refreshPredictionCache(app) }
        for k in pendingTasks.indices {
            // Fields read in place: `let p = pendingTasks[k]` copied (and retained) the whole request.
            let app = pendingTasks[k].app, identifier = pendingTasks[k].identifier
            // One run at a time per identifier: a request resubmitted from its
            // own launch handler waits for that run to end — else it would
            // start again at the same instant, forever (SPEC §5: to repeat,
            // resubmit in the handler).
            if apps[Int(app.index)].runningTasks.contains(where: { $0.identifier == identifier }) { continue }
            let candidate = candidate(ofPending: k)
            var judgement = decide(candidate)
            if judgement.run { refuseIfLaunchPolicySaysNo(&judgement, app, cause: .bgTask, taskIdentifier: identifier) }
            for index in 0..<pendingTasks[k].blockedSince.count {
                if judgement.mustNotMask & (1 << UInt32(index)) != 0 {
                    if pendingTasks[k].blockedSince[index] == nil { pendingTasks[k].blockedSince[index] = now }
                } else if pendingTasks[k].blockedSince[index] != nil {
                    pendingTasks[k].blockedSince[index] = nil
                }
            }
            if judgement.run {
                starting.append(k)
                reasons.append(decision(judgement))
            } else {
                // A deferral is recorded when what holds the task back changes.
                if pendingTasks[k].lastDeferKey != judgement.key {
                    pendingTasks[k].lastDeferKey = judgement.key
                    let why = appendDecision(decision(judgement))
                    record(app, .taskDefer(identifier: identifier, reason: why))
                    noteTaskHistory(app, identifier, event: "deferred", detail: why)
                }
                if let n = judgement.nextChange { next = min(next ?? n, n) }
            }
        }
        for app in fetchApps {
            if let n = evaluateFetch(app) { next = min(next ?? n, n) }
        }
        if !starting.isEmpty {
            if recordsDasdDecisions {
                for k in starting {
                    let (app, id) = (pendingTasks[k].app, text(pendingTasks[k].identifier))
                    if let d = dasdDecision(app: app, identifier: id) { dasdStarts.append((app, id, now, d)) }
                }
            }
            let chosen = starting.map { pendingTasks[$0] }
            for k in starting.reversed() { pendingTasks.remove(at: k) }
            var byApp: [Int32: [PendingTask]] = [:]
            var reasonByApp: [Int32: DecisionWords] = [:]
            for (task, reason) in zip(chosen, reasons) {
                byApp[task.app.index, default: []].append(task)
                if reasonByApp[task.app.index] == nil { reasonByApp[task.app.index] = reason }
            }
            for index in byApp.keys.sorted() {
                start(byApp[index]!, for: AppID(index: index), reason: appendDecision(reasonByApp[index]!))
            }
        }
        schedulerGeneration &+= 1
        schedulerWake = next
        if let next { queue.push(.schedulerWake(generation: schedulerGeneration), at: next) }
    }

    /// The policies said run; the launch policy (SPEC §11) has the last word
    /// on launching or waking the app. A refusal waits for a change (a
    /// device change or user action marks the scheduler dirty).
    @inline(__always) func refuseIfLaunchPolicySaysNo(_ j: inout Judgement, _ app: AppID, cause: LaunchCause, taskIdentifier: TextID? = nil) {
        let verdict = launchVerdict(for: app, cause: cause, taskIdentifier: taskIdentifier.map { text($0) })
        guard let refusal = verdict.refusal else { return }
        j.run = false
        j.key = .launchRefused(refusal)
        j.decisiveWords = nil
    }

    /// Something changed for `app`: judge again if the scheduler has anything
    /// of it in hand.
    mutating func markSchedulerDirty(for app: AppID) {
        if schedulerDirty { return }
        if pendingTaskIndex(of: app) != nil || fetchApps.contains(app)
            || !apps[Int(app.index)].runningTasks.isEmpty {
            schedulerDirty = true
        }
    }

    /// The first pending request of `app` (and `identifier`), by index: the
    /// closure forms (`contains(where:)`, `firstIndex(where:)`) copy every
    /// request they look at, and this is asked on every user action.
    @inline(__always) func pendingTaskIndex(of app: AppID, _ identifier: TextID? = nil) -> Int? {
        for k in pendingTasks.indices where pendingTasks[k].app == app {
            if identifier == nil || pendingTasks[k].identifier == identifier { return k }
        }
        return nil
    }

    mutating func schedulerWakeFired(generation: UInt32) {
        if generation == schedulerGeneration { schedulerDirty = true }
    }

    /// What the scheduler last decided about a pending request, for `explain`.
    func pendingTask(for app: AppID, identifier: String) -> PendingTask? {
        guard let id = texts.index[identifier] else { return nil }
        return pendingTasks.first { $0.app == app && $0.identifier.index == id }
    }
}
