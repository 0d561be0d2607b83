/// `bgx explain`: at a moment of the run, why a task has or hasn't run, and
/// when it will — each policy's view, the way `dumpsys jobscheduler` prints
/// each controller's (SPEC §6: "why hasn't my task run?" has an answer).
public struct TaskExplanation: Sendable {
    public enum Status: Sendable, Equatable {
        case pending(since: Nanoseconds)
        case running(since: Nanoseconds, timeLeft: Nanoseconds?)
        case notPending
    }

    public struct PolicyLine: Sendable {
        public var policy: String
        public var verdict: String        // "must not proceed" | "can proceed" | "absolutely must proceed"
        public var score: Double?
        public var weight: Double
        public var rationale: String
        /// Since when this policy has blocked the task (Must Not Proceed only).
        public var blockedSince: Nanoseconds?
        public var changesAt: Nanoseconds?
    }

    public var app: String
    public var identifier: String
    public var at: Nanoseconds
    public var atText: String
    public var status: Status
    public var kind: String?
    public var earliestBegin: Nanoseconds?
    public var policies: [PolicyLine] = []
    public var decision: String?
    public var score: Double?
    public var threshold: Double?
    /// When the scheduler will next look at it if nothing else changes, and why.
    public var nextLook: Nanoseconds?
    public var nextLookReason: String?
    public var predictedUse: Nanoseconds?
    public var history: [(time: Nanoseconds, what: String)] = []
    public var clock: [Nanoseconds: String] = [:]

    func when(_ t: Nanoseconds) -> String { clock[t] ?? "t=\(Time.format(t))s" }

    public var text: String {
        var out = "\(identifier) (\(app)) at \(atText)\n"
        switch status {
        case let .pending(since):
            out += "  status: pending since \(when(since))"
            if let kind { out += ", \(kind)" }
            if let e = earliestBegin { out += ", earliest begin \(when(e))" }
            out += "\n"
        case let .running(since, left):
            out += "  status: running since \(when(since))"
            if let left { out += ", \(Time.describe(left)) left" }
            out += "\n"
        case .notPending:
            out += "  status: not pending (not submitted, already run, cancelled or refused — see history)\n"
        }
        if let decision {
            out += "  decision: \(decision)\n"
        }
        if !policies.isEmpty {
            out += "  policies (weight, verdict, score — rationale):\n"
            for p in policies {
                var line = "    \(p.policy.padding(28)) w=\(Self.number(p.weight).padding(4)) \(p.verdict.padding(17))"
                line += p.score.map { " \(Self.number($0).padding(5))" } ?? "      "
                line += " — \(p.rationale)"
                if let since = p.blockedSince { line += " (since \(when(since)))" }
                out += line + "\n"
            }
        }
        if let next = nextLook {
            out += "  next look: \(when(next))" + (nextLookReason.map { " — \($0)" } ?? "") + "\n"
        } else if case .pending = status {
            out += "  next look: when a condition changes (no time-based change is due)\n"
        }
        if let p = predictedUse { out += "  predicted next use of the app: \(when(p))\n" }
        if !history.isEmpty {
            out += "  history:\n"
            for h in history { out += "    \(when(h.time))  \(h.what)\n" }
        }
        return out
    }

    public var json: String {
        func s(_ v: String) -> String { var o = ""; TraceRenderer.appendJSONString(v, to: &o); return o }
        func t(_ v: Nanoseconds?) -> String { v.map { Time.format($0) } ?? "null" }
        var status: String
        switch self.status {
        case let .pending(since): status = "{\"state\": \"pending\", \"since\": \(t(since))}"
        case let .running(since, left): status = "{\"state\": \"running\", \"since\": \(t(since)), \"timeLeft\": \(t(left))}"
        case .notPending: status = "{\"state\": \"notPending\"}"
        }
        let policies = self.policies.map { p in
            "{\"policy\": \(s(p.policy)), \"verdict\": \(s(p.verdict)), \"score\": \(p.score.map { Self.number($0) } ?? "null"), "
                + "\"weight\": \(Self.number(p.weight)), \"rationale\": \(s(p.rationale)), "
                + "\"blockedSince\": \(t(p.blockedSince)), \"changesAt\": \(t(p.changesAt))}"
        }.joined(separator: ", ")
        let history = self.history.map { "{\"t\": \(t($0.time)), \"what\": \(s($0.what))}" }.joined(separator: ", ")
        return "{\"app\": \(s(app)), \"identifier\": \(s(identifier)), \"t\": \(t(at)), \"status\": \(status), "
            + "\"kind\": \(kind.map(s) ?? "null"), \"earliestBegin\": \(t(earliestBegin)), "
            + "\"decision\": \(decision.map(s) ?? "null"), \"score\": \(score.map { Self.number($0) } ?? "null"), "
            + "\"threshold\": \(threshold.map { Self.number($0) } ?? "null"), "
            + dasdScores + "\"policies\": [\(policies)], "
            + "\"nextLook\": \(t(nextLook)), \"nextLookReason\": \(nextLookReason.map(s) ?? "null"), "
            + "\"predictedUse\": \(t(predictedUse)), \"history\": [\(history)]}"
    }

    /// dasd's own names for the score against the moving threshold
    /// (`CurrentScore`, `ThresholdScore`, `DecisionToRun`), for JSON readers
    /// who compare with a device log.
    var dasdScores: String {
        guard let score, let threshold else { return "" }
        func six(_ v: Double) -> String { String(Double(Int((v * 1_000_000).rounded())) / 1_000_000) }
        return "\"currentScore\": \(six(score)), \"thresholdScore\": \(six(threshold)), "
            + "\"decisionToRun\": \(decision?.hasPrefix("would start") == true ? 1 : 0), "
    }

    static func number(_ d: Double) -> String {
        d == d.rounded() ? String(Int64(d)) : String(Double(Int((d * 100).rounded())) / 100)
    }
}

private extension String {
    func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}

extension Engine {
    /// Explains one task identifier of an app, now.
    public func explainTask(app: AppID, identifier: String) -> TaskExplanation {
        let a = apps[Int(app.index)]
        var e = TaskExplanation(app: a.manifest.bundleIdentifier, identifier: identifier, at: now,
                                atText: clockText(now), status: .notPending)
        var times: Set<Nanoseconds> = [now]
        let id = texts.index[identifier]
        if let pending = pendingTask(for: app, identifier: identifier) {
            e.status = .pending(since: pending.submittedAt)
            e.kind = pending.request.kind.description
            e.earliestBegin = pending.request.earliestBegin
            let candidate = pending.candidate
            let judgement = judge(candidate, detailed: true)
            e.decision = judgement.run ? "would start now (\(judgement.reason))" : "deferred: \(judgement.reason)"
            e.score = judgement.score
            e.threshold = thresholdScore(candidate)
            e.policies = judgement.outcomes.map { o in
                let (verdict, score): (String, Double?)
                switch o.verdict {
                case .absolutelyMustNotProceed: (verdict, score) = ("absolutely must not", nil)
                case .mustNotProceed: (verdict, score) = ("must not proceed", nil)
                case let .canProceed(s): (verdict, score) = ("can proceed", s)
                case .absolutelyMustProceed: (verdict, score) = ("absolutely must", nil)
                }
                let since = o.verdict.blocks ? (pending.blockedSince[o.policy.index] ?? now) : nil
                return TaskExplanation.PolicyLine(policy: o.policy.rawValue, verdict: verdict, score: score,
                                                  weight: schedulerPolicy.weight(o.policy, processing: candidate.kind == .processing),
                                                  rationale: o.rationale,
                                                  blockedSince: since, changesAt: o.nextChange)
            }
            if let next = judgement.nextChange {
                e.nextLook = next
                e.nextLookReason = judgement.outcomes.filter { $0.nextChange == next }
                    .map { "\($0.policy.rawValue) changes" }.joined(separator: ", ")
                if e.nextLookReason?.isEmpty == true { e.nextLookReason = "the threshold falls to the score" }
            }
            for p in e.policies {
                if let t = p.blockedSince { times.insert(t) }
                if let t = p.changesAt { times.insert(t) }
            }
            times.insert(pending.submittedAt)
            if let t = pending.request.earliestBegin { times.insert(t) }
        } else if let id, let running = a.runningTasks.first(where: { $0.identifier.index == id }) {
            e.status = .running(since: running.started, timeLeft: a.taskDeadline.map { max(0, $0 - now) })
            e.kind = running.kind.description
            times.insert(running.started)
        }
        if let firstUse = a.usage.firstUse,
           let predicted = a.usage.predictedUse(afterWall: wall(now), firstUseWall: wall(firstUse),
                                                threshold: schedulerPolicy.usageProbabilityThreshold) {
            e.predictedUse = predicted - wallClockOffset
            times.insert(predicted - wallClockOffset)
        }
        if let id {
            e.history = taskHistory.filter { $0.app == app && $0.identifier.index == id }.suffix(12).map { ($0.time, words(of: $0)) }
        }
        for h in e.history { times.insert(h.time) }
        for t in times { e.clock[t] = Time.wallClock(wall(t), seconds: wall(t) % Time.minutes(1) != 0) }
        return e
    }

    /// Identifiers an app has pending, running, or has a history for.
    public func taskIdentifiers(of app: AppID) -> [String] {
        var ids: [String] = []
        for h in taskHistory where h.app == app {
            let name = text(h.identifier)
            if !ids.contains(name) { ids.append(name) }
        }
        for p in pendingTasks where p.app == app {
            let name = text(p.identifier)
            if !ids.contains(name) { ids.append(name) }
        }
        return ids
    }
}
