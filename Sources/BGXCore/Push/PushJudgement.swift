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

extension Engine {
    /// dasd's policies for a background push to `app` arriving now.
    func pushPolicyResponses(_ app: AppID) -> [PushPolicyResponse] {
        let i = Int(app.index)
        let p = profile.push
        var out: [PushPolicyResponse] = []
        if frontApp == app && apps[i].state.isRunning {
            out.append(.init(policy: .application, verdict: .absolutelyMustProceed, words: .appIsForeground))
        } else if p.pushDisallowedAfterReboot, let boot = lastBoot,
                  (scheduler.apps[i].usage.lastUse.map { $0 < boot } ?? true) {
            out.append(.init(policy: .application, verdict: .absolutelyMustNotProceed, words: .pushDisallowed))
        } else {
            out.append(.init(policy: .application, verdict: .canProceed(1), words: .pushAllowed))
        }
        if let herd = thunderingHerd() {
            out.append(.init(policy: .thunderingHerd, verdict: .mustNotProceed, words: herd.words, until: herd.until))
        } else {
            out.append(.init(policy: .thunderingHerd, verdict: .canProceed(1), words: .noCrowd))
        }
        let memory = memoryPressureAnswer()
        out.append(.init(policy: .memoryPressure, verdict: memory.verdict, words: memory.words))
        let data = fileProtectionAnswer()
        out.append(.init(policy: .fileProtection, verdict: data.verdict, words: data.words))
        let active = !device.locked
        out.append(.init(policy: .deviceActivity,
                         verdict: .canProceed(active ? p.deviceActivityScoreInUse : p.deviceActivityScoreLocked),
                         words: .deviceActive(active)))
        return out
    }

    /// What the responses add up to: the verdict, Σ weight·score, Σ weight.
    func pushVerdict(_ responses: [PushPolicyResponse]) -> (verdict: PolicyVerdict, sum: Double, denominator: Double) {
        let weights = profile.push.dasdWeights
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
    func dasdPushGate(_ app: AppID) -> PushGate? {
        guard profile.push.judgedByDasd else { return nil }
        let responses = pushPolicyResponses(app)
        let (verdict, _, _) = pushVerdict(responses)
        func why(_ r: PushPolicyResponse) -> String {
            "\(r.policy.rawValue): \(r.verdict.dasdName) \(r.words.text(wallClockOffset: wallClockOffset))"
        }
        switch verdict {
        case .absolutelyMustProceed: return nil
        case .absolutelyMustNotProceed, .mustNotProceed:
            let deciding = responses.first { $0.verdict == verdict } ?? responses[0]
            return .hold(why(deciding), retryAt: deciding.until)
        case let .canProceed(score):
            if score >= profile.push.dasdThreshold { return nil }
            return .hold("score \(Engine.twoDecimals(score)) < \(Engine.rounded(profile.push.dasdThreshold))", retryAt: nil)
        }
    }
}
