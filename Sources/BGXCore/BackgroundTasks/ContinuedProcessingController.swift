/// rules §13's controller: the device's continued-processing tasks, queued
/// and running, in the order they were submitted. Device-wide, not per app:
/// the slots are the device's. It decides which task a submission, a free
/// slot or resource pressure concerns; the engine carries out what that
/// means for the app (its task handed over or expired, the trace).
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
        effects.append(.startQueuedContinuedTasks)
    }

    /// Thermal pressure ends tasks (which ones, the pressure routine asks this controller).
    func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        guard case let .thermal(v) = change, !tasks.isEmpty else { return }
        effects.append(.relieveContinuedProcessingPressure(v))
    }
}
