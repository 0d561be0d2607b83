/// The coordinator's side of the long-running services controller (rules
/// §4, §11): what it reads of the engine for the controller (an app's
/// process and modes, the launch policy's answer), the events and moments
/// it forwards, and the steps the controller returns to be called back at
/// (`ServiceStep`), once what came before has been carried out.
extension Engine {
    /// The app's process as the services controller reads it (no launch in question).
    @inline(__always) func serviceView(of app: AppID) -> ServiceAppView {
        let i = Int(app.index)
        return ServiceAppView(state: apps[i].state, epoch: apps[i].epoch, modes: apps[i].manifest.backgroundModes)
    }

    /// The app as the services controller reads it for an event that would
    /// wake or launch it for `cause`: with the launch policy's answer when it
    /// is suspended or not running (an app that runs needs no launch).
    func serviceView(of app: AppID, wakingFor cause: LaunchCause) -> ServiceAppView {
        var view = serviceView(of: app)
        if view.state == .notRunning || view.state == .suspended {
            view.launchRefusal = launchVerdict(for: app, cause: cause).refusal?.reason
        }
        return view
    }

    /// Carries out a step the services controller returned.
    mutating func continueServices(_ step: ServiceStep) {
        let app = step.app
        let view = step.cause.map { serviceView(of: app, wakingFor: $0) } ?? serviceView(of: app)
        let settings = profile.longRunning
        switch step {
        case let .interruptAudio(_, reason):
            apply(services.interruptAudio(app, reason: reason, view))
        case .standardFix:
            apply(services.standardFix(app, view))
        case .significantChange:
            apply(services.locationEvent(app, .significant, region: nil, entered: false, view, now: now, settings: settings))
        case let .region(_, region, entered):
            apply(services.locationEvent(app, .region, region: region, entered: entered, view, now: now,
                                         settings: settings))
        case let .voipPushWoke(_, payload):
            apply(services.voipPushWoke(app, payload: payload, view))
        }
    }

    // MARK: Events, forwarded

    mutating func audioEnded(_ app: AppID) {
        apply(services.audioStopped(app, reason: "playback finished", serviceView(of: app)))
    }

    mutating func serviceWakeEnded(_ app: AppID) {
        apply(services.runEndFired(app))
    }

    mutating func significantChangeDue(_ app: AppID, generation: UInt32) {
        apply(services.significantChangeDue(app, generation: generation, now: now, settings: profile.longRunning))
    }

    mutating func accessoryDataArrived(for app: AppID, _ transport: AccessoryTransport) {
        apply(services.accessoryData(app, transport, serviceView(of: app, wakingFor: transport.cause), now: now,
                                     settings: profile.longRunning))
    }

    mutating func voipSocketTraffic(_ app: AppID) {
        apply(services.voipSocketTraffic(app, serviceView(of: app)))
    }

    mutating func keepAliveFired(_ app: AppID, _ ticket: Ticket) {
        apply(services.keepAliveFired(app, ticket, serviceView(of: app), now: now))
    }

    /// A PushKit VoIP push for the app (`receivePush` hands it here).
    mutating func receiveVoIPPush(_ push: Push, for app: AppID) {
        let needsLaunch = frontApp != app || !apps[Int(app.index)].state.isRunning
        if let refusal = services.voipPushRefusal(
            app, name: bundleIdentifier(app),
            launchRefusal: needsLaunch ? launchVerdict(for: app, cause: .voipPush).refusal?.reason : nil,
            settings: profile.push) {
            return dropPush(app, push, refusal)
        }
        apply([.trace(app, .pushDeliver(type: .voip, priority: push.priority, toApp: true)),
               .wakeIntoBackground(app, .voipPush),
               .continueServices(.voipPushWoke(app, payload: push.payload))])
    }

    /// The VoIP push handler returned. Returns false when the app was
    /// terminated for not reporting a call.
    mutating func voipHandlerReturned(_ app: AppID) -> Bool {
        guard let detail = services.voipHandlerReturned(app, settings: profile.push) else { return true }
        apply(.terminate(app, .voipCallNotReported, detail: detail))
        return false
    }

    // MARK: Moments of the app's lifecycle

    /// The clock reached the end of one or more service events' runs: each
    /// app's `serviceEvent` reason goes now, before anything due at this
    /// moment is handled (its `serviceWakeEnd` then suspends it if idle).
    /// Out of line: the step only compares the time with `runsEndBy`.
    @inline(never) mutating func serviceRunsReachedTheirEnd() {
        for i in services.endRuns(now: now) { setAssertion(.serviceEvent, false, i) }
    }

    /// Audible audio, or an accessory or Bluetooth session held in the
    /// background, puts the app in jetsam's audio-and-accessory band (rules §10).
    /// A session counts only with its mode: without it the app is not served in the background.
    @inline(__always) mutating func noteAudioOrAccessoryAssertion(_ i: Int) {
        let held = services.holdsAudioOrAccessory(i, running: apps[i].state != .notRunning,
                                                  inForeground: apps[i].state.isForeground) {
            LongRunningServicesController.hasMode($0, apps[i].manifest.backgroundModes)
        }
        setAssertion(.audioOrAccessory, held, i)
    }

    /// Without its mode, a service stops when the app leaves the front (rules §4).
    mutating func servicesEnteredBackground(_ app: AppID) {
        let i = Int(app.index)
        // Most apps hold neither audio nor a session: nothing to ask the controller.
        if services.hasAudioOrSession(i) {
            services.enteredBackground(app, serviceView(of: app), &hookEffects.effects)
            if !hookEffects.effects.isEmpty { carryOutHookEffects() }
        }
        noteAudioOrAccessoryAssertion(i)
    }

    /// Sessions the system closed reconnect when the app is back in front.
    mutating func servicesEnteredForeground(_ app: AppID) {
        let i = Int(app.index)
        services.runEnded(app)
        setAssertion(.serviceEvent, false, i)
        // Most apps hold no session: skip the controller's pass.
        if services.hasDisconnectedSession(i) { apply(services.reconnect(app)) }
        noteAudioOrAccessoryAssertion(i)
    }

    /// VoIP apps are relaunched at boot — once the first unlock allows it
    /// when there is a passcode (rules §4, §11). The launch policy's and the
    /// process table's question: the services controller holds nothing of it.
    mutating func relaunchVoIPAppsAtBoot() {
        guard profile.push.relaunchVoIPAppsAtBoot else { return }
        for i in apps.indices where apps[i].manifest.backgroundModes.contains(.voip) && apps[i].state == .notRunning {
            let app = AppID(index: Int32(i))
            if launchVerdict(for: app, cause: .boot).allowed { launch(app, cause: .boot) }
        }
    }
}
