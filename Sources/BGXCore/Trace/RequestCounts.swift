/// An app's BGTaskScheduler requests in numbers: what the summary says about
/// them, derived from the ledger so it is what the trace records.
public struct TaskRequestCounts: Sendable, Equatable {
    public struct PolicyHold: Sendable, Equatable {
        public var policy: String
        /// Summed over the app's requests (they may wait side by side).
        public var duration: Nanoseconds
    }

    public struct Refusals: Sendable, Equatable {
        public var error: BGTaskSchedulerError
        public var reason: String
        public var count: Int
    }

    /// Every `submit` call, refused ones included.
    public var submitted = 0
    public var started = 0
    /// Requests the scheduler held back at least once (a `task.defer`).
    public var deferred = 0
    /// The policy that held this app's requests back longest, with how long in all.
    public var longestHold: PolicyHold?
    /// Refused submits: by error, each with the reasons given, in order of first appearance.
    public var refused: [Refusals] = []
    public var expired = 0
    public var cancelled = 0
    /// Still waiting when the run ended, with what held each last.
    public var pendingAtEnd = 0

    public var refusedCount: Int { refused.reduce(0) { $0 + $1.count } }

    public init() {}

    public init(_ ledger: RequestLedger, app: AppID, names: TraceNames, now: Nanoseconds) {
        var held: [String: Nanoseconds] = [:], order: [String] = []
        for life in ledger.lives(of: app) {
            submitted += 1
            if !life.holds.isEmpty { deferred += 1 }
            for hold in life.holds {
                let policy = RequestLedger.policy(of: names.text(hold.reason))
                if held[policy] == nil { order.append(policy) }
                held[policy, default: 0] += max(0, (hold.until ?? now) - hold.since)
            }
            switch life.end {
            case .started: started += 1
            case .cancelled: cancelled += 1
            case .replaced: break
            case nil: pendingAtEnd += 1
            }
            if life.expired != nil { expired += 1 }
            // A task started without a submit was not submitted.
            if life.kind == nil { submitted -= 1 }
        }
        // Ties go to the policy that held first, so the answer is the same on every run.
        for policy in order where held[policy]! > (longestHold?.duration ?? -1) {
            longestHold = PolicyHold(policy: policy, duration: held[policy]!)
        }
        for refusal in ledger.refusals(of: app) {
            submitted += 1
            let reason = names.text(refusal.reason)
            if let i = refused.firstIndex(where: { $0.error == refusal.error && $0.reason == reason }) {
                refused[i].count += 1
            } else {
                refused.append(Refusals(error: refusal.error, reason: reason, count: 1))
            }
        }
    }
}

/// An app's pushes in numbers (rules §7): delivered, held for later, dropped — by reason.
public struct PushCounts: Sendable, Equatable {
    public struct Reason: Sendable, Equatable {
        public var reason: String
        public var count: Int
    }

    public var deliveredToApp = 0
    public var deliveredToUser = 0
    public var delivered: Int { deliveredToApp + deliveredToUser }
    /// Held (only the newest is kept) until it can be delivered, by reason.
    public var held: [Reason] = []
    public var dropped: [Reason] = []
    public var heldCount: Int { held.reduce(0) { $0 + $1.count } }
    public var droppedCount: Int { dropped.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { delivered == 0 && held.isEmpty && dropped.isEmpty }

    public init() {}

    public init(_ ledger: RequestLedger, app: AppID, names: TraceNames) {
        func add(_ reason: String, to list: inout [Reason]) {
            if let i = list.firstIndex(where: { $0.reason == reason }) {
                list[i].count += 1
            } else {
                list.append(Reason(reason: reason, count: 1))
            }
        }
        for push in ledger.pushes(of: app) {
            guard let reason = push.reason.map(names.text) else {
                if push.toApp { deliveredToApp += 1 } else { deliveredToUser += 1 }
                continue
            }
            if push.held {
                // The trace's reason says "held: …"; here the heading says it.
                add(reason.hasPrefix("held: ") ? String(reason.dropFirst(6)) : reason, to: &held)
            } else {
                add(reason, to: &dropped)
            }
        }
    }
}
