/// A scheduling decision in dasd's own terms — its activity name, each
/// policy's weight, decision, score and rationale, `sumScores`,
/// `denominator`, `FinalDecision`/`FinalScore`, and the moving threshold
/// (`CurrentScore`, `ThresholdScore`, `DecisionToRun`) — so that bgx's
/// judgement can be laid beside a developer's device log (`explain --format
/// dasd`, `bgx dasd-log`, the calibration set).
public struct DasdDecision: Sendable, Equatable, Codable {
    public struct Response: Sendable, Equatable, Codable {
        public var name: String
        public var weight: Double
        public var verdict: PolicyVerdict
        public var rationale: String
        public init(name: String, weight: Double, verdict: PolicyVerdict, rationale: String) {
            (self.name, self.weight, self.verdict, self.rationale) = (name, weight, verdict, rationale)
        }
    }

    /// `bgProcessing-<identifier>`, `bgRefresh-<identifier>`, `com.apple.pushLaunch.<bundle>`.
    public var activity: String
    public var responses: [Response]
    public var sumScores: Double
    public var denominator: Double
    /// dasd's FinalDecision: a blocking verdict, Absolutely Must Proceed, or
    /// Can Proceed with the FinalScore.
    public var final: PolicyVerdict
    /// The score to reach, where scores decide.
    public var thresholdScore: Double?
    /// Whether the activity runs now (dasd's `DecisionToRun`).
    public var decisionToRun: Bool

    public init(activity: String, responses: [Response], sumScores: Double, denominator: Double,
                final: PolicyVerdict, thresholdScore: Double?, decisionToRun: Bool) {
        self.activity = activity
        self.responses = responses
        self.sumScores = sumScores
        self.denominator = denominator
        self.final = final
        self.thresholdScore = thresholdScore
        self.decisionToRun = decisionToRun
    }

    public func response(_ name: String) -> Response? { responses.first { $0.name == name } }

    /// What dasd prints: the policies that matter (the blocking ones when
    /// something blocks, else every one scoring below 1 — a policy scoring
    /// 1 is not printed [O]), then the sums and the final decision; a second
    /// line with the score against the threshold where scores decided.
    public var text: String {
        let shown: [Response]
        switch final {
        case .absolutelyMustNotProceed, .mustNotProceed: shown = responses.filter { $0.verdict.blocks }
        case .absolutelyMustProceed: shown = responses.filter { $0.verdict == .absolutelyMustProceed }
        case .canProceed: shown = responses.filter { $0.verdict.score < 1 }
        }
        var out = "\(activity):\(tag):[\n"
        for r in shown {
            out += "\t{name: \(r.name), policyWeight: \(Self.fixed(r.weight, 3)), response: {Decision: \(r.verdict.dasdName), "
                + "Score: \(Self.fixed(r.verdict.score, 2))"
                + (r.rationale.isEmpty ? "" : ", Rationale: \(r.rationale)") + "}}\n"
        }
        switch final {
        case let .canProceed(score):
            out += " ] sumScores:\(Self.fixed(sumScores, 6)), denominator:\(Self.fixed(denominator, 6)), "
                + "FinalDecision: Can Proceed FinalScore: \(Self.fixed(score, 6))}\n"
            if let thresholdScore {
                out += "'\(activity):\(tag)' CurrentScore: \(Self.fixed(score, 6)), ThresholdScore: \(Self.fixed(thresholdScore, 6)) "
                    + "DecisionToRun:\(decisionToRun ? 1 : 0)\n"
            }
        default:
            out += " ], FinalDecision: \(final.dasdName)}\n"
        }
        return out
    }

    /// dasd tags each activity with six hex digits; bgx derives them from the
    /// name (FNV-1a), so the same activity keeps its tag from run to run.
    public var tag: String {
        var h: UInt32 = 2_166_136_261
        for b in activity.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        let digits = Array("0123456789ABCDEF")
        var tag = ""
        // (A loop, not a map over an inferred closure: that took the compiler 1.7 s.)
        for shift in stride(from: UInt32(20), through: 0, by: -4) { tag.append(digits[Int((h >> shift) & 0xF)]) }
        return tag
    }

    /// `5.000`, `0.961348`: fixed decimals, as dasd prints them, without Foundation.
    public static func fixed(_ v: Double, _ places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let n = Int64((abs(v) * scale).rounded())
        let s = Int64(scale)
        var frac = String(n % s)
        while frac.count < places { frac = "0" + frac }
        return (v < 0 ? "-" : "") + "\(n / s)" + (places > 0 ? "." + frac : "")
    }
}

extension SchedulerController {
    /// A pending request judged now in dasd's terms: each policy's answer
    /// with its weight and rationale, and the final decision `j` adds up to
    /// (the launch policy's word included, as the engine asked it).
    func dasdDecision<F: SchedulingFacts>(_ pending: PendingTask, _ j: Judgement, identifier: String,
                                          _ f: F) -> DasdDecision {
        let c = pending.candidate
        let processing = c.kind == .processing
        var responses: [DasdDecision.Response] = []
        for policy in SchedulingPolicy.ordered {
            let o = evaluate(policy, c, f, detailed: true)
            let w = settings.weight(policy, processing: processing)
            responses.append(.init(name: policy.rawValue, weight: w, verdict: o.verdict, rationale: o.rationale))
        }
        let final: PolicyVerdict
        switch j.key {
        case .mustNot:
            // Any Absolutely Must Not Proceed makes the final decision one.
            final = responses.contains { $0.verdict == .absolutelyMustNotProceed } ? .absolutelyMustNotProceed : .mustNotProceed
        case .absolutelyMust: final = .absolutelyMustProceed
        case .launchRefused(let refusal):
            // The policies said run; the launch policy (rules §11) did not.
            responses.append(.init(name: "LaunchPolicy", weight: 0, verdict: .mustNotProceed, rationale: refusal.reason))
            final = .mustNotProceed
        case .ran, .waits: final = .canProceed(j.score)
        }
        return DasdDecision(activity: (processing ? "bgProcessing-" : "bgRefresh-") + identifier, responses: responses,
                            sumScores: j.weightedSum, denominator: j.totalWeight, final: final,
                            thresholdScore: j.threshold, decisionToRun: j.run)
    }
}
