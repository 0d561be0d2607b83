/// rules §7 as device logs show it [O]: dasd judges a background push like
/// any activity (`com.apple.pushLaunch.<bundle>`), policy by policy. The app
/// in front: Absolutely Must Proceed. A restart since the person last opened
/// the app (`modern`): Absolutely Must Not Proceed (`pushDisallowed`). A
/// thundering herd after boot, the camera in use, critical memory or its
/// data still locked since boot (FileProtectionPolicy): Must Not Proceed. Otherwise DeviceActivityPolicy's score counts.
struct PushPolicyResponse: Sendable, Equatable {
    var policy: SchedulingPolicy
    var verdict: PolicyVerdict
    var words: Rationale
    /// When time alone will change this answer.
    var until: Nanoseconds?
}

extension PushController {
    /// dasd's policies for a background push arriving now, under these conditions.
    static func policyResponses(_ c: PushConditions, settings p: PushSettings) -> [PushPolicyResponse] {
        var out: [PushPolicyResponse] = []
        if c.inFront {
            out.append(.init(policy: .application, verdict: .absolutelyMustProceed, words: .appIsForeground))
        } else if p.pushDisallowedAfterReboot, let boot = c.lastBoot, (c.lastUse.map { $0 < boot } ?? true) {
            out.append(.init(policy: .application, verdict: .absolutelyMustNotProceed, words: .pushDisallowed))
        } else {
            out.append(.init(policy: .application, verdict: .canProceed(1), words: .pushAllowed))
        }
        if let herd = c.herd {
            out.append(.init(policy: .thunderingHerd, verdict: .mustNotProceed, words: herd.words, until: herd.until))
        } else {
            out.append(.init(policy: .thunderingHerd, verdict: .canProceed(1), words: .noCrowd))
        }
        out.append(.init(policy: .memoryPressure, verdict: c.memoryPressure.verdict, words: c.memoryPressure.words))
        out.append(.init(policy: .fileProtection, verdict: c.fileProtection.verdict, words: c.fileProtection.words))
        let active = !c.locked
        out.append(.init(policy: .deviceActivity,
                         verdict: .canProceed(active ? p.deviceActivityScoreInUse : p.deviceActivityScoreLocked),
                         words: .deviceActive(active)))
        return out
    }

    /// What the responses add up to: the verdict, Σ weight·score, Σ weight.
    static func verdict(_ responses: [PushPolicyResponse],
                        settings p: PushSettings) -> (verdict: PolicyVerdict, sum: Double, denominator: Double) {
        let weights = p.dasdWeights
        var sum = 0.0, denominator = 0.0
        var must = false, mustNot = false
        for r in responses {
            switch r.verdict {
            case .absolutelyMustNotProceed: return (.absolutelyMustNotProceed, 0, 0)
            case .mustNotProceed: mustNot = true
            case .absolutelyMustProceed: must = true
            case let .canProceed(s):
                let w = weights[r.policy] ?? 0
                sum += w * s
                denominator += w
            }
        }
        if must { return (.absolutelyMustProceed, sum, denominator) }
        if mustNot { return (.mustNotProceed, sum, denominator) }
        return (.canProceed(denominator > 0 ? sum / denominator : 1), sum, denominator)
    }

    /// The push gate's dasd step: nil when dasd lets the push launch the app.
    static func dasdGate(_ c: PushConditions, settings p: PushSettings) -> PushGate? {
        guard p.judgedByDasd else { return nil }
        let responses = policyResponses(c, settings: p)
        let (verdict, _, _) = verdict(responses, settings: p)
        func why(_ r: PushPolicyResponse) -> String {
            "\(r.policy.rawValue): \(r.verdict.dasdName) \(r.words.text(wallClockOffset: c.wallClockOffset))"
        }
        switch verdict {
        case .absolutelyMustProceed: return nil
        case .absolutelyMustNotProceed, .mustNotProceed:
            let deciding = responses.first { $0.verdict == verdict } ?? responses[0]
            return .hold(why(deciding), retryAt: deciding.until)
        case let .canProceed(score):
            if score >= p.dasdThreshold { return nil }
            return .hold("score \(Engine.twoDecimals(score)) < \(Engine.rounded(p.dasdThreshold))", retryAt: nil)
        }
    }
}
