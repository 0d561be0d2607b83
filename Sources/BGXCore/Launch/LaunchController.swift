/// rules §11's controller: the launch policy (facts in, a verdict out) and
/// the verdicts that were acted on — each launch or wake into the
/// background, and each refusal that stopped one — so that `explain` can
/// say why each recent launch of an app was allowed or refused.
///
/// The verdicts are kept in one ring for the device, not a list per app:
/// recording one is a store, and an app that is never launched costs
/// nothing. An app's recent launches are those of the newest `capacity`.
struct LaunchController: Sendable, Codable {
    let policy: LaunchPolicy
    /// The newest verdicts, as a ring: `next` is where the next one goes once it is full.
    private(set) var ring: [LaunchRecord] = []
    private var next = 0
    static let capacity = 256

    init(policy: LaunchPolicy) { self.policy = policy }

    /// May an app with these facts be launched or woken for `cause` on this device now?
    func verdict(for cause: LaunchCause, app: LaunchPolicy.AppFacts, device: DeviceState) -> LaunchVerdict {
        policy.verdict(for: cause, app: app, device: device)
    }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Launch/ (2 of them in this file) cost the engine 8 instructions per event.
    /// A verdict was acted on: the app was launched or woken, or a refusal stopped it.
    /// The ring's storage is taken whole at the first verdict, not grown.
    @inline(__always) mutating func note(_ record: LaunchRecord) {
        if ring.count < Self.capacity {
            if ring.isEmpty { ring.reserveCapacity(Self.capacity) }
            ring.append(record)
        } else {
            ring[next] = record
            next = next + 1 == Self.capacity ? 0 : next + 1
        }
    }

    /// The app's recent verdicts, oldest first (at most `limit`).
    func recent(of app: AppID, limit: Int) -> [LaunchRecord] {
        let ordered = ring.count < Self.capacity ? ring[...] + [] : ring[next...] + ring[..<next]
        return Array(ordered.filter { $0.app == app }.suffix(limit))
    }
}

/// One verdict of the launch policy that was acted on.
struct LaunchRecord: Sendable, Equatable, Codable {
    enum Outcome: UInt8, Sendable, Codable { case launched, woken, refused }
    var time: Nanoseconds
    var app: AppID
    var cause: LaunchCause
    var outcome: Outcome
    /// Why it was refused (nil when allowed).
    var refusal: LaunchRefusal?
}

/// The launch controller's recent verdicts for one app, as data: why each
/// recent launch or wake was allowed, or refused.
public struct LaunchControllerDump: ControllerDump, Equatable {
    public var concern: String { "launch policy" }
    public struct Verdict: Sendable, Equatable, Encodable {
        public var time: Nanoseconds
        public var cause: String
        /// "launched", "woken" or "refused".
        public var outcome: String
        public var reason: String
    }
    /// Oldest first.
    public var recent: [Verdict]

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        recent.map { "\(when($0.time)) \($0.outcome) for \($0.cause): \($0.reason)" }
    }

    public func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection? {
        recent.isEmpty ? nil : ExplainSection(heading: "launches of \(app) at \(at)", lines: lines(when: when))
    }
}

extension LaunchControllerDump.Verdict {
    init(_ r: LaunchRecord) {
        time = r.time
        cause = r.cause.description
        switch r.outcome {
        case .launched: outcome = "launched"
        case .woken: outcome = "woken"
        case .refused: outcome = "refused"
        }
        if let refusal = r.refusal {
            reason = refusal.reason
        } else if r.cause.launchesIntoForeground {
            reason = "a launch by the user is never refused"
        } else {
            reason = "allowed: multitasking, the background mode, the first unlock, force-quit and Background App Refresh all allow it"
        }
    }
}

/// The launch controller keeps verdicts, not processes: no moment but its own concerns it.
extension LaunchController: Controller {}
