/// What became of every BGTaskScheduler request and every push, told from the
/// trace alone: each request's life (submitted → held back by a policy, as
/// the reason changes → started, cancelled, replaced or still pending), the
/// submits iOS refused, and the pushes delivered, held or dropped. The summary
/// and the report read their "why not yet" from here, so what they say is
/// what the trace records.
public struct RequestLedger: Sendable {
    /// One span of a request's wait, with what the scheduler said held it (a `task.defer`).
    public struct Hold: Sendable, Equatable {
        public var since: Nanoseconds
        /// nil while it still holds.
        public var until: Nanoseconds?
        public var reason: TextID
    }

    /// How a request's wait ended.
    public enum End: Sendable, Equatable {
        case started(at: Nanoseconds, reason: TextID)
        case cancelled(at: Nanoseconds)
        /// Submitted again under its identifier: the new request replaces it.
        case replaced(at: Nanoseconds)
    }

    /// How a started task ended.
    public enum Run: Sendable, Equatable {
        case completed(at: Nanoseconds, success: Bool)
        /// The process ended while the task ran.
        case lost(at: Nanoseconds)
    }

    public struct Life: Sendable, Equatable {
        public var app: AppID
        public var identifier: TextID
        /// nil for a task started without a submit (`_simulateLaunchForTaskWithIdentifier`).
        public var kind: BGTaskKind?
        public var submitted: Nanoseconds
        public var holds: [Hold] = []
        public var end: End?
        public var expired: Nanoseconds?
        public var run: Run?
    }

    public struct Refusal: Sendable, Equatable {
        public var time: Nanoseconds
        public var app: AppID
        public var identifier: TextID
        public var error: BGTaskSchedulerError
        public var reason: TextID
    }

    public struct PushOutcome: Sendable, Equatable {
        public var time: Nanoseconds
        public var app: AppID
        public var type: PushType
        /// nil: delivered; else held or dropped for this reason.
        public var reason: TextID?
        public var held: Bool
        public var toApp: Bool
    }

    public private(set) var lives: [Life] = []
    public private(set) var refusals: [Refusal] = []
    public private(set) var pushes: [PushOutcome] = []
    /// The life a request waits in, by app and identifier.
    private var pending: [AppID: [TextID: Int]] = [:]
    private var running: [AppID: [TextID: Int]] = [:]
    /// Each app's entries, so one app's counts cost its own entries, not everyone's.
    private var livesByApp: [AppID: [Int]] = [:]
    private var refusalsByApp: [AppID: [Int]] = [:]
    private var pushesByApp: [AppID: [Int]] = [:]

    public func lives(of app: AppID) -> [Life] { (livesByApp[app] ?? []).map { lives[$0] } }
    public func refusals(of app: AppID) -> [Refusal] { (refusalsByApp[app] ?? []).map { refusals[$0] } }
    public func pushes(of app: AppID) -> [PushOutcome] { (pushesByApp[app] ?? []).map { pushes[$0] } }

    public init() {}

    public init(_ events: some Sequence<TraceEvent>) {
        record(events)
    }

    public mutating func record(_ events: some Sequence<TraceEvent>) {
        for event in events { record(event) }
    }

    public mutating func record(_ event: TraceEvent) {
        guard let app = event.app else { return }
        let t = event.time
        switch event.kind {
        case let .taskSubmit(id, kind, _):
            if let k = pending[app]?[id] { finishWait(k, .replaced(at: t)) }
            pending[app, default: [:]][id] = lives.count
            livesByApp[app, default: []].append(lives.count)
            lives.append(Life(app: app, identifier: id, kind: kind, submitted: t))
        case let .taskReject(id, error, reason):
            refusalsByApp[app, default: []].append(refusals.count)
            refusals.append(Refusal(time: t, app: app, identifier: id, error: error, reason: reason))
        case let .taskDefer(id, reason):
            let k = pending[app]?[id] ?? open(app, id, at: t)
            closeHold(k, at: t)
            lives[k].holds.append(Hold(since: t, until: nil, reason: reason))
        case let .taskStart(id, reason):
            let k = pending[app]?[id] ?? open(app, id, at: t)
            finishWait(k, .started(at: t, reason: reason))
            running[app, default: [:]][id] = k
        case let .taskCancel(id):
            if let k = pending[app]?[id] { finishWait(k, .cancelled(at: t)) }
        case let .taskExpire(id), let .taskExpireWithReason(id, _):
            if let k = running[app]?[id] { lives[k].expired = t }
        case let .taskComplete(id, success):
            if let k = running[app]?.removeValue(forKey: id) { lives[k].run = .completed(at: t, success: success) }
        case .terminate, .memoryKill:
            for (_, k) in running[app] ?? [:] { lives[k].run = .lost(at: t) }
            running[app] = nil
        case let .pushDeliver(type, _, toApp):
            pushesByApp[app, default: []].append(pushes.count)
            pushes.append(PushOutcome(time: t, app: app, type: type, reason: nil, held: false, toApp: toApp))
        case let .pushDrop(type, _, reason, held):
            pushesByApp[app, default: []].append(pushes.count)
            pushes.append(PushOutcome(time: t, app: app, type: type, reason: reason, held: held, toApp: false))
        default:
            break
        }
    }

    private mutating func open(_ app: AppID, _ id: TextID, at t: Nanoseconds) -> Int {
        pending[app, default: [:]][id] = lives.count
        livesByApp[app, default: []].append(lives.count)
        lives.append(Life(app: app, identifier: id, kind: nil, submitted: t))
        return lives.count - 1
    }

    private mutating func closeHold(_ k: Int, at t: Nanoseconds) {
        if let last = lives[k].holds.indices.last, lives[k].holds[last].until == nil { lives[k].holds[last].until = t }
    }

    private mutating func finishWait(_ k: Int, _ end: End) {
        let t: Nanoseconds
        switch end {
        case let .started(at, _), let .cancelled(at), let .replaced(at): t = at
        }
        closeHold(k, at: t)
        lives[k].end = end
        pending[lives[k].app]?[lives[k].identifier] = nil
    }

    /// The policy a deferral names: `score 0.29 < 0.5 — ApplicationPolicy: …`
    /// and `ApplicationPolicy: …` both give `ApplicationPolicy`; a reason
    /// without a policy's name is its own name.
    public static func policy(of reason: String) -> String {
        var text = Substring(reason)
        // After the last " — " (the score's explanation), if any.
        if let dash = text.lastIndex(of: "—"), text[text.index(after: dash)...].first == " " {
            text = text[text.index(dash, offsetBy: 2)...]
        }
        let name = text.prefix { $0 != ":" && $0 != ";" }
        return name.isEmpty ? reason : String(name)
    }
}
