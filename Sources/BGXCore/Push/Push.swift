/// SPEC §7: silent and alert pushes. A background push (`content-available`,
/// priority 5) wakes a suspended `remote-notification` app or launches a
/// terminated one (cause `silentPush`, asked of the launch policy); priority
/// 10 does not launch it; more than `silentPushesPerHour` an hour are held;
/// while the app can't get it only the newest push is held, and it is
/// delivered as soon as it can be — at once when the user launches the app.
/// The app has 30 s to call the completion handler. Alert pushes go to the
/// user unless the app is in front. Every drop or hold is a `push.drop` with
/// its reason.

/// What the system keeps per app for its pushes.
struct PushState: Sendable {
    /// The newest background push not yet deliverable (only the newest is kept).
    var held: Push?
    var heldSince: Nanoseconds?
    /// When background pushes were delivered to the app in the background
    /// within the last hour (the hourly throttle).
    var recent: [Nanoseconds] = []
    /// The daily budget: background pushes delivered in the 24 h since the first.
    var budget = DailyCounter<Int>()
    var nextNumber: UInt32 = 0
    /// Pushes whose completion handler the app has not called yet; `watched`
    /// ones (delivered in the background) hold the app running and time out.
    var awaitingCompletion: [(number: UInt32, watched: Bool)] = []
    /// Bumped to cancel a scheduled retry.
    var retryGeneration: UInt32 = 0

    var keepsAppRunning: Bool { awaitingCompletion.contains { $0.watched } }

    mutating func processEnded() { awaitingCompletion.clearKeepingCapacity() }
}

extension Engine {
    /// A push reaches the device for `app` (the scenario timeline's `push:`).
    public mutating func receivePush(_ push: Push, for app: AppID) {
        switch push.type {
        case .alert:
            // Shown to the person, unless the app is in front: then it is the app's.
            let toApp = frontApp == app && apps[Int(app.index)].state.isRunning
            record(app, .pushDeliver(type: .alert, priority: push.priority, toApp: toApp))
            if toApp { handPushToApp(app, push, watched: false) }
        case .background:
            if frontApp == app && apps[Int(app.index)].state.isRunning {
                record(app, .pushDeliver(type: .background, priority: push.priority, toApp: true))
                handPushToApp(app, push, watched: false)
                return
            }
            switch backgroundPushGate(app, push) {
            case nil: deliverInBackground(app, push)
            case let .drop(reason): dropPush(app, push, reason)
            case let .hold(reason, retryAt): hold(app, push, reason, retryAt: retryAt)
            }
        case .voip:
            receiveVoIPPush(push, for: app)
        }
    }

    /// What stops a background push from reaching an app that is not in front.
    enum PushGate: Equatable {
        case drop(String)
        case hold(String, retryAt: Nanoseconds?)
    }

    func backgroundPushGate(_ app: AppID, _ push: Push, dasd: Bool = true) -> PushGate? {
        let i = Int(app.index)
        let p = profile.push
        if !p.silentPushSupported { return .drop("content-available pushes wake apps from iOS 7 on") }
        if push.priority > 5 && apps[i].state == .notRunning {
            return .drop("priority \(push.priority) background pushes do not launch the app (send them with priority 5)")
        }
        if let refusal = launchVerdict(for: app, cause: .silentPush).refusal {
            switch refusal {
            case .forceQuit, .beforeFirstUnlock: return .hold(refusal.reason, retryAt: nil)
            case .multitaskingUnsupported, .modeMissing, .taskIdentifierNotPermitted,
                 .backgroundAppRefreshOff, .backgroundAppRefreshOffForApp: return .drop(refusal.reason)
            }
        }
        if let cutoff = p.silentPushUnusedAppCutoff {
            guard let lastUse = apps[i].usage.lastUse else { return .drop("the app has never been opened") }
            if now - lastUse > cutoff {
                return .drop("the app has not been opened since \(clockText(lastUse)) (over \(Time.describe(cutoff)))")
            }
        }
        if dasd, let refused = dasdPushGate(app) { return refused }
        if let minimum = p.silentPushMinimumBattery, !device.charging, device.battery <= minimum {
            return .hold("battery at \(device.battery)% (≤ \(minimum)%): background pushes wait", retryAt: nil)
        }
        if p.silentPushPausedInLowPowerMode && device.lowPowerMode {
            return .hold("Low Power Mode pauses background pushes", retryAt: nil)
        }
        let lastHour = recentDeliveries(app)
        if lastHour.count >= p.silentPushesPerHour {
            return .hold("throttled: \(lastHour.count) background pushes in the past hour "
                         + "(at most \(p.silentPushesPerHour))", retryAt: lastHour[0] + Time.hours(1))
        }
        if let budget = p.silentPushDailyBudget, let resets = apps[i].push.budget.dayEnds(after: now),
           apps[i].push.budget.spent(at: now) >= budget {
            return .hold("the daily budget of \(budget) background pushes is spent; it resets at "
                         + clockText(resets), retryAt: resets)
        }
        return nil
    }

    /// Background deliveries to the app in the background within the past hour.
    func recentDeliveries(_ app: AppID) -> ArraySlice<Nanoseconds> {
        let recent = apps[Int(app.index)].push.recent
        return recent[(recent.firstIndex { now - $0 < Time.hours(1) } ?? recent.endIndex)...]
    }

    mutating func dropPush(_ app: AppID, _ push: Push, _ reason: String) {
        record(app, .pushDrop(type: push.type, priority: push.priority, reason: text(reason), held: false))
    }

    /// Keeps only the newest push; a scheduled retry comes when a throttle or budget ends.
    mutating func hold(_ app: AppID, _ push: Push, _ reason: String, retryAt: Nanoseconds?) {
        let i = Int(app.index)
        if let older = apps[i].push.held {
            dropPush(app, older, "replaced by a newer push while held: only the newest is kept")
        }
        apps[i].push.held = push
        heldPushApps.insert(app.index)
        apps[i].push.heldSince = now
        record(app, .pushDrop(type: push.type, priority: push.priority, reason: text("held: " + reason), held: true))
        scheduleRetry(app, at: retryAt)
    }

    mutating func scheduleRetry(_ app: AppID, at time: Nanoseconds?) {
        guard let time else { return }
        let i = Int(app.index)
        apps[i].push.retryGeneration &+= 1
        queue.push(.pushRetry(app, generation: apps[i].push.retryGeneration), at: time)
    }

    /// Wakes or launches the app with the push; it counts against the
    /// throttle and the daily budget.
    mutating func deliverInBackground(_ app: AppID, _ push: Push) {
        let i = Int(app.index)
        apps[i].push.recent = Array(recentDeliveries(app)) + [now]
        apps[i].push.budget.add(1, at: now, day: .rolling)
        record(app, .pushDeliver(type: push.type, priority: push.priority, toApp: true))
        wakeIntoBackground(app, cause: .silentPush)
        // A launch killed at once (over the memory limit) leaves no push for the next process.
        guard apps[i].state.isRunning else { return }
        handPushToApp(app, push, watched: true)
    }

    /// Queues `didReceiveRemoteNotification` on the main thread. A watched
    /// push keeps the app running until its completion handler is called,
    /// for at most `completionTimeout`.
    mutating func handPushToApp(_ app: AppID, _ push: Push, watched: Bool) {
        let i = Int(app.index)
        apps[i].push.nextNumber &+= 1
        let number = apps[i].push.nextNumber
        apps[i].push.awaitingCompletion.append((number, watched))
        if watched { setAssertion(.pushCompletion, true, i) }
        if watched {
            queue.push(.pushTimeout(app, ticket(app, number)), at: now + profile.push.completionTimeout)
        }
        apps[i].jobs.append(.remoteNotification(number, push.type))
        pump(app)
    }

    /// The push's `fetchCompletionHandler`.
    public mutating func completeRemoteNotification(for app: AppID, number: UInt32, result: BackgroundFetchResult) {
        let i = Int(app.index)
        guard let k = apps[i].push.awaitingCompletion.firstIndex(where: { $0.number == number }) else {
            log(app, "didReceiveRemoteNotification: the completion handler was called more than once")
            return
        }
        apps[i].push.awaitingCompletion.remove(at: k)
        setAssertion(.pushCompletion, apps[i].push.keepsAppRunning, i)
        record(app, .pushComplete(result: result))
        suspendIfThreadFree(app)
    }

    mutating func pushTimeoutFired(_ app: AppID) {
        terminate(app, .completionHandlerTimeout,
                  detail: "didReceiveRemoteNotification: the completion handler was not called within "
                    + Time.describe(profile.push.completionTimeout) + " (handler: silent push)")
    }

    mutating func pushRetryFired(_ app: AppID, generation: UInt32) {
        if apps[Int(app.index)].push.retryGeneration == generation { retryHeldPush(app) }
    }

    /// Conditions changed (the device, an unlock, a reboot): held pushes may go now.
    mutating func retryHeldPushes() {
        for i in heldPushApps.sorted() where apps[Int(i)].push.held != nil { retryHeldPush(AppID(index: i)) }
    }

    mutating func retryHeldPush(_ app: AppID) {
        let i = Int(app.index)
        guard let push = apps[i].push.held else { return }
        if frontApp == app { return }  // the user's launch delivered it
        switch backgroundPushGate(app, push) {
        case nil:
            apps[i].push.held = nil
            heldPushApps.remove(app.index)
            deliverInBackground(app, push)
        case let .drop(reason):
            apps[i].push.held = nil
            heldPushApps.remove(app.index)
            dropPush(app, push, reason)
        case let .hold(_, retryAt):
            scheduleRetry(app, at: retryAt)
        }
    }

    /// SPEC §7 [D]: held pushes are delivered at once when the user launches the app.
    mutating func deliverHeldPushOnUserLaunch(_ app: AppID) {
        let i = Int(app.index)
        guard let push = apps[i].push.held else { return }
        apps[i].push.held = nil
        heldPushApps.remove(app.index)
        record(app, .pushDeliver(type: push.type, priority: push.priority, toApp: true))
        handPushToApp(app, push, watched: false)
    }
}
