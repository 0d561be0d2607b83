/// The coordinator's side of the continued-processing controller (rules
/// §13): what it reads of the engine for the controller (the app's process,
/// its manifest and registrations, the device, which running tasks the task
/// scheduler has already expired), the steps the controller returns to be
/// carried out in their place among its effects (`ContinuedProcessingStep`),
/// and what a continued-processing task means in the task scheduler's books,
/// which are not the controller's.
extension Engine {
    /// The permitted identifier with a wildcard that `identifier` falls under
    /// (`com.example.export.*` for `com.example.export.photos`), if any.
    func wildcardIdentifier(of app: AppID, matching identifier: String) -> String? {
        apps[Int(app.index)].manifest.wildcardIdentifier(matching: identifier)
    }

    /// What the controller judges a submission with.
    func continuedSubmissionFacts(of app: AppID, _ request: ContinuedProcessingRequest) -> ContinuedSubmissionFacts {
        let i = Int(app.index)
        let wildcard = wildcardIdentifier(of: app, matching: request.identifier)
        // Looked up, not interned: a wildcard never interned was never registered.
        let registered = wildcard.flatMap { texts.index[$0] }
            .map { taskScheduler.isRegistered(app, TextID(index: $0)) } ?? false
        return ContinuedSubmissionFacts(profileName: profile.name, wildcard: wildcard, state: apps[i].state,
                                        inFront: apps[i].state == .active && frontApp == app,
                                        handlerRegistered: registered, backgroundGPU: device.backgroundGPU)
    }

    /// Carries out a step the continued-processing controller returned.
    mutating func continueContinuedProcessing(_ step: ContinuedProcessingStep) {
        switch step {
        case .startQueued:
            while let k = continuedProcessing.nextToStart {
                let app = continuedProcessing.tasks[k].app
                apply(continuedProcessing.start(k, appState: apps[Int(app.index)].state,
                                                reason: "a slot came free (it was queued)", now: now))
            }
        case let .relievePressure(thermal):
            // An expired task is already winding down (its expiration handler runs): pressure ends another.
            var windingDown = Set<ContinuedTaskKey>()
            for task in continuedProcessing.tasks
            where task.running && taskScheduler.runningTask(task.app, task.identifier)?.expired == true {
                windingDown.insert(ContinuedTaskKey(app: task.app, identifier: task.identifier))
            }
            apply(continuedProcessing.relievePressure(thermal, windingDown: windingDown, now: now,
                                                      wallClockOffset: wallClockOffset))
        case let .handOver(app, id, reason):
            let i = Int(app.index)
            taskScheduler.started(app, RunningTask(identifier: id, kind: .continuedProcessing, started: now,
                                                   requiresExternalPower: false))
            setAssertion(.scheduledTask, true, i)
            apps[i].stats.scheduledTasksStarted += 1
            record(app, .taskStart(identifier: id, reason: text(reason)))
        case let .expire(app, id, why):
            // Ending one task may have started or removed others: found again by name.
            guard continuedProcessing.index(of: app, id) != nil,
                  let task = taskScheduler.runningTask(app, id), !task.expired else { return }
            // With no handler set, expiring it completes it (unsuccessfully): it leaves the task scheduler.
            _ = taskScheduler.expire(app, id, completing: !task.hasExpirationHandler)
            apps[Int(app.index)].stats.scheduledTasksExpired += 1
            apply(continuedProcessing.expired(app, id, because: why, hadExpirationHandler: task.hasExpirationHandler,
                                              stillHeld: taskScheduler.holdsApp(app)))
        }
    }

    /// `setTaskCompleted` of a continued-processing task (the task scheduler
    /// has let it go): its slot serves the queue.
    mutating func continuedTaskEnded(_ app: AppID, _ id: TextID) {
        var effects: [Effect] = []
        continuedProcessing.ended(app, id, &effects)
        carryOut(effects)
    }

    /// A queued request that never ran is cancelled by the system (`task.cancel`),
    /// with its reason in a console line: it has no task to expire.
    mutating func cancelQueued(_ app: AppID, _ id: TextID, because why: String) {
        record(app, .taskCancel(identifier: id))
        log(app, "BGContinuedProcessingTaskRequest \(text(id)) was queued and is cancelled: \(why)")
    }

    /// A continued-processing trace line with words, written.
    mutating func recordContinuedProcessingNote(_ app: AppID?, _ note: ContinuedProcessingNote) {
        switch note {
        case let .deferred(id, reason): record(app, .taskDefer(identifier: id, reason: text(reason)))
        case let .expired(id, reason): record(app, .taskExpireWithReason(identifier: id, reason: text(reason)))
        case let .message(words): record(app, .log(text(words)))
        }
    }
}
