/// What a controller asks the engine to do. Controllers decide and return
/// effects; `Engine.apply(_:)` carries them out, in order — the one place a
/// controller's decision wakes an app, queues its work, schedules an event
/// or writes the trace (AOSP's JobSchedulerService over its controllers).
enum Effect: Sendable, Equatable {
    /// A trace event with no words of its own.
    case trace(AppID, TraceEvent.Kind)
    /// A push dropped or held, with the reason.
    case pushDrop(AppID, Push, reason: String, held: Bool)
    /// A console message for the app.
    case log(AppID, String)
    case schedule(EngineEvent, at: Nanoseconds)
    /// Wakes or launches the app into the background (asked of the launch policy by the caller).
    case wakeIntoBackground(AppID, LaunchCause)
    /// Queues work on the app's main thread and runs what can run.
    case enqueue(AppID, MainThreadJob)
    case setAssertion(AppID, BackgroundAssertions, Bool)
    /// An assertion ended: the app suspends if nothing else holds it and its thread is free.
    case suspendIfThreadFree(AppID)
    /// Hands a push to the app's delegate, if the app still runs (the push controller's second step).
    case handPushToApp(AppID, Push, watched: Bool)
    /// A notification request dropped or refused, with the reason.
    /// (Boxed, as is the next: their words would double every effect's size.)
    indirect case notificationDrop(AppID, NotificationID, reason: String)
    /// A notification delivered to the app in front or to the user.
    indirect case notificationDeliver(AppID, NotificationID, toApp: Bool, alert: String?, sound: String?, badge: Int?,
                             reason: String?)
    /// A device-wide line of the trace (a thundering-herd trigger).
    case device(property: String, value: String)
    /// Something changed for the app that the scheduler may judge again.
    case markSchedulerDirty(AppID)
    /// A request's event kept in the scheduler's history for `explain`.
    case noteTaskHistory(AppID, TextID, String)
    /// A queued continued-processing request is cancelled, with why.
    case cancelQueuedContinuedTask(AppID, TextID, because: String)

    // MARK: background tasks
    /// The continued-processing controller goes on from `ContinuedProcessingStep` once what came before is carried out.
    indirect case continueContinuedProcessing(ContinuedProcessingStep)
    /// A continued-processing trace line with words of its own (interned as it is written).
    indirect case continuedProcessingNote(AppID?, ContinuedProcessingNote)

    // MARK: transfers
    /// A transfer's trace line with words of its own (interned as it is written).
    indirect case transferNote(AppID, TransferNote)
    /// Queues work on the app's main thread without running it yet (a `.pump` follows).
    case queueJob(AppID, MainThreadJob)
    /// Runs what can run of the app's main-thread queue.
    case pump(AppID)
    /// What a fetch's transfers move counts toward its cost (rules §6), if a fetch is in flight.
    case countFetchBytes(AppID, Int64)
    /// The transfer controller goes on from `TransferStep` once what came before is carried out.
    case continueTransfers(TransferStep)

    // MARK: services
    /// A service's trace line with words of its own (interned as it is written).
    indirect case serviceNote(AppID, ServiceNote)
    /// Queues work on the app's main thread and runs what can run — if the app (still) runs.
    case enqueueIfRunning(AppID, MainThreadJob)
    /// The app is terminated, with why in words.
    indirect case terminate(AppID, TerminationReason, detail: String)
    /// The services controller goes on from `ServiceStep` once what came before is carried out.
    indirect case continueServices(ServiceStep)

    // MARK: scheduler
    /// A task request refused at submission, with the reason (boxed: its words).
    indirect case taskReject(AppID, TextID, BGTaskSchedulerError, reason: String)
    /// A processing task of the app ended: the scheduler spaces the next after it.
    case processingTaskEnded(AppID, success: Bool)

    // MARK: Push
    /// The app's held push meets the gate again, under the conditions now (`PushController.retryHeld`).
    case retryHeldPush(AppID)
    /// The launch policy refused a launch or wake for `cause`: the launch controller keeps the verdict.
    case noteRefusedLaunch(AppID, LaunchCause, LaunchRefusal)

    // MARK: Notifications
    /// The person tapped a notification: the tap, and why it opens nothing
    /// when the notification is not in Notification Center (then no app).
    case notificationTap(AppID?, NotificationID, reason: String?)

    // MARK: Memory
    /// The system closed one of the app's sockets, with why.
    case socketClose(AppID, name: String, kind: SocketKind, reason: String)
    /// The memory controller goes on from `MemoryStep` once what came before is carried out.
    case continueMemory(MemoryStep)
}

extension Engine {
    /// Carries out controllers' effects, in order.
    mutating func apply(_ effects: [Effect]) {
        for effect in effects { apply(effect) }
    }

    mutating func apply(_ effect: Effect) {
        switch effect {
        case let .trace(app, kind):
            record(app, kind)
        case let .pushDrop(app, push, reason, held):
            record(app, .pushDrop(type: push.type, priority: push.priority, reason: text(reason), held: held))
        case let .log(app, message):
            log(app, message)
        case let .schedule(event, time):
            queue.push(event, at: time)
        case let .wakeIntoBackground(app, cause):
            _ = wakeIntoBackground(app, cause: cause)
        case let .enqueue(app, job):
            apps[Int(app.index)].jobs.append(job)
            pump(app)
        case let .setAssertion(app, reason, held):
            setAssertion(reason, held, Int(app.index))
        case let .suspendIfThreadFree(app):
            suspendIfThreadFree(app)
        case let .handPushToApp(app, push, watched):
            // A launch killed at once (over the memory limit) leaves no push for the next process.
            guard apps[Int(app.index)].state.isRunning else { return }
            apply(pushes.handToApp(app, push, watched: watched, epoch: apps[Int(app.index)].epoch, now: now,
                                   completionTimeout: profile.push.completionTimeout))
        case let .notificationDrop(app, id, reason):
            record(app, .notificationDrop(id: id, reason: text(reason)))
        case let .notificationDeliver(app, id, toApp, alert, sound, badge, reason):
            record(app, .notificationDeliver(id: id, toApp: toApp, alert: alert.map { text($0) },
                                             sound: sound.map { text($0) }, badge: badge.map { Int32(clamping: $0) },
                                             reason: reason.map { text($0) }))
        case let .device(property, value):
            recordDevice(property, value)
        case let .markSchedulerDirty(app):
            markSchedulerDirty(for: app)
        case let .noteTaskHistory(app, id, what):
            noteTaskHistory(app, id, what)
        case let .cancelQueuedContinuedTask(app, id, why):
            cancelQueued(app, id, because: why)
        // MARK: background tasks
        case let .continueContinuedProcessing(step):
            continueContinuedProcessing(step)
        case let .continuedProcessingNote(app, note):
            recordContinuedProcessingNote(app, note)
        // MARK: transfers
        case let .transferNote(app, note):
            switch note {
            case let .hold(session, reason):
                record(app, .transferHold(session: session, reason: appendText(reason)))
            case let .cancel(session, reason, oneOff):
                record(app, .transferCancel(session: session, reason: oneOff ? appendText(reason) : text(reason)))
            case let .fail(session, task, result, reason):
                record(app, .transferFail(session: session, task: task, result: result, reason: appendText(reason)))
            case let .deferred(session, task, reason):
                record(app, .transferDefer(session: session, task: task, reason: appendText(reason)))
            case let .retry(session, task, reason):
                record(app, .transferRetry(session: session, task: task, reason: appendText(reason)))
            }
        case let .queueJob(app, job):
            apps[Int(app.index)].jobs.append(job)
        case let .pump(app):
            pump(app)
        case let .countFetchBytes(app, bytes):
            scheduler.fetchMoved(app, bytes: bytes)
        case let .continueTransfers(step):
            continueTransfers(step)
        // MARK: services
        case let .serviceNote(app, note):
            switch note {
            case let .audioRefuse(reason): record(app, .audioRefuse(reason: text(reason)))
            case let .audioStop(reason): record(app, .audioStop(reason: text(reason)))
            case let .accessoryDisconnect(transport, reason):
                record(app, .accessoryDisconnect(transport: transport, reason: text(reason)))
            case let .accessoryDrop(transport, reason): record(app, .accessoryDrop(transport: transport, reason: text(reason)))
            case let .locationDrop(service, reason): record(app, .locationDrop(service: service, reason: text(reason)))
            case let .locationDefer(service, reason): record(app, .locationDefer(service: service, reason: text(reason)))
            case let .voipDrop(trigger, reason): record(app, .voipDrop(trigger: trigger, reason: text(reason)))
            }
        case let .enqueueIfRunning(app, job):
            guard apps[Int(app.index)].state.isRunning else { return }
            apps[Int(app.index)].jobs.append(job)
            pump(app)
        case let .terminate(app, reason, detail):
            terminate(app, reason, detail: detail)
        case let .continueServices(step):
            continueServices(step)
        // MARK: scheduler
        case let .taskReject(app, id, error, reason):
            record(app, .taskReject(identifier: id, error: error, reason: text(reason)))
        case let .processingTaskEnded(app, success):
            scheduler.processingTaskEnded(app, success: success, now: now)
        // MARK: Push
        case let .retryHeldPush(app):
            apply(pushes.retryHeld(app, pushConditions(of: app), settings: profile.push))
        case let .noteRefusedLaunch(app, cause, refusal):
            noteRefusedLaunch(app, cause, refusal)
        // MARK: Notifications
        case let .notificationTap(app, id, reason):
            record(app, .user(.tapNotification))
            record(app, .notificationTap(id: id, reason: reason.map { appendText($0) }))
        // MARK: Memory
        case let .socketClose(app, name, kind, reason):
            record(app, .socketClose(name: text(name), kind: kind, reason: text(reason)))
        case let .continueMemory(step):
            continueMemory(step)
        }
    }
}
