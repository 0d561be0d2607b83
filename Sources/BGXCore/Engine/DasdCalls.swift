/// dasd's own words for a decision (`explain --format dasd`, `bgx dasd-log`,
/// the calibration set): the scheduler's for a pending request, and for a
/// background push arriving now the push policies' with what else would hold
/// or drop it — which crosses the scheduler, pushes and the launch policy.
extension Engine {
    /// The pending request `identifier` of `app`, judged now in dasd's terms;
    /// nil when no such request is pending.
    public func dasdDecision(app: AppID, identifier: String) -> DasdDecision? {
        guard let pending = pendingTask(for: app, identifier: identifier) else { return nil }
        let j = judge(pending.candidate, app, cause: .bgTask, taskIdentifier: pending.identifier)
        return scheduler.dasdDecision(pending, j, identifier: identifier, self)
    }

    /// A background push (priority 5) for `app` arriving now, judged in
    /// dasd's terms: dasd's own push policies, then — as `PushGate` — what
    /// else in bgx would hold or drop it (force-quit, Background App Refresh,
    /// the hourly throttle and daily budget, battery, Low Power Mode).
    public func dasdPushDecision(app: AppID) -> DasdDecision {
        let weights = profile.push.dasdWeights
        let push = Push(type: .background, priority: 5)
        var responses: [DasdDecision.Response] = []
        var final: PolicyVerdict = .canProceed(1)
        var sum = 0.0, denominator = 0.0
        if profile.push.judgedByDasd {
            let judged = pushPolicyResponses(app)
            for r in judged {
                responses.append(.init(name: r.policy.rawValue, weight: weights[r.policy] ?? 0, verdict: r.verdict,
                                       rationale: r.words.text(wallClockOffset: wallClockOffset)))
            }
            (final, sum, denominator) = pushVerdict(judged)
        }
        let inFront = frontApp == app && apps[Int(app.index)].state.isRunning
        var run = final == .absolutelyMustProceed
        if case let .canProceed(score) = final { run = score >= profile.push.dasdThreshold }
        // The rest of the gate, without its dasd step (judged above): a push
        // below the threshold is dasd's Can Proceed with DecisionToRun 0, not a veto.
        if !inFront && !final.blocks, let gate = backgroundPushGate(app, push, dasd: false) {
            let reason: String
            switch gate {
            case let .drop(r): reason = r
            case let .hold(r, _): reason = r
            }
            responses.append(.init(name: "PushGate", weight: 0, verdict: .mustNotProceed, rationale: reason))
            final = .mustNotProceed
            run = false
        }
        return DasdDecision(activity: "com.apple.pushLaunch." + apps[Int(app.index)].manifest.bundleIdentifier,
                            responses: responses, sumScores: sum, denominator: denominator, final: final,
                            thresholdScore: profile.push.judgedByDasd ? profile.push.dasdThreshold : nil,
                            decisionToRun: run)
    }
}
