/// rules §13's controller: the device's continued-processing tasks, queued
/// and running, in the order they were submitted. Device-wide, not per app:
/// the slots are the device's. It decides what a submission becomes (refused
/// and why, started, queued), which task a free slot or resource pressure
/// concerns, and what a task's end means, and returns effects. What it reads
/// of the rest of the engine comes in as values (`ContinuedSubmissionFacts`,
/// an app's state, the tasks the task scheduler has already expired); what
/// must be done in the task scheduler's books or waits for the engine to act
/// first comes back as a step (`ContinuedProcessingStep`), carried out by the
/// coordinator in its place among the effects (`Engine/ContinuedProcessingSteps.swift`).
struct ContinuedProcessingController: Sendable, Codable {
    let settings: ContinuedProcessingSettings
    /// Queued and running, oldest submission first: the queue is served in that order.
    private(set) var tasks: [ContinuedTask] = []

    init(settings: ContinuedProcessingSettings) {
        self.settings = settings
    }

    var isEmpty: Bool { tasks.isEmpty }
    var runningCount: Int { tasks.count(where: \.running) }

    func index(of app: AppID, _ id: TextID) -> Int? {
        tasks.firstIndex { $0.app == app && $0.identifier == id }
    }

    /// What a submission that passed the app's own checks becomes.
    enum Admission: Equatable {
        case duplicate
        /// Strategy `.fail` and no slot free: refused, with the tasks running.
        case noSlot(running: Int)
        /// Added to the queue; `startsNow` when a slot is free.
        case queued(startsNow: Bool, running: Int)
    }

    mutating func submit(_ app: AppID, _ id: TextID, _ request: ContinuedProcessingRequest, now: Nanoseconds) -> Admission {
        if index(of: app, id) != nil { return .duplicate }
        let running = runningCount
        if running >= settings.slots && request.strategy == .fail { return .noSlot(running: running) }
        tasks.append(ContinuedTask(app: app, identifier: id, request: request, movedAt: now))
        return .queued(startsNow: running < settings.slots, running: running)
    }

    /// Task `k` is handed to its app: it runs, and its progress counts as moved now.
    mutating func started(_ k: Int, now: Nanoseconds) {
        tasks[k].running = true
        tasks[k].movedAt = now
    }

    mutating func remove(at k: Int) {
        tasks.remove(at: k)
    }

    /// Progress reported for a running task; false when none is running under that identifier.
    mutating func progress(_ app: AppID, _ id: TextID, completed: Int64, total: Int64, now: Nanoseconds) -> Bool {
        guard let k = tasks.firstIndex(where: { $0.app == app && $0.identifier == id && $0.running }) else { return false }
        if completed != tasks[k].completed || total != tasks[k].total { tasks[k].movedAt = now }
        tasks[k].completed = completed
        tasks[k].total = total
        return true
    }

    /// `updateTitle(_:subtitle:)` of a running task; false if it is not running.
    mutating func retitle(_ app: AppID, _ id: TextID, title: String, subtitle: String) -> Bool {
        guard let k = tasks.firstIndex(where: { $0.app == app && $0.identifier == id && $0.running }) else { return false }
        tasks[k].request.title = title
        tasks[k].request.subtitle = subtitle
        return true
    }

    /// The oldest queued task, when a slot is free for it.
    var nextToStart: Int? {
        guard runningCount < settings.slots else { return nil }
        return tasks.firstIndex { !$0.running }
    }

    /// A queued or running task the person cancels: with no app named, the first under the identifier.
    func cancelled(_ app: AppID?, _ id: TextID) -> Int? {
        tasks.firstIndex { ($0.app == app || app == nil) && $0.identifier == id }
    }

    /// Resource pressure: the tasks to end, stalled longest first — the one
    /// stalled longest at `serious` (or, none stalled, the one whose progress
    /// moved least recently), every stalled one at `critical`. `winding`
    /// says a task is already expired and winding down: pressure ends another.
    func pressureVictims(_ thermal: DeviceState.Thermal, now: Nanoseconds,
                         winding: (ContinuedTask) -> Bool) -> [(task: ContinuedTask, stalled: Bool)] {
        guard thermal == .serious || thermal == .critical else { return [] }
        let running = tasks.filter { $0.running && !winding($0) }.sorted { $0.movedAt < $1.movedAt }
        guard let longest = running.first else { return [] }
        let stalled = running.filter { now - $0.movedAt >= settings.stallWindow }
        let victims = thermal == .critical ? stalled : [stalled.first ?? longest]
        return victims.map { ($0, now - $0.movedAt >= settings.stallWindow) }
    }

    /// The app's process ended: its running tasks go with it, and so do its
    /// queued ones when the person removed it from the app switcher [D:
    /// BGTaskRequest.h]. Returns the queued ones removed (they are told of).
    mutating func processEnded(_ app: AppID, forceQuit: Bool) -> [TextID] {
        var droppedQueued: [TextID] = []
        tasks.removeAll { t in
            guard t.app == app, t.running || forceQuit else { return false }
            if !t.running { droppedQueued.append(t.identifier) }
            return true
        }
        return droppedQueued
    }

    /// The app's tasks, for its dump.
    func tasks(of app: AppID) -> [ContinuedTask] { tasks.filter { $0.app == app } }

    // MARK: Decisions, as effects

    /// `submit(_:)` of a request, judged with what the coordinator read for
    /// it: refused (traced, kept in the task's history, and thrown), the app
    /// ended for lacking a launch handler, or queued and started if a slot is free.
    mutating func submit(_ app: AppID, _ id: TextID, _ request: ContinuedProcessingRequest,
                         _ facts: ContinuedSubmissionFacts, now: Nanoseconds) -> ContinuedSubmission {
        func reject(_ error: BGTaskSchedulerError, _ why: String) -> ContinuedSubmission {
            ContinuedSubmission(effects: [.taskReject(app, id, error, reason: why),
                                          .noteTaskHistory(app, id, "rejected: \(error) — \(why)")], error: error)
        }
        guard settings.available else {
            return reject(.unavailable, "BGContinuedProcessingTaskRequest is iOS 26 and later; profile "
                          + "\(facts.profileName) does not have it (use profile ios26)")
        }
        guard let wildcard = facts.wildcard else {
            return reject(.notPermitted, "\(request.identifier) falls under no wildcard identifier (one ending in .*) "
                          + "in BGTaskSchedulerPermittedIdentifiers")
        }
        // Apple documents the rule (from the foreground, as the person's action),
        // not the error: notPermitted is bgx's choice.
        guard facts.inFront else {
            return reject(.notPermitted, "submitted while the app is not in the foreground; a continued-processing "
                          + "request is made on behalf of the foreground app, in response to the person's action")
        }
        guard facts.handlerRegistered else {
            return ContinuedSubmission(effects: [.terminate(app, .noLaunchHandler, detail:
                "NSInternalInconsistencyException: No launch handler registered for task with "
                + "identifier \(request.identifier) (register the wildcard form \(wildcard))")])
        }
        // Apple documents that not every device has background GPU (check
        // `supportedResources`), not the error; on a device without it iOS
        // 26.6.1 refuses the request as notPermitted [O] (react-native-continued-task's
        // device QA run of 2026-09-01, `gpu-gate`).
        if request.requiresGPU && !facts.backgroundGPU {
            return reject(.notPermitted, "requiredResources .gpu: this device does not support background GPU use "
                          + "(BGTaskScheduler.supportedResources lacks .gpu)")
        }
        switch submit(app, id, request, now: now) {
        case .duplicate:
            return reject(.tooManyPendingTaskRequests, "\(request.identifier) is already queued or running")
        case let .noSlot(running):
            return reject(.immediateRunIneligible, "strategy .fail: \(running) continued-processing task(s) already "
                          + "running (at most \(settings.slots)); it cannot start now")
        case let .queued(startsNow, running):
            var effects: [Effect] = [
                .trace(app, .taskSubmit(identifier: id, kind: .continuedProcessing, replaced: false)),
                .noteTaskHistory(app, id, "submitted (continuedProcessing, \"\(request.title)\", strategy \(request.strategy))")]
            if startsNow {
                effects += start(tasks.count - 1, appState: facts.state, reason: "a slot is free: it starts at once", now: now)
            } else {
                let why = "queued (strategy .queue): \(running) continued-processing task(s) running (at most \(settings.slots))"
                effects.append(.continuedProcessingNote(app, .deferred(id, reason: why)))
                effects.append(.noteTaskHistory(app, id, why))
            }
            return ContinuedSubmission(effects: effects)
        }
    }

    /// Task `k` is handed to its app, whose process is in `appState`: it
    /// runs (woken if suspended; dropped from the queue if the app no longer runs).
    mutating func start(_ k: Int, appState: ProcessState, reason: String, now: Nanoseconds) -> [Effect] {
        let app = tasks[k].app, id = tasks[k].identifier
        guard appState != .notRunning else {
            remove(at: k)
            return [.cancelQueuedContinuedTask(app, id, because: "the app is no longer running"),
                    .noteTaskHistory(app, id, "dropped from the queue: the app is no longer running")]
        }
        started(k, now: now)
        var effects: [Effect] = appState == .suspended ? [.wakeIntoBackground(app, .bgTask)] : []
        effects.append(.continueContinuedProcessing(.handOver(app, id, reason: reason)))
        effects.append(.noteTaskHistory(app, id, "started: \(reason)"))
        effects.append(.enqueue(app, .bgTask(id)))
        return effects
    }

    /// The task left the app (completed, or expired with no handler): its
    /// slot serves the queue. Nothing if it is not here.
    mutating func ended(_ app: AppID, _ id: TextID, _ effects: inout [Effect]) {
        guard let k = index(of: app, id) else { return }
        remove(at: k)
        effects.append(.continueContinuedProcessing(.startQueued))
    }

    /// The running task was expired in the task scheduler's books (the
    /// coordinator says whether it had an expiration handler, and whether the
    /// task scheduler still holds the app): the handler runs, or — none set —
    /// it is completed unsuccessfully and leaves its slot.
    mutating func expired(_ app: AppID, _ id: TextID, because why: String, hadExpirationHandler: Bool,
                          stillHeld: Bool) -> [Effect] {
        var effects: [Effect] = [.continuedProcessingNote(app, .expired(id, reason: why)),
                                 .noteTaskHistory(app, id, "expired: \(why)")]
        if hadExpirationHandler {
            effects.append(.enqueue(app, .bgTaskExpired(id)))
            return effects
        }
        effects.append(.setAssertion(app, .scheduledTask, stillHeld))
        effects.append(.trace(app, .taskComplete(identifier: id, success: false)))
        effects.append(.noteTaskHistory(app, id, "completed unsuccessfully: no expiration handler set"))
        ended(app, id, &effects)
        effects.append(.suspendIfThreadFree(app))
        return effects
    }

    /// The person cancels a task from its Live Activity: a running one is
    /// expired (its handler runs), a queued one is cancelled.
    mutating func cancel(_ app: AppID?, _ id: TextID, identifier: String) -> [Effect] {
        guard let k = cancelled(app, id) else {
            return [.continuedProcessingNote(app, .message("the person cancelled \(identifier), which is not queued or running"))]
        }
        let task = tasks[k]
        if task.running {
            return [.trace(task.app, .user(.cancelTask)),
                    .continueContinuedProcessing(.expire(task.app, id, because: "the person cancelled it"))]
        }
        remove(at: k)
        return [.trace(task.app, .user(.cancelTask)),
                .cancelQueuedContinuedTask(task.app, id, because: "the person cancelled it while queued"),
                .noteTaskHistory(task.app, id, "cancelled by the person while queued")]
    }

    /// `progress.completedUnitCount` / `totalUnitCount` changed: traced, or a
    /// console line when the task is not running.
    mutating func reportProgress(_ app: AppID, _ id: TextID, identifier: String, completed: Int64, total: Int64,
                                 now: Nanoseconds) -> Effect {
        guard progress(app, id, completed: completed, total: total, now: now) else {
            return .log(app, "BGContinuedProcessingTask: progress reported for \(identifier), which is not running")
        }
        return .trace(app, .taskProgress(identifier: id, completed: completed, total: total))
    }

    /// `updateTitle(_:subtitle:)` [D]: what the person sees of the running task (its Live Activity) changes.
    mutating func updateTitle(_ app: AppID, _ id: TextID, identifier: String, title: String, subtitle: String) -> [Effect] {
        guard retitle(app, id, title: title, subtitle: subtitle) else {
            return [.log(app, "BGContinuedProcessingTask: updateTitle for \(identifier), which is not running")]
        }
        return [.log(app, "BGContinuedProcessingTask \(identifier): the person now sees \"\(title)\" — \"\(subtitle)\""),
                .noteTaskHistory(app, id, "title updated: \"\(title)\", \"\(subtitle)\"")]
    }

    /// Resource pressure: each task `pressureVictims` names is to be expired,
    /// with why. `windingDown` are the running tasks the task scheduler has
    /// expired already (the coordinator's reading of it).
    func relievePressure(_ thermal: DeviceState.Thermal, windingDown: Set<ContinuedTaskKey>, now: Nanoseconds,
                         wallClockOffset: Nanoseconds) -> [Effect] {
        let victims = pressureVictims(thermal, now: now) {
            windingDown.contains(ContinuedTaskKey(app: $0.app, identifier: $0.identifier))
        }
        return victims.map { victim in
            let task = victim.task
            return .continueContinuedProcessing(.expire(task.app, task.identifier, because: "resource pressure (thermal \(thermal)): "
                + (victim.stalled ? "its progress has not moved since \(Time.wallClock(task.movedAt + wallClockOffset, seconds: true))"
                   : "no task is stalled; its progress moved least recently")))
        }
    }
}

/// What the coordinator reads of the engine for a continued-processing submission.
struct ContinuedSubmissionFacts {
    /// The profile's name, for the words of a refusal where it lacks the API.
    var profileName: String
    /// The permitted identifier with a wildcard the request falls under, if any.
    var wildcard: String?
    var state: ProcessState
    /// The app is active and in front.
    var inFront: Bool
    /// A launch handler is registered under the wildcard in the process.
    var handlerRegistered: Bool
    /// The device can use its GPU in the background.
    var backgroundGPU: Bool
}

/// What a submission comes to: its effects, and the error `submit` throws, if refused.
struct ContinuedSubmission {
    var effects: [Effect]
    var error: BGTaskSchedulerError? = nil
}

/// A continued-processing task by its app and identifier.
struct ContinuedTaskKey: Hashable, Sendable {
    var app: AppID
    var identifier: TextID
}

/// Where the continued-processing controller goes on once the engine has
/// carried out the effects before it — and what it asks of the task
/// scheduler's books, which are not its own.
enum ContinuedProcessingStep: Sendable, Equatable {
    /// Free slots take queued tasks, oldest first, each as its app is then.
    case startQueued
    /// Thermal pressure: the coordinator reads which running tasks are already expired, then the controller chooses.
    case relievePressure(DeviceState.Thermal)
    /// The task runs in its app now: the task scheduler runs it and holds the app by it; counted, traced with why.
    case handOver(AppID, TextID, reason: String)
    /// The running task is to be expired, with why, if it is still here and
    /// not yet expired: the task scheduler's books are read and changed then.
    case expire(AppID, TextID, because: String)
}

/// A continued-processing trace line with words of its own (interned as it is written).
enum ContinuedProcessingNote: Sendable, Equatable {
    /// Queued: no slot is free.
    case deferred(TextID, reason: String)
    /// Expired by the system or the person.
    case expired(TextID, reason: String)
    /// A console line of the system's.
    case message(String)
}

extension ContinuedProcessingController: Controller {
    /// The process ended: its tasks go with it (a queued one the person
    /// swiped away is cancelled, with why), and a freed slot serves the queue.
    /// Asked first: a call per termination, with none running, cost about 5 instructions per engine event.
    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        guard !tasks.isEmpty, tasks.contains(where: { $0.app == app }) else { return }
        for id in processEnded(app, forceQuit: reason == .userForceQuit) {
            effects.append(.cancelQueuedContinuedTask(app, id, because: "the person removed the app from the app switcher"))
        }
        effects.append(.continueContinuedProcessing(.startQueued))
    }

    /// Thermal pressure ends tasks: which ones, once the coordinator has read
    /// which the task scheduler has already expired (`relievePressure`).
    func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        guard case let .thermal(v) = change, !tasks.isEmpty else { return }
        effects.append(.continueContinuedProcessing(.relievePressure(v)))
    }
}
