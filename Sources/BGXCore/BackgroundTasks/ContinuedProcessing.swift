/// rules §13: `BGContinuedProcessingTaskRequest` (iOS 26) [D: Apple's
/// BackgroundTasks documentation, "Performing long-running tasks on iOS and
/// iPadOS", WWDC25 "Finish tasks in the background"]. Submitted from the
/// foreground in response to the person; starts at once if it can and keeps
/// running in the background, with no fixed time limit, until
/// `setTaskCompleted`. The person sees its progress (a Live Activity) and can
/// cancel it (→ expirationHandler); under resource pressure the system ends
/// first the tasks whose progress has not moved.

/// `BGContinuedProcessingTaskRequest.SubmissionStrategy`.
public enum ContinuedProcessingStrategy: String, Sendable, CaseIterable, Codable {
    /// Wait for a slot (the default).
    case queue
    /// Refuse with `immediateRunIneligible` if it cannot start now.
    case fail
}

/// `BGContinuedProcessingTaskRequest` as the system sees it.
public struct ContinuedProcessingRequest: Sendable, Equatable, Codable {
    public var identifier: String
    public var title: String
    public var subtitle: String
    public var strategy: ContinuedProcessingStrategy
    /// `requiredResources` contains `.gpu`.
    public var requiresGPU: Bool

    public init(identifier: String, title: String, subtitle: String, strategy: ContinuedProcessingStrategy = .queue,
                requiresGPU: Bool = false) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.strategy = strategy
        self.requiresGPU = requiresGPU
    }
}

/// The profile's continued-processing numbers.
public struct ContinuedProcessingSettings: Sendable, Equatable, Codable {
    /// The profile has `BGContinuedProcessingTaskRequest` (iOS 26 and later).
    public var available = false
    /// How many continued-processing tasks run at once on the device; more
    /// are queued or refused. Apple documents that a slot may not be free,
    /// not how many there are: bgx's choice.
    public var slots = 2
    /// A task whose progress has not moved for this long is "stalled":
    /// the first to go under resource pressure (bgx's choice of window).
    public var stallWindow: Nanoseconds = Time.seconds(60)
    public init() {}
}

/// A continued-processing task, queued or running.
struct ContinuedTask: Sendable, Codable {
    var app: AppID
    var identifier: TextID
    var request: ContinuedProcessingRequest
    var running = false
    var completed: Int64 = 0
    var total: Int64 = 0
    /// When the progress last moved (or the task started).
    var movedAt: Nanoseconds = 0
}

extension Engine {
    /// The permitted identifier with a wildcard that `identifier` falls under
    /// (`com.example.export.*` for `com.example.export.photos`), if any.
    func wildcardIdentifier(of app: AppID, matching identifier: String) -> String? {
        apps[Int(app.index)].manifest.wildcardIdentifier(matching: identifier)
    }

    /// `submit(_:)` of a `BGContinuedProcessingTaskRequest`.
    public mutating func submitContinuedProcessingTask(for app: AppID, _ request: ContinuedProcessingRequest)
        throws(BGTaskSchedulerError) {
        let i = Int(app.index)
        let id = text(request.identifier)
        func reject(_ error: BGTaskSchedulerError, _ why: String) -> BGTaskSchedulerError {
            record(app, .taskReject(identifier: id, error: error, reason: text(why)))
            noteTaskHistory(app, id, "rejected: \(error) — \(why)")
            return error
        }
        let slots = continuedProcessing.settings.slots
        guard continuedProcessing.settings.available else {
            throw reject(.unavailable, "BGContinuedProcessingTaskRequest is iOS 26 and later; profile "
                         + "\(profile.name) does not have it (use profile ios26)")
        }
        guard let wildcard = wildcardIdentifier(of: app, matching: request.identifier) else {
            throw reject(.notPermitted, "\(request.identifier) falls under no wildcard identifier (one ending in .*) "
                         + "in BGTaskSchedulerPermittedIdentifiers")
        }
        // Apple documents the rule (from the foreground, as the person's action),
        // not the error: notPermitted is bgx's choice.
        guard apps[i].state == .active, frontApp == app else {
            throw reject(.notPermitted, "submitted while the app is not in the foreground; a continued-processing "
                         + "request is made on behalf of the foreground app, in response to the person's action")
        }
        if apps[i].state.isRunning && !taskScheduler.isRegistered(app, text(wildcard)) {
            terminate(app, .noLaunchHandler,
                      detail: "NSInternalInconsistencyException: No launch handler registered for task with "
                        + "identifier \(request.identifier) (register the wildcard form \(wildcard))")
            return
        }
        // Apple documents that not every device has background GPU (check
        // `supportedResources`), not the error; on a device without it iOS
        // 26.6.1 refuses the request as notPermitted [O] (react-native-continued-task's
        // device QA run of 2026-09-01, `gpu-gate`).
        if request.requiresGPU && !device.backgroundGPU {
            throw reject(.notPermitted, "requiredResources .gpu: this device does not support background GPU use "
                         + "(BGTaskScheduler.supportedResources lacks .gpu)")
        }
        switch continuedProcessing.submit(app, id, request, now: now) {
        case .duplicate:
            throw reject(.tooManyPendingTaskRequests, "\(request.identifier) is already queued or running")
        case let .noSlot(running):
            throw reject(.immediateRunIneligible, "strategy .fail: \(running) continued-processing task(s) already "
                         + "running (at most \(slots)); it cannot start now")
        case let .queued(startsNow, running):
            record(app, .taskSubmit(identifier: id, kind: .continuedProcessing, replaced: false))
            noteTaskHistory(app, id, "submitted (continuedProcessing, \"\(request.title)\", strategy \(request.strategy))")
            if startsNow {
                startContinuedTask(continuedProcessing.tasks.count - 1, reason: "a slot is free: it starts at once")
            } else {
                let why = "queued (strategy .queue): \(running) continued-processing task(s) running (at most \(slots))"
                record(app, .taskDefer(identifier: id, reason: text(why)))
                noteTaskHistory(app, id, why)
            }
        }
    }

    /// Hands a continued-processing task to its app, where it runs.
    mutating func startContinuedTask(_ k: Int, reason: String) {
        let task = continuedProcessing.tasks[k]
        let app = task.app, id = task.identifier
        let i = Int(app.index)
        guard apps[i].state != .notRunning else {
            continuedProcessing.remove(at: k)
            cancelQueued(app, id, because: "the app is no longer running")
            noteTaskHistory(app, id, "dropped from the queue: the app is no longer running")
            return
        }
        if apps[i].state == .suspended { _ = wakeIntoBackground(app, cause: .bgTask) }
        continuedProcessing.started(k, now: now)
        taskScheduler.started(app, RunningTask(identifier: id, kind: .continuedProcessing, started: now,
                                               requiresExternalPower: false))
        setAssertion(.scheduledTask, true, i)
        apps[i].stats.scheduledTasksStarted += 1
        record(app, .taskStart(identifier: id, reason: text(reason)))
        noteTaskHistory(app, id, "started: \(reason)")
        apps[i].jobs.append(.bgTask(id))
        pump(app)
    }

    /// `task.progress.completedUnitCount` / `totalUnitCount` changed.
    public mutating func reportContinuedProgress(for app: AppID, identifier: String, completed: Int64, total: Int64) {
        let id = text(identifier)
        guard continuedProcessing.progress(app, id, completed: completed, total: total, now: now) else {
            log(app, "BGContinuedProcessingTask: progress reported for \(identifier), which is not running")
            return
        }
        record(app, .taskProgress(identifier: id, completed: completed, total: total))
    }

    /// `BGContinuedProcessingTask.updateTitle(_:subtitle:)` [D]: what the
    /// person sees of the running task (its Live Activity) changes.
    public mutating func updateContinuedTitle(for app: AppID, identifier: String, title: String, subtitle: String) {
        let id = text(identifier)
        guard continuedProcessing.retitle(app, id, title: title, subtitle: subtitle) else {
            log(app, "BGContinuedProcessingTask: updateTitle for \(identifier), which is not running")
            return
        }
        log(app, "BGContinuedProcessingTask \(identifier): the person now sees \"\(title)\" — \"\(subtitle)\"")
        noteTaskHistory(app, id, "title updated: \"\(title)\", \"\(subtitle)\"")
    }

    /// The task left the app (completed, or the process ended): the next queued one starts.
    mutating func continuedTaskEnded(_ app: AppID, _ id: TextID) {
        guard let k = continuedProcessing.index(of: app, id) else { return }
        continuedProcessing.remove(at: k)
        startQueuedContinuedTasks()
    }

    mutating func startQueuedContinuedTasks() {
        while let next = continuedProcessing.nextToStart {
            startContinuedTask(next, reason: "a slot came free (it was queued)")
        }
    }

    /// The person cancels the task from its Live Activity: its expiration handler runs.
    public mutating func cancelContinuedTask(for app: AppID?, identifier: String) {
        let id = text(identifier)
        guard let k = continuedProcessing.cancelled(app, id) else {
            record(app, .log(text("the person cancelled \(identifier), which is not queued or running")))
            return
        }
        let task = continuedProcessing.tasks[k]
        record(task.app, .user(.cancelTask))
        if task.running {
            endContinuedTask(k, because: "the person cancelled it")
        } else {
            continuedProcessing.remove(at: k)
            cancelQueued(task.app, id, because: "the person cancelled it while queued")
            noteTaskHistory(task.app, id, "cancelled by the person while queued")
        }
    }

    /// Ends a running continued-processing task: its expiration handler runs
    /// (with none, it is completed unsuccessfully), and the app has the lead
    /// time to call setTaskCompleted.
    mutating func endContinuedTask(_ k: Int, because why: String) {
        let app = continuedProcessing.tasks[k].app
        let id = continuedProcessing.tasks[k].identifier
        let i = Int(app.index)
        guard let task = taskScheduler.runningTask(app, id), !task.expired else { return }
        _ = taskScheduler.expire(app, id, completing: !task.hasExpirationHandler)
        apps[i].stats.scheduledTasksExpired += 1
        record(app, .taskExpireWithReason(identifier: id, reason: text(why)))
        noteTaskHistory(app, id, "expired: \(why)")
        if task.hasExpirationHandler {
            apps[i].jobs.append(.bgTaskExpired(id))
            pump(app)
        } else {
            // `expire` removed it: with no handler set it is completed, unsuccessfully.
            setAssertion(.scheduledTask, taskScheduler.holdsApp(app), i)
            record(app, .taskComplete(identifier: id, success: false))
            noteTaskHistory(app, id, "completed unsuccessfully: no expiration handler set")
            continuedTaskEnded(app, id)
            suspendIfThreadFree(app)
        }
    }

    /// Resource pressure (the device turned thermally serious or critical):
    /// the controller names the tasks to end; each is expired with why.
    mutating func relieveContinuedProcessingPressure(_ thermal: DeviceState.Thermal) {
        // An expired task is already winding down (its expiration handler runs): pressure ends another.
        let victims = continuedProcessing.pressureVictims(thermal, now: now) { task in
            taskScheduler.apps[Int(task.app.index)].running.contains { $0.identifier == task.identifier && $0.expired }
        }
        for (task, stalled) in victims {
            // Ending one may have started or removed others: found again by name.
            guard let k = continuedProcessing.index(of: task.app, task.identifier) else { continue }
            endContinuedTask(k, because: "resource pressure (thermal \(thermal)): "
                + (stalled ? "its progress has not moved since \(Time.wallClock(wall(task.movedAt), seconds: true))"
                   : "no task is stalled; its progress moved least recently"))
        }
    }

    /// A queued request that never ran is cancelled by the system (`task.cancel`),
    /// with its reason in a console line: it has no task to expire.
    mutating func cancelQueued(_ app: AppID, _ id: TextID, because why: String) {
        record(app, .taskCancel(identifier: id))
        log(app, "BGContinuedProcessingTaskRequest \(text(id)) was queued and is cancelled: \(why)")
    }
}
