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
    /// Each app's part of the ledger, by app index: arrays, not dictionaries
    /// keyed by app and identifier — the ledger reads every trace event, and
    /// hashing them cost more than the rest of its work.
    private struct AppEntries: Sendable {
        /// The life a request waits in, and the one a started task runs in, by identifier.
        var pending: [(identifier: TextID, life: Int)] = []
        var running: [(identifier: TextID, life: Int)] = []
        /// The app's entries, so one app's counts cost its own entries, not everyone's.
        var lives: [Int] = []
        var refusals: [Int] = []
        var pushes: [Int] = []
    }
    private var entries: [AppEntries] = []

    public func lives(of app: AppID) -> [Life] { entriesOf(app).lives.map { lives[$0] } }
    public func refusals(of app: AppID) -> [Refusal] { entriesOf(app).refusals.map { refusals[$0] } }
    public func pushes(of app: AppID) -> [PushOutcome] { entriesOf(app).pushes.map { pushes[$0] } }

    private func entriesOf(_ app: AppID) -> AppEntries {
        Int(app.index) < entries.count ? entries[Int(app.index)] : AppEntries()
    }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Transfers/, Trace/ and Push/ (1 of them in this file) cost the engine 4 instructions per event.
    /// The app's entries, made when it first appears.
    @inline(__always) private mutating func slot(_ app: AppID) -> Int {
        let i = Int(app.index)
        if i >= entries.count { entries.append(contentsOf: repeatElement(AppEntries(), count: i + 1 - entries.count)) }
        return i
    }

    private static func find(_ list: [(identifier: TextID, life: Int)], _ id: TextID) -> Int? {
        list.first { $0.identifier == id }?.life
    }

    private static func set(_ list: inout [(identifier: TextID, life: Int)], _ id: TextID, _ life: Int?) {
        if let k = list.firstIndex(where: { $0.identifier == id }) {
            if let life { list[k].life = life } else { list.remove(at: k) }
        } else if let life {
            list.append((id, life))
        }
    }

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
            let a = slot(app)
            if let k = Self.find(entries[a].pending, id) { finishWait(k, .replaced(at: t)) }
            Self.set(&entries[a].pending, id, lives.count)
            entries[a].lives.append(lives.count)
            lives.append(Life(app: app, identifier: id, kind: kind, submitted: t))
        case let .taskReject(id, error, reason):
            entries[slot(app)].refusals.append(refusals.count)
            refusals.append(Refusal(time: t, app: app, identifier: id, error: error, reason: reason))
        case let .taskDefer(id, reason):
            let k = Self.find(entries[slot(app)].pending, id) ?? open(app, id, at: t)
            closeHold(k, at: t)
            lives[k].holds.append(Hold(since: t, until: nil, reason: reason))
        case let .taskStart(id, reason):
            let k = Self.find(entries[slot(app)].pending, id) ?? open(app, id, at: t)
            finishWait(k, .started(at: t, reason: reason))
            Self.set(&entries[slot(app)].running, id, k)
        case let .taskCancel(id):
            if let k = Self.find(entries[slot(app)].pending, id) { finishWait(k, .cancelled(at: t)) }
        case let .taskExpire(id), let .taskExpireWithReason(id, _):
            if let k = Self.find(entries[slot(app)].running, id) { lives[k].expired = t }
        case let .taskComplete(id, success):
            let a = slot(app)
            if let k = Self.find(entries[a].running, id) {
                Self.set(&entries[a].running, id, nil)
                lives[k].run = .completed(at: t, success: success)
            }
        case .terminate, .memoryKill:
            let a = slot(app)
            for (_, k) in entries[a].running { lives[k].run = .lost(at: t) }
            entries[a].running = []
        case let .pushDeliver(type, _, toApp):
            entries[slot(app)].pushes.append(pushes.count)
            pushes.append(PushOutcome(time: t, app: app, type: type, reason: nil, held: false, toApp: toApp))
        case let .pushDrop(type, _, reason, held):
            entries[slot(app)].pushes.append(pushes.count)
            pushes.append(PushOutcome(time: t, app: app, type: type, reason: reason, held: held, toApp: false))
        default:
            break
        }
    }

    private mutating func open(_ app: AppID, _ id: TextID, at t: Nanoseconds) -> Int {
        let a = slot(app)
        Self.set(&entries[a].pending, id, lives.count)
        entries[a].lives.append(lives.count)
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
        Self.set(&entries[slot(lives[k].app)].pending, lives[k].identifier, nil)
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
