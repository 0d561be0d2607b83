/// rules §6: when the scheduler decides, carried out. Event-driven: any
/// change that can matter (a submission, a device change, a user action, a
/// task ending) marks the scheduler dirty and it judges every candidate at
/// that moment; where only time will change an answer (an earliest date, a
/// predicted use, idle time, a rate limit) it wakes at exactly that moment.
/// No polling.
///
/// The coordinator's part: the judgement is `SchedulerController`'s (its
/// policies read the engine through `SchedulingFacts`), what it keeps of a
/// judgement is its own (`judged`, `fetchHeld`), and it groups what starts
/// (`takeForLaunch`); the launch policy (rules §11, `LaunchController`) has
/// the last word on a launch, and starting work wakes the app — which
/// crosses every concern, so it happens here, between judgements, in the
/// order the trace shows.
extension Engine {

    /// Judges what has changed (`SchedulerController.beginEvaluation` says
    /// which requests and fetch apps): a deferral is traced when what holds
    /// it back changes, the requests that may run start, and the next wake is queued.
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
            let judgement = judge(candidate, app, cause: .bgTask, taskIdentifier: identifier)
            let deferralChanged = scheduler.judged(s, judgement, now: now)
            if judgement.run {
                starting.append(s)
                reasons.append(decision(judgement, candidate))
            } else if deferralChanged {
                traceDeferral(app, identifier, judgement, candidate)
            }
        }
        scheduler.countJudgements(fetchers.count)
        for app in fetchers { evaluateFetch(app) }
        if !starting.isEmpty {
            if scheduler.recordsDasdDecisions {
                for s in starting {
                    let (app, id) = (scheduler.pendingTasks[s].app, text(scheduler.pendingTasks[s].identifier))
                    if let d = dasdDecision(app: app, identifier: id) {
                        scheduler.noteDasdStart(DasdStart(app: app, identifier: id, time: now, decision: d))
                    }
                }
            }
            for launch in scheduler.takeForLaunch(starting) {
                start(launch.tasks, for: launch.app, reason: appendDecision(reasons[launch.first]))
            }
        }
        scheduleNextSchedulerWake()
    }

    /// A request held back for a new reason: the launch refusal behind it, if
    /// one decided, is noted; the decision's words go into the trace.
    private mutating func traceDeferral(_ app: AppID, _ identifier: TextID, _ judgement: Judgement, _ candidate: Candidate) {
        if let refusal = launchRefusal(behind: judgement.key, app, cause: .bgTask) {
            noteRefusedLaunch(app, .bgTask, refusal)
        }
        let why = appendDecision(decision(judgement, candidate))
        apply(scheduler.deferred(app, identifier, why: why, now: now))
    }

    /// One event in the queue, at the earliest wake of any app.
    mutating func scheduleNextSchedulerWake() {
        if let wake = scheduler.nextWake() { apply(wake) }
    }

    /// The candidate judged by the policies (`decide`); where they say run,
    /// the launch policy (rules §11) has the last word on launching or waking
    /// the app. A refusal waits for a change (a device change or user action
    /// marks the scheduler dirty).
    @inline(__always) func judge(_ c: Candidate, _ app: AppID, cause: LaunchCause, taskIdentifier: TextID? = nil) -> Judgement {
        var j = decide(c)
        guard j.run else { return j }
        let verdict = launchVerdict(for: app, cause: cause, taskIdentifier: taskIdentifier.map { text($0) })
        guard let refusal = verdict.refusal else { return j }
        j.run = false
        j.key = .launchRefused(refusal)
        return j
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

    // MARK: Background fetch (rules §6)
    // `setMinimumBackgroundFetchInterval` (default never); `performFetch` with
    // newData / noData / failed within 30 s or the app is terminated
    // (0x2182bad4). Apps that finish fast and report honestly get more
    // opportunities [S] (the controller's fetch standing).

    /// Judges the app's next fetch opportunity: starts it, or traces why not
    /// when that changed (and the controller wakes when time alone would change it).
    mutating func evaluateFetch(_ app: AppID) {
        let declaresFetch = apps[Int(app.index)].manifest.backgroundModes.contains(.fetch)
        guard let candidate = scheduler.fetchCandidate(app, declaresFetch: declaresFetch) else { return }
        let judgement = judge(candidate, app, cause: .fetch)
        if judgement.run { return startFetch(app) }
        guard scheduler.fetchHeld(app, judgement) else { return }
        if let refusal = launchRefusal(behind: judgement.key, app, cause: .fetch) { noteRefusedLaunch(app, .fetch, refusal) }
        apply(.trace(app, .fetchDefer(reason: appendDecision(decision(judgement, candidate)))))
    }

    /// The app is woken for its fetch (unless it came to the front, or its launch was killed at once).
    mutating func startFetch(_ app: AppID) {
        let i = Int(app.index)
        if apps[i].state.isForeground { return }
        guard wakeForBackgroundWork(app, cause: .fetch) else { return }  // killed as it launched
        apps[i].stats.fetches += 1
        scheduler.startFetch(app, now: now, epoch: apps[i].epoch, &hookEffects.effects)
        carryOutHookEffects()
    }

    /// The fetch's timeout (its ticket is outstanding: the fetch is still in flight): the app is ended.
    mutating func fetchTimeoutFired(_ app: AppID) {
        guard scheduler.fetchTimedOut(app, now: now) else { return }
        terminate(app, .completionHandlerTimeout,
                  detail: "performFetch: the completion handler was not called within "
                    + Time.describe(schedulerSettings.fetchTimeout) + " (handler: fetch)")
    }
}
