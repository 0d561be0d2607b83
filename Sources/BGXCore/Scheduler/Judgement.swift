/// What decided: the first policy that said Must Not Proceed, or the one
/// weighing most for (run) or against (defer) — the reason, before words.
enum DecisionKey: Equatable, Sendable, Codable {
    case mustNot(SchedulingPolicy)
    case absolutelyMust
    case ran(SchedulingPolicy?)
    case waits(SchedulingPolicy?)
    /// The policies said run; the launch policy (rules §11) said no.
    case launchRefused(LaunchRefusal)

    /// The policy whose rationale explains the decision, if one does.
    var policy: SchedulingPolicy? {
        switch self {
        case let .mustNot(p): p
        case let .ran(p), let .waits(p): p
        case .absolutelyMust, .launchRefused: nil
        }
    }
}

/// The scheduler's judgement of one candidate (rules §6): what the policies
/// add up to and what decided it. `SchedulerController.decide` returns it;
/// the coordinator adds the launch policy's word (`.launchRefused`).
struct Judgement {
    var run: Bool
    var score: Double
    var threshold: Double
    var key: DecisionKey
    var nextChange: Nanoseconds?
    /// Which policies said Must Not Proceed (bit `index`).
    var mustNotMask: UInt32
    /// Σ weight·score and Σ weight over the policies that said Can Proceed
    /// (dasd's `sumScores` and `denominator`): `explain`, its holds and
    /// `dasdDecision` read them here rather than adding them up again.
    var weightedSum: Double
    var totalWeight: Double
}
