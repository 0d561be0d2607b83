/// rules §4, §11: what keeps a service app running, the short run an event
/// buys a suspended or terminated app, and what happens to the services when
/// the app leaves the front, returns, or ends.
extension Engine {
    /// Standard location updates hold the app in the background only where
    /// it may receive them there (`backgroundLocationAllowed`): asked when
    /// updates start or stop and when `allowsBackgroundLocationUpdates` changes.
    mutating func noteBackgroundLocationAssertion(_ i: Int) {
        setAssertion(.backgroundLocation, services.apps[i].location.standard && backgroundLocationAllowed(i), i)
    }

    /// The clock reached the end of one or more service events' runs: each
    /// app's `serviceEvent` reason goes now, before anything due at this
    /// moment is handled (its `serviceWakeEnd` then suspends it if idle).
    /// Out of line: the step only compares the time with `runsEndBy`.
    @inline(never) mutating func serviceRunsReachedTheirEnd() {
        for i in services.endRuns(now: now) { setAssertion(.serviceEvent, false, i) }
    }

    /// Audible audio, or an accessory or Bluetooth session held in the
    /// background, puts the app in jetsam's audio-and-accessory band (rules §10).
    mutating func noteAudioOrAccessoryAssertion(_ app: AppID) {
        let i = Int(app.index)
        // A session is an assertion only with its mode: without it the app is not served in the background.
        let held = services.holdsAudioOrAccessory(i, running: apps[i].state != .notRunning,
                                                  inForeground: apps[i].state.isForeground) { hasAccessoryMode(i, $0) }
        setAssertion(.audioOrAccessory, held, i)
    }

    /// Why a service event may not wake or relaunch the app now, or nil: the
    /// launch policy's answer (rules §11) for a suspended or terminated app; an
    /// app that runs needs no launch.
    func serviceWakeRefusal(_ app: AppID, cause: LaunchCause) -> String? {
        let state = apps[Int(app.index)].state
        guard state == .notRunning || state == .suspended else { return nil }
        return launchVerdict(for: app, cause: cause).refusal?.reason
    }

    /// Hands the app a service callback: in front it simply runs; in the
    /// background it runs at least `runTime` more; a suspended app is resumed
    /// and a terminated one launched into the background with `cause` (the
    /// caller has asked `serviceWakeRefusal` first).
    mutating func wakeForServiceEvent(_ app: AppID, cause: LaunchCause, callback: Callback, runTime: Nanoseconds) {
        let i = Int(app.index)
        let state = apps[i].state
        if !state.isForeground {
            apply(services.extendRun(app, runTime: runTime, now: now, epoch: apps[i].epoch))
            setAssertion(.serviceEvent, services.runLasts(i, now: now), i)
        }
        // A launch killed at once leaves no process for the event.
        guard wakeIntoBackground(app, cause: cause) else { return }
        apps[i].jobs.append(.service(callback))
        pump(app)
    }

    mutating func serviceWakeEnded(_ app: AppID) {
        services.runEnded(app)
        setAssertion(.serviceEvent, false, Int(app.index))
        suspendIfThreadFree(app)
    }

    /// Without its mode, a service stops when the app leaves the front (rules §4).
    mutating func servicesEnteredBackground(_ app: AppID) {
        let i = Int(app.index)
        if let audio = services.apps[i].audio {
            if !apps[i].manifest.backgroundModes.contains(.audio) {
                stopAudio(app, reason: "no 'audio' in UIBackgroundModes: audio stops when the app leaves the front")
            } else if !audio.category.playsInBackground {
                stopAudio(app, reason: "the \(audio.category) category is silenced when the app leaves the front "
                          + "(background audio needs playback, record or playAndRecord)")
            }
        }
        // Most apps hold no session: skip the pass (and its array of cases).
        let anySession = services.apps[i].accessory != .none || services.apps[i].bluetooth != .none
        for transport in anySession ? AccessoryTransport.allCases : []
        where services.apps[i].session(transport) == .open && !hasAccessoryMode(i, transport) {
            services.apps[i].setSession(transport, .disconnected)
            record(app, .accessoryDisconnect(transport: transport, reason: text(
                "no '\(accessoryModeName(transport))' in UIBackgroundModes: the \(transport) disconnects "
                + "when the app leaves the front")))
            apps[i].jobs.append(.service(.accessoryDidDisconnect(transport)))
        }
        noteAudioOrAccessoryAssertion(app)
    }

    /// Sessions the system closed reconnect when the app is back in front.
    mutating func servicesEnteredForeground(_ app: AppID) {
        let i = Int(app.index)
        services.runEnded(app)
        setAssertion(.serviceEvent, false, i)
        // Most apps hold no session: skip the pass, which would copy the app's services per transport.
        let anyDisconnected = services.apps[i].accessory == .disconnected || services.apps[i].bluetooth == .disconnected
        for transport in anyDisconnected ? AccessoryTransport.allCases : []
        where services.apps[i].session(transport) == .disconnected {
            services.apps[i].setSession(transport, .open)
            record(app, .accessoryConnect(transport: transport))
        }
        noteAudioOrAccessoryAssertion(app)
    }
}
