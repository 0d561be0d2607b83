/// rules §7: silent and alert pushes. A background push (`content-available`,
/// priority 5) wakes a suspended `remote-notification` app or launches a
/// terminated one (cause `silentPush`, asked of the launch policy); priority
/// 10 does not launch it; more than `silentPushesPerHour` an hour are held;
/// while the app can't get it only the newest push is held, and it is
/// delivered as soon as it can be — at once when the user launches the app.
/// The app has 30 s to call the completion handler. Alert pushes go to the
/// user unless the app is in front. Every drop or hold is a `push.drop` with
/// its reason.
///
/// The push controller decides (`PushController`); what follows hands it the
/// input and the conditions it reads (`PushConditions`) and carries out what
/// it returns.

extension Engine {
    /// A push reaches the device for `app` (the scenario timeline's `push:`).
    public mutating func receivePush(_ push: Push, for app: AppID) {
        if push.type == .voip { return receiveVoIPPush(push, for: app) }
        apply(pushes.receive(app, push, pushConditions(of: app), settings: profile.push))
    }

    /// The push's `fetchCompletionHandler`.
    public mutating func completeRemoteNotification(for app: AppID, number: UInt32, result: BackgroundFetchResult) {
        apply(pushes.completed(app, number: number, result: result))
    }

    /// The push controller's state for the app now, and what a push would meet.
    public func pushControllerDump(of app: AppID) -> PushControllerDump {
        var dump = pushes.dump(app, pushConditions(of: app), settings: profile.push,
                               modes: apps[Int(app.index)].manifest.backgroundModes)
        if apps[Int(app.index)].manifest.backgroundModes.contains(.voip) {
            let services = servicesControllerDump(of: app)
            dump.voipFailures = services.voipFailures
            dump.voipFailureLimit = services.voipFailureLimit
        }
        return dump
    }

    public func explainPushes(app: AppID) -> String {
        pushControllerDump(of: app).explainSection(app: bundleIdentifier(app), at: Time.wallClock(wall(now), seconds: true)) {
            Time.wallClock(wall($0), seconds: true)
        }?.text ?? ""
    }

    // MARK: What the push controller reads

    /// The conditions a push to `app` meets now.
    func pushConditions(of app: AppID) -> PushConditions {
        let i = Int(app.index)
        return PushConditions(now: now, wallClockOffset: wallClockOffset, isFrontApp: frontApp == app,
                              state: apps[i].state, epoch: apps[i].epoch,
                              launchRefusal: launchVerdict(for: app, cause: .silentPush).refusal,
                              lastUse: scheduler.apps[i].usage.lastUse, lastBoot: lastBoot, herd: thunderingHerd(),
                              memoryPressure: memoryPressureAnswer(), fileProtection: fileProtectionAnswer(),
                              locked: device.locked, charging: device.charging, battery: device.battery,
                              lowPowerMode: device.lowPowerMode)
    }

    // MARK: Moments the coordinator forwards

    mutating func pushTimeoutFired(_ app: AppID) {
        apply(pushes.completionTimedOut(app, settings: profile.push))
    }

    mutating func pushRetryFired(_ app: AppID, generation: UInt32) {
        carryOut(pushes.retryFired(app, generation: generation))
    }

    /// rules §7 [D]: held pushes are delivered at once when the user launches the app.
    mutating func deliverHeldPushOnUserLaunch(_ app: AppID) {
        carryOut(pushes.deliverHeldOnUserLaunch(app, epoch: apps[Int(app.index)].epoch, now: now, settings: profile.push))
    }

    /// A push dropped with its reason (the VoIP path's drops).
    mutating func dropPush(_ app: AppID, _ push: Push, _ reason: String) {
        let cause: LaunchCause = push.type == .voip ? .voipPush : .silentPush
        apply(pushes.drop(app, push, reason, launchRefusal: launchVerdict(for: app, cause: cause).refusal))
    }

    // MARK: Asked by dasd's push decision (`dasdPushDecision`)

    func backgroundPushGate(_ app: AppID, _ push: Push, dasd: Bool = true) -> PushGate? {
        pushes.gate(app, push, pushConditions(of: app), settings: profile.push, dasd: dasd)
    }

    func pushPolicyResponses(_ app: AppID) -> [PushPolicyResponse] {
        PushController.policyResponses(pushConditions(of: app), settings: profile.push)
    }

    func pushVerdict(_ responses: [PushPolicyResponse]) -> (verdict: PolicyVerdict, sum: Double, denominator: Double) {
        PushController.verdict(responses, settings: profile.push)
    }
}
