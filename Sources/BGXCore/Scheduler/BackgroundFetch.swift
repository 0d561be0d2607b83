/// rules §6: legacy background fetch. `setMinimumBackgroundFetchInterval`
/// (default never); `performFetch` with newData / noData / failed within 30 s
/// or the app is terminated (0x2182bad4). Apps that finish fast and report
/// honestly get more opportunities [S].
extension Engine {
    /// nil is `UIApplicationBackgroundFetchIntervalNever`.
    public mutating func setMinimumBackgroundFetchInterval(for app: AppID, _ interval: Nanoseconds?) {
        let i = Int(app.index)
        if interval != nil && !apps[i].manifest.backgroundModes.contains(.fetch) {
            log(app, "You've set a background fetch interval, but you still need to add \"fetch\" to the list of "
                + "your supported UIBackgroundModes in your Info.plist; no fetch will happen.")
        }
        scheduler.setFetchInterval(app, interval.map { max($0, schedulerSettings.minimumFetchInterval) })
    }

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
        if scheduler.apps[i].fetchDeferKey != judgement.key {
            scheduler.apps[i].fetchDeferKey = judgement.key
            if let refusal = launchRefusal(behind: judgement.key, app, cause: .fetch) { noteRefusedLaunch(app, .fetch, refusal) }
            record(app, .fetchDefer(reason: appendDecision(decision(judgement, candidate))))
        }
        return judgement.nextChange
    }

    mutating func startFetch(_ app: AppID) {
        let i = Int(app.index)
        if apps[i].state.isForeground { return }
        guard wakeForBackgroundWork(app, cause: .fetch) else { return }  // killed as it launched
        let number = scheduler.fetchStarted(app, now: now)
        setAssertion(.fetch, true, i)
        apps[i].stats.fetches += 1
        record(app, .fetchStart)
        queue.push(.fetchTimeout(app, ticket(app, number)), at: now + schedulerSettings.fetchTimeout)
        apps[i].jobs.append(.performFetch)
        pump(app)
    }

    /// The fetch completion handler.
    public mutating func completeFetch(for app: AppID, result: BackgroundFetchResult) {
        let i = Int(app.index)
        guard let fetch = scheduler.apps[i].fetchInFlight else {
            log(app, "performFetch completion handler called with no fetch in progress")
            return
        }
        scheduler.apps[i].fetchInFlight = nil
        setAssertion(.fetch, false, i)
        record(app, .fetchComplete(result: result))
        if scheduler.apps[i].fetchAwaitingCost != nil { fetchLeftBackground(app) }  // an earlier one, still awake
        // Judged when the app leaves the background (`fetchLeftBackground`): the
        // energy clock runs on until then, and time awake is what the fetch cost.
        scheduler.apps[i].fetchAwaitingCost = FetchAwaitingCost(
            result: result, started: fetch.started, fetchedSomething: fetch.asyncWork > 0 || fetch.bytes > 0,
            bytes: fetch.bytes)
        if apps[i].state != .background { fetchLeftBackground(app) }
        markSchedulerDirty(for: app)
        suspendIfThreadFree(app)
    }

    /// The app that reported a fetch left the background (suspended, ended, or
    /// brought to the front): the fetch is judged on the time it stayed awake.
    mutating func fetchLeftBackground(_ app: AppID) {
        carryOut(scheduler.fetchLeftBackground(app, now: now))
    }

    /// The fetch's timeout (its ticket is outstanding: the fetch is still in flight).
    mutating func fetchTimeoutFired(_ app: AppID) {
        let i = Int(app.index)
        guard let fetch = scheduler.apps[i].fetchInFlight else { return }
        scheduler.judgeFetch(app, .timedOut, took: now - fetch.started, now: now,
                             settings: schedulerSettings)
        terminate(app, .completionHandlerTimeout,
                  detail: "performFetch: the completion handler was not called within "
                    + Time.describe(schedulerSettings.fetchTimeout) + " (handler: fetch)")
    }
}
