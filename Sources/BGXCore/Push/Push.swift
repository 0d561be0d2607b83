/// rules §7: silent and alert pushes. A background push (`content-available`,
/// priority 5) wakes a suspended `remote-notification` app or launches a
/// terminated one (cause `silentPush`, asked of the launch policy); priority
/// 10 does not launch it; more than `silentPushesPerHour` an hour are held;
/// while the app can't get it only the newest push is held, and it is
/// delivered as soon as it can be — at once when the user launches the app.
/// The app has 30 s to call the completion handler. Alert pushes go to the
/// user unless the app is in front. Every drop or hold is a `push.drop` with
/// its reason.

extension Engine {
    /// A push reaches the device for `app` (the scenario timeline's `push:`).
    public mutating func receivePush(_ push: Push, for app: AppID) {
        switch push.type {
        case .alert:
            // Shown to the person, unless the app is in front: then it is the app's.
            let toApp = frontApp == app && apps[Int(app.index)].state.isRunning
            record(app, .pushDeliver(type: .alert, priority: push.priority, toApp: toApp))
            if toApp { handPushToApp(app, push) }
        case .background:
            if frontApp == app && apps[Int(app.index)].state.isRunning {
                record(app, .pushDeliver(type: .background, priority: push.priority, toApp: true))
                handPushToApp(app, push)
                return
            }
            switch backgroundPushGate(app, push) {
            case nil: apply(pushes.deliverInBackground(app, push, now: now))
            case let .drop(reason): dropPush(app, push, reason)
            case let .hold(reason, retryAt):
                noteIfLaunchRefused(app, push, reason)
                apply(pushes.hold(app, push, reason, retryAt: retryAt, now: now))
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
            guard let lastUse = scheduler.apps[i].usage.lastUse else { return .drop("the app has never been opened") }
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
        return pushes.ownHold(app, now: now, settings: p, clockText: clockText).map { .hold($0.reason, retryAt: $0.retryAt) }
    }

    mutating func dropPush(_ app: AppID, _ push: Push, _ reason: String) {
        noteIfLaunchRefused(app, push, reason)
        apply(.pushDrop(app, push, reason: reason, held: false))
    }

    /// A push dropped or held because the launch policy refused the app
    /// (its reason is the refusal's) is a refused launch for the launch controller.
    mutating func noteIfLaunchRefused(_ app: AppID, _ push: Push, _ reason: String) {
        let cause: LaunchCause = push.type == .voip ? .voipPush : .silentPush
        let i = Int(app.index)
        // The facts read in place: `launchVerdict`, out of line from here, copies the engine.
        let facts = LaunchPolicy.AppFacts(modes: apps[i].manifest.backgroundModes, forceQuit: apps[i].forceQuit,
                                          backgroundAppRefresh: apps[i].manifest.backgroundAppRefresh)
        if let refusal = launches.verdict(for: cause, app: facts, device: device).refusal, refusal.reason == reason {
            noteRefusedLaunch(app, cause, refusal)
        }
    }

    /// Hands a push to the app in front (or launched by the user): not watched, it holds nothing.
    mutating func handPushToApp(_ app: AppID, _ push: Push) {
        apply(pushes.handToApp(app, push, watched: false, epoch: apps[Int(app.index)].epoch, now: now,
                               completionTimeout: profile.push.completionTimeout))
    }

    /// The push's `fetchCompletionHandler`.
    public mutating func completeRemoteNotification(for app: AppID, number: UInt32, result: BackgroundFetchResult) {
        apply(pushes.completed(app, number: number, result: result))
    }

    mutating func pushTimeoutFired(_ app: AppID) {
        terminate(app, .completionHandlerTimeout,
                  detail: "didReceiveRemoteNotification: the completion handler was not called within "
                    + Time.describe(profile.push.completionTimeout) + " (handler: silent push)")
    }

    mutating func pushRetryFired(_ app: AppID, generation: UInt32) {
        if pushes.retryDue(app, generation: generation) { retryHeldPush(app) }
    }

    /// Conditions changed (the device, an unlock, a reboot): held pushes may go now.
    mutating func retryHeldPushes() {
        for i in pushes.heldApps.sorted() where pushes.apps[Int(i)].held != nil { retryHeldPush(AppID(index: i)) }
    }

    mutating func retryHeldPush(_ app: AppID) {
        guard let push = pushes.apps[Int(app.index)].held else { return }
        if frontApp == app { return }  // the user's launch delivered it
        switch backgroundPushGate(app, push) {
        case nil:
            _ = pushes.takeHeld(app)
            apply(pushes.deliverInBackground(app, push, now: now))
        case let .drop(reason):
            _ = pushes.takeHeld(app)
            dropPush(app, push, reason)
        case let .hold(_, retryAt):
            apply(pushes.scheduleRetry(app, at: retryAt))
        }
    }

    /// rules §7 [D]: held pushes are delivered at once when the user launches the app.
    mutating func deliverHeldPushOnUserLaunch(_ app: AppID) {
        guard let push = pushes.takeHeld(app) else { return }
        record(app, .pushDeliver(type: push.type, priority: push.priority, toApp: true))
        handPushToApp(app, push)
    }
}
