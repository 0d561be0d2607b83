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
        let policy = profile.continuedProcessing
        guard policy.available else {
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
        if request.requiresGPU && !device.backgroundGPU {
            throw reject(.unavailable, "requiredResources .gpu: this device does not support background GPU use "
                         + "(BGTaskScheduler.supportedResources lacks .gpu)")
        }
        if continuedTasks.contains(where: { $0.app == app && $0.identifier == id }) {
            throw reject(.tooManyPendingTaskRequests, "\(request.identifier) is already queued or running")
        }
        let running = continuedTasks.count(where: \.running)
        if running >= policy.slots && request.strategy == .fail {
            throw reject(.immediateRunIneligible, "strategy .fail: \(running) continued-processing task(s) already "
                         + "running (at most \(policy.slots)); it cannot start now")
        }
        record(app, .taskSubmit(identifier: id, kind: .continuedProcessing, replaced: false))
        noteTaskHistory(app, id, "submitted (continuedProcessing, \"\(request.title)\", strategy \(request.strategy))")
        continuedTasks.append(ContinuedTask(app: app, identifier: id, request: request, movedAt: now))
        if running >= policy.slots {
            let why = "queued (strategy .queue): \(running) continued-processing task(s) running (at most \(policy.slots))"
            record(app, .taskDefer(identifier: id, reason: text(why)))
            noteTaskHistory(app, id, why)
        } else {
            startContinuedTask(continuedTasks.count - 1, reason: "a slot is free: it starts at once")
        }
    }

    /// Hands a continued-processing task to its app, where it runs.
    mutating func startContinuedTask(_ k: Int, reason: String) {
        let app = continuedTasks[k].app
        let i = Int(app.index)
        let id = continuedTasks[k].identifier
        guard apps[i].state != .notRunning else {
            continuedTasks.remove(at: k)
            record(app, .taskExpireWithReason(identifier: id, reason: text("the app is no longer running")))
            noteTaskHistory(app, id, "dropped from the queue: the app is no longer running")
            return
        }
        if apps[i].state == .suspended { _ = wakeIntoBackground(app, cause: .bgTask) }
        continuedTasks[k].running = true
        continuedTasks[k].movedAt = now
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
        guard let k = continuedTasks.firstIndex(where: { $0.app == app && $0.identifier == id && $0.running }) else {
            log(app, "BGContinuedProcessingTask: progress reported for \(identifier), which is not running")
            return
        }
        if completed != continuedTasks[k].completed || total != continuedTasks[k].total {
            continuedTasks[k].movedAt = now
        }
        continuedTasks[k].completed = completed
        continuedTasks[k].total = total
        record(app, .taskProgress(identifier: id, completed: completed, total: total))
    }

    /// The task left the app (completed, or the process ended): the next queued one starts.
    mutating func continuedTaskEnded(_ app: AppID, _ id: TextID) {
        guard let k = continuedTasks.firstIndex(where: { $0.app == app && $0.identifier == id }) else { return }
        continuedTasks.remove(at: k)
        startQueuedContinuedTasks()
    }

    mutating func startQueuedContinuedTasks() {
        while continuedTasks.count(where: \.running) < profile.continuedProcessing.slots,
              let next = continuedTasks.firstIndex(where: { !$0.running }) {
            startContinuedTask(next, reason: "a slot came free (it was queued)")
        }
    }

    /// The person cancels the task from its Live Activity: its expiration handler runs.
    public mutating func cancelContinuedTask(for app: AppID?, identifier: String) {
        let id = text(identifier)
        guard let k = continuedTasks.firstIndex(where: { ($0.app == app || app == nil) && $0.identifier == id }) else {
            record(app, .log(text("the person cancelled \(identifier), which is not queued or running")))
            return
        }
        let owner = continuedTasks[k].app
        record(owner, .user(.cancelTask))
        if continuedTasks[k].running {
            endContinuedTask(k, because: "the person cancelled it")
        } else {
            continuedTasks.remove(at: k)
            record(owner, .taskExpireWithReason(identifier: id, reason: text("the person cancelled it while queued")))
            noteTaskHistory(owner, id, "cancelled by the person while queued")
        }
    }

    /// Ends a running continued-processing task: its expiration handler runs
    /// (with none, it is completed unsuccessfully), and the app has the lead
    /// time to call setTaskCompleted.
    mutating func endContinuedTask(_ k: Int, because why: String) {
        let app = continuedTasks[k].app
        let id = continuedTasks[k].identifier
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
    /// the system ends first the tasks whose progress has not moved — the
    /// one stalled longest at `serious`, every stalled one at `critical`.
    mutating func relieveContinuedProcessingPressure(_ thermal: DeviceState.Thermal) {
        guard thermal == .serious || thermal == .critical else { return }
        let window = profile.continuedProcessing.stallWindow
        // An expired task is already winding down (its expiration handler runs): pressure ends another.
        var running = continuedTasks.indices.filter { continuedTasks[$0].running && !continuedTaskExpired($0) }
        running.sort { continuedTasks[$0].movedAt < continuedTasks[$1].movedAt }
        guard !running.isEmpty else { return }
        let stalled = running.filter { now - continuedTasks[$0].movedAt >= window }
        let victims = thermal == .critical ? stalled : [stalled.first ?? running[0]]
        let ids = victims.map { (continuedTasks[$0].app, continuedTasks[$0].identifier, continuedTasks[$0].movedAt) }
        for (app, id, moved) in ids {
            guard let k = continuedTasks.firstIndex(where: { $0.app == app && $0.identifier == id }) else { continue }
            let still = now - moved >= window
            endContinuedTask(k, because: "resource pressure (thermal \(thermal)): "
                + (still ? "its progress has not moved since \(Time.wallClock(wall(moved), seconds: true))"
                   : "no task is stalled; its progress moved least recently"))
        }
    }

    /// Whether continued task `k` has been expired and waits for its app to complete it.
    func continuedTaskExpired(_ k: Int) -> Bool {
        let task = continuedTasks[k]
        return taskScheduler.apps[Int(task.app.index)].running.contains { $0.identifier == task.identifier && $0.expired }
    }

    /// Continued-processing tasks of a process that ended go with it.
    mutating func dropContinuedTasks(of app: AppID, forceQuit: Bool) {
        guard continuedTasks.contains(where: { $0.app == app }) else { return }
        var k = 0
        while k < continuedTasks.count {
            let t = continuedTasks[k]
            // Queued requests are cancelled when the person removes the app from the switcher [D: BGTaskRequest.h].
            if t.app == app && (t.running || forceQuit) {
                continuedTasks.remove(at: k)
                if !t.running {
                    record(app, .taskExpireWithReason(identifier: t.identifier,
                                                     reason: text("the person removed the app from the app switcher")))
                }
            } else {
                k += 1
            }
        }
        startQueuedContinuedTasks()
    }
}
