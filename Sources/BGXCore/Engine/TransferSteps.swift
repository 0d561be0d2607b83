/// The coordinator's side of the transfer controller (rules §8): what it
/// reads of the engine for the controller (the device's conditions, an
/// app's process and the launch policy's answer), the events and moments it
/// forwards, and the steps the controller returns to be called back at
/// (`TransferStep`), once what came before has been carried out.
extension Engine {
    @inline(__always) var transferConditions: TransferConditions {
        TransferConditions(now: now, device: device, wallClockOffset: wallClockOffset)
    }

    /// The app's process as the transfer controller reads it (no session in question).
    func transferView(of app: AppID) -> TransferAppView {
        let i = Int(app.index)
        return TransferAppView(state: apps[i].state, epoch: apps[i].epoch,
                               eventsSessionName: transfers.apps[i].eventsWake.map { text($0.session) })
    }

    /// The session's app as the transfer controller reads it, with the launch
    /// policy's answer for the session's cause when the app does not run.
    func transferView(session s: Int) -> TransferAppView {
        let session = transfers.sessions[s]
        var view = transferView(of: session.app)
        view.sessionName = text(session.identifier)
        if !view.state.isRunning {
            view.launchRefusal = launchVerdict(for: session.app, cause: session.newsstand ? .newsstand : .transfer)
                .refusal?.reason
        }
        return view
    }

    /// Carries out a step the transfer controller returned.
    mutating func continueTransfers(_ step: TransferStep) {
        switch step {
        case .settle:
            transfers.settle(transferConditions)
        case .review:
            apply(transfers.review(transferConditions, settings: profile.transfers))
        case .reviewHeld:
            apply(transfers.reviewHeld())
        case let .wake(s, cause):
            let running = wakeIntoBackground(transfers.sessions[s].app, cause: cause)
            apply(transfers.woke(s, cause: cause, running: running, transferView(session: s), now: now,
                                 settings: profile.transfers))
        case let .held(s), let .finished(s), let .settled(s), let .newsstandFinished(s):
            apply(transfers.resume(step, transferView(session: s), now: now, settings: profile.transfers))
        }
    }

    // MARK: Events and moments, forwarded

    mutating func transferReviewFired(generation: UInt32) {
        apply(transfers.reviewFired(generation: generation, transferConditions, settings: profile.transfers))
    }

    mutating func transferWakeFired(_ app: AppID, session id: TextID, number: UInt32) {
        guard let s = transfers.sessionIndex(app, id) else { return }
        apply(transfers.wakeFired(app, session: id, number: number, transferView(session: s), now: now,
                                  settings: profile.transfers))
    }

    mutating func transferEventsDeadlineFired(_ app: AppID) {
        apply(transfers.eventsDeadline(app, transferView(of: app)))
    }

    mutating func runTransferJob(_ job: TransferJob, for app: AppID) {
        if let callback = transfers.callback(for: job, app, epoch: apps[Int(app.index)].epoch) {
            deliver(callback, to: app, watchdog: nil)
        }
    }

    /// The app is in front: the rate limiter starts over, and a session
    /// object the process holds receives what waited (run by the caller's `pump`).
    mutating func transfersAppCameToFront(_ app: AppID) {
        let i = Int(app.index)
        transfers.appCameToFront(app, state: apps[i].state, epoch: apps[i].epoch, &hookEffects.effects)
        if !hookEffects.effects.isEmpty { carryOutHookEffects() }
    }

    /// A swipe in the app switcher cancels the app's unfinished transfers (rules §8).
    mutating func cancelTransfersForForceQuit(_ app: AppID) {
        carryOut(transfers.cancelForForceQuit(app, transferConditions, settings: profile.transfers))
    }

    /// Sessions whose wake was refused are looked at again (the first unlock).
    mutating func reviewHeldTransferSessions() {
        continueTransfers(.reviewHeld)
    }
}
