/// rules §6: legacy background fetch. `setMinimumBackgroundFetchInterval`
/// (default never); `performFetch` with newData / noData / failed within 30 s
/// or the app is terminated (0x2182bad4). Apps that finish fast and report
/// honestly get more opportunities [S].
extension Engine {
    /// Judges the app's next fetch opportunity; starts it, or returns when to look again.
    mutating func evaluateFetch(_ app: AppID) -> Nanoseconds? {
        let i = Int(app.index)
        guard let interval = scheduler.apps[i].fetchInterval, apps[i].manifest.backgroundModes.contains(.fetch),
              scheduler.apps[i].fetchInFlight == nil, let firstUse = scheduler.apps[i].usage.firstUse else { return nil }
        let since = scheduler.apps[i].lastFetch ?? firstUse
        let candidate = Candidate(app: app, kind: .fetch, earliest: since + interval, submittedAt: since,
                                  requiresNetwork: false, requiresPower: false)
        var judgement = decide(candidate)
        if judgement.run { refuseIfLaunchPolicySaysNo(&judgement, app, cause: .fetch) }
        if judgement.run {
            startFetch(app)
            return nil
        }
        if scheduler.fetchDeferralChanged(app, to: judgement.key) {
            if let refusal = launchRefusal(behind: judgement.key, app, cause: .fetch) { noteRefusedLaunch(app, .fetch, refusal) }
            apply(.trace(app, .fetchDefer(reason: appendDecision(decision(judgement, candidate)))))
        }
        return judgement.nextChange
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
