/// `bgx explain --task … --json` (docs/cli.md): the explanation as data,
/// written by `InlineJSONEncoder` — moments as exact decimals of seconds
/// (`Time.format`), scores and weights as the text shows them, every key
/// there (`null` for what is not known), dasd's own score names only when
/// the task was judged. (Foundation's encoder writes the same values,
/// with its own key order and nil rule.)
extension TaskExplanation: Encodable {
    struct JSON: Encodable {
        let app, identifier: String
        let t: JSONNumber
        let verdict: [String]
        let status: Status
        let kind: String?
        let earliestBegin: JSONNumber?
        let decision: String?
        let wouldStartNow: Bool
        let score, threshold, weightedSum, totalWeight: JSONNumber?
        /// dasd's names for the score against the moving threshold
        /// (`CurrentScore`, `ThresholdScore`, `DecisionToRun`), for readers who
        /// compare with a device log; only when there is a score and a threshold.
        @OmittedWhenNil var currentScore: Double?
        @OmittedWhenNil var thresholdScore: Double?
        @OmittedWhenNil var decisionToRun: Int?
        let policies: [Policy]
        let waitingSince: JSONNumber?
        let holds: [Hold]
        let nextLook: JSONNumber?
        let nextLookReason: String?
        let predictedStart: JSONNumber?
        let predictedStartReason: String?
        let predictedUse: JSONNumber?
        let startedInRun: Started?
        let runEnd: JSONNumber?
        let submittedBy: [String]?
        let history: [Entry]

        enum Status: Encodable {
            case pending(since: JSONNumber)
            case running(since: JSONNumber, timeLeft: JSONNumber?)
            case notPending(submitted: Bool)

            enum CodingKeys: String, CodingKey { case state, since, timeLeft, submitted }

            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                switch self {
                case let .pending(since):
                    try c.encode("pending", forKey: .state)
                    try c.encode(since, forKey: .since)
                case let .running(since, timeLeft):
                    try c.encode("running", forKey: .state)
                    try c.encode(since, forKey: .since)
                    try c.encodeIfPresent(timeLeft, forKey: .timeLeft)   // null when unbounded
                case let .notPending(submitted):
                    try c.encode("notPending", forKey: .state)
                    try c.encode(submitted, forKey: .submitted)
                }
            }
        }

        struct Policy: Encodable {
            let policy, verdict: String
            let score: JSONNumber?
            let weight: JSONNumber
            let contribution: JSONNumber?
            let rationale: String
            let blockedSince, changesAt: JSONNumber?
        }

        struct Hold: Encodable {
            let policy, waitsFor, change: String
            let since, changesAt: JSONNumber?
        }

        struct Started: Encodable { let t: JSONNumber; let reason: String }
        struct Entry: Encodable { let t: JSONNumber; let what: String }
    }

    var jsonValue: JSON {
        func t(_ v: Nanoseconds) -> JSONNumber { JSONNumber(Time.format(v)) }
        func n(_ v: Double) -> JSONNumber { JSONNumber(Self.number(v)) }
        func six(_ v: Double) -> Double { Double(Int((v * 1_000_000).rounded())) / 1_000_000 }
        let status: JSON.Status = switch self.status {
        case let .pending(since): .pending(since: t(since))
        case let .running(since, left): .running(since: t(since), timeLeft: left.map(t))
        case .notPending: .notPending(submitted: !history.isEmpty)
        }
        let judged = score != nil && threshold != nil
        return JSON(
            app: app, identifier: identifier, t: t(at), verdict: verdictLines, status: status,
            kind: kind, earliestBegin: earliestBegin.map(t), decision: decision, wouldStartNow: wouldStartNow,
            score: score.map(n), threshold: threshold.map(n), weightedSum: weightedSum.map(n), totalWeight: totalWeight.map(n),
            currentScore: judged ? score.map(six) : nil, thresholdScore: judged ? threshold.map(six) : nil,
            decisionToRun: judged ? (decision?.hasPrefix("would start") == true ? 1 : 0) : nil,
            policies: policies.map {
                JSON.Policy(policy: $0.policy, verdict: $0.verdict, score: $0.score.map(n), weight: n($0.weight),
                            contribution: $0.contribution.map(n), rationale: $0.rationale,
                            blockedSince: $0.blockedSince.map(t), changesAt: $0.changesAt.map(t))
            },
            waitingSince: waitingSince.map(t),
            holds: holds.map { JSON.Hold(policy: $0.policy, waitsFor: $0.waitsFor, change: $0.change,
                                         since: $0.since.map(t), changesAt: $0.changesAt.map(t)) },
            nextLook: nextLook.map(t), nextLookReason: nextLookReason,
            predictedStart: predictedStart.map(t), predictedStartReason: predictedStartReason,
            predictedUse: predictedUse.map(t),
            startedInRun: startedInRun.map { JSON.Started(t: t($0.time), reason: $0.reason) },
            runEnd: runEnd.map(t), submittedBy: submittedBy,
            history: history.map { JSON.Entry(t: t($0.time), what: $0.what) })
    }

    public func encode(to encoder: Encoder) throws { try jsonValue.encode(to: encoder) }

    /// The explanation's JSON object, one line.
    public var json: String {
        // Strings, booleans and numbers: nothing that fails to encode.
        (try? InlineJSONEncoder().encode(self)) ?? "{}"
    }
}
