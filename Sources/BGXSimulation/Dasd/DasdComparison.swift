import BGXCore

/// A decision from a device's dasd log beside bgx's at the same moment,
/// policy by policy: does bgx reach the same final decision, for the same
/// reason (the deciding policy), with the same verdict from each policy the
/// log printed?
public struct DasdComparison: Sendable {
    public struct Row: Sendable {
        public var policy: String
        public var logged: String
        public var bgx: String
        public var agrees: Bool
    }

    public var logged: DasdLog.Decision
    public var bgx: DasdDecision
    public var rows: [Row]

    public init(logged: DasdLog.Decision, bgx: DasdDecision) {
        self.logged = logged
        self.bgx = bgx
        rows = logged.policies.map { p in
            let mine = bgx.response(p.name)
            let loggedText = "\(p.decision) \(DasdDecision.fixed(p.score, 2)) (w \(DasdDecision.number(p.weight)))"
            guard let mine else { return Row(policy: p.name, logged: loggedText, bgx: "not applied", agrees: false) }
            let bgxText = "\(mine.verdict.dasdName) \(DasdDecision.fixed(mine.verdict.score, 2)) (w \(DasdDecision.number(mine.weight)))"
            return Row(policy: p.name, logged: loggedText, bgx: bgxText,
                       agrees: Self.kind(p.decision) == Self.kind(mine.verdict.dasdName))
        }
    }

    /// Whether bgx, too, ran it (or not).
    public var finalAgrees: Bool { logged.ran == bgx.decisionToRun }

    /// Whether bgx's deciding policy is one the log's decision turned on.
    public var decidingAgrees: Bool {
        !Set(logged.decidingPolicies).isDisjoint(with: bgxDeciding)
    }

    /// bgx's deciding policies, chosen as `DasdLog.Decision.decidingPolicies` chooses.
    public var bgxDeciding: [String] {
        let blocking = bgx.responses.filter { $0.verdict.blocks }
        if bgx.final.blocks { return blocking.map(\.name) }
        if bgx.final == .absolutelyMustProceed {
            return bgx.responses.filter { $0.verdict == .absolutelyMustProceed }.map(\.name)
        }
        let worst = bgx.responses.filter { if case .canProceed = $0.verdict { true } else { false } }
            .max { $0.weight * (1 - $0.verdict.score) < $1.weight * (1 - $1.verdict.score) }
        return worst.map { [$0.name] } ?? []
    }

    /// How many of the logged policies bgx answers with the same verdict.
    public var policiesAgreeing: Int { rows.filter(\.agrees).count }

    static func kind(_ decision: String) -> Int {
        switch decision {
        case "Absolutely Must Not Proceed": 0
        case "Must Not Proceed", "May Not Proceed": 1
        case "Can Proceed": 2
        default: 3  // Absolutely Must Proceed, Must Proceed
        }
    }

    public var text: String {
        let loggedFinal = logged.finalDecision + (logged.finalScore.map { " \(DasdDecision.fixed($0, 4))" } ?? "")
            + (logged.decisionToRun.map { " DecisionToRun:\($0 ? 1 : 0)" } ?? "")
        var bgxFinal = bgx.final.dasdName
        if case let .canProceed(s) = bgx.final { bgxFinal += " \(DasdDecision.fixed(s, 4))" }
        if let t = bgx.thresholdScore, case .canProceed = bgx.final { bgxFinal += " (threshold \(DasdDecision.fixed(t, 4)))" }
        bgxFinal += " DecisionToRun:\(bgx.decisionToRun ? 1 : 0)"
        var out = "  final     device: \(loggedFinal)\n            bgx:    \(bgxFinal)   \(finalAgrees ? "agrees" : "DIFFERS")\n"
        out += "  deciding  device: \(logged.decidingPolicies.joined(separator: ", "))   bgx: "
            + "\(bgxDeciding.joined(separator: ", "))   \(decidingAgrees ? "agrees" : "DIFFERS")\n"
        for r in rows {
            out += "  \(r.policy.padded(24)) device: \(r.logged.padded(30)) bgx: \(r.bgx)   \(r.agrees ? "agrees" : "DIFFERS")\n"
            if let mine = bgx.response(r.policy), !mine.rationale.isEmpty {
                out += "  \("".padded(24)) bgx rationale: \(mine.rationale)\n"
            }
        }
        let extra = bgx.responses.filter { r in r.verdict.blocks && !logged.policies.contains { $0.name == r.name } }
        for r in extra {
            out += "  \(r.name.padded(24)) device: (not logged)                 bgx: \(r.verdict.dasdName) — \(r.rationale)\n"
        }
        return out
    }
}

extension DasdDecision {
    /// `5`, `0.5`: a weight as short as it goes.
    static func number(_ v: Double) -> String {
        v == v.rounded() ? String(Int64(v)) : fixed(v, 2).trimmingZeros()
    }
}

private extension String {
    func padded(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
    /// `0.50` → `0.5`.
    func trimmingZeros() -> String {
        guard contains(".") else { return self }
        var s = self
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}

extension ScenarioRun {
    /// bgx's decision, at `time` of the scenario's day (seconds after midnight,
    /// the first such moment not before the run's clock), about a push to
    /// `bundle` (when `task` is nil) or its pending request `task`.
    /// Runs the scenario up to that moment. nil when there is nothing to judge
    /// (no such app, or the request is not pending).
    public func dasdDecision(atSecondsOfDay seconds: Int, bundle: String, task: String?) -> DasdDecision? {
        var t = Time.seconds(seconds) - startOffset
        while t < device.now { t += Time.days(1) }
        guard t <= scenario.duration, let app = device.app(bundle) else { return nil }
        device.withEngine { $0.recordsDasdDecisions = true }
        guard let task else {
            // Just before the moment: a push the scenario sends then is judged as it arrives.
            run(until: max(device.now, t - 1))
            return device.engine.dasdPushDecision(app: app)
        }
        run(until: t)
        let engine = device.engine
        if let pending = engine.dasdDecision(app: app, identifier: task) { return pending }
        // Started at this moment (within the log's second): the decision that started it.
        return engine.dasdStarts.last { $0.app == app && $0.identifier == task && t - $0.time < Time.seconds(1) }?.decision
    }

    /// The app and request a logged decision is about, as the scenario knows
    /// them: a push launch names the bundle; a BGTask activity its identifier.
    public func subject(of logged: DasdLog.Decision) -> (bundle: String, task: String?)? {
        if logged.activity.hasPrefix("com.apple.pushLaunch.") {
            return scenario.apps.contains { $0.manifest.bundleIdentifier == logged.subject } ? (logged.subject, nil) : nil
        }
        guard logged.activity.hasPrefix("bgProcessing-") || logged.activity.hasPrefix("bgRefresh-") else { return nil }
        let id = logged.subject
        guard let bundle = ScenarioRun.app(for: id, named: nil, in: scenario) else { return nil }
        return (bundle, id)
    }
}
