@testable import BGXCore

/// The JSON outputs as bgx wrote them by hand before `InlineJSONEncoder`
/// wrote them from `Encodable` values: kept as the reference the encoded
/// outputs must equal byte for byte (InlineJSONTests, EncodedOutputsTests).
enum HandWrittenJSON {
    static func string(_ v: String) -> String { var o = ""; TraceRenderer.appendJSONString(v, to: &o); return o }

    /// `TaskExplanation.json` as it was.
    static func explanation(_ e: TaskExplanation) -> String {
        let s = string
        func t(_ v: Nanoseconds?) -> String { v.map { Time.format($0) } ?? "null" }
        func n(_ v: Double?) -> String { v.map { TaskExplanation.number($0) } ?? "null" }
        var status: String
        switch e.status {
        case let .pending(since): status = "{\"state\": \"pending\", \"since\": \(t(since))}"
        case let .running(since, left): status = "{\"state\": \"running\", \"since\": \(t(since)), \"timeLeft\": \(t(left))}"
        case .notPending: status = "{\"state\": \"notPending\", \"submitted\": \(!e.history.isEmpty)}"
        }
        let policies = e.policies.map { p in
            "{\"policy\": \(s(p.policy)), \"verdict\": \(s(p.verdict)), \"score\": \(n(p.score)), "
                + "\"weight\": \(TaskExplanation.number(p.weight)), \"contribution\": \(n(p.contribution)), \"rationale\": \(s(p.rationale)), "
                + "\"blockedSince\": \(t(p.blockedSince)), \"changesAt\": \(t(p.changesAt))}"
        }.joined(separator: ", ")
        let holds = e.holds.map { h in
            "{\"policy\": \(s(h.policy)), \"waitsFor\": \(s(h.waitsFor)), \"change\": \(s(h.change)), "
                + "\"since\": \(t(h.since)), \"changesAt\": \(t(h.changesAt))}"
        }.joined(separator: ", ")
        let history = e.history.map { "{\"t\": \(t($0.time)), \"what\": \(s($0.what))}" }.joined(separator: ", ")
        let started = e.startedInRun.map { "{\"t\": \(t($0.time)), \"reason\": \(s($0.reason))}" } ?? "null"
        let submitters = e.submittedBy.map { "[" + $0.map(s).joined(separator: ", ") + "]" } ?? "null"
        var dasdScores = ""
        if let score = e.score, let threshold = e.threshold {
            func six(_ v: Double) -> String { String(Double(Int((v * 1_000_000).rounded())) / 1_000_000) }
            dasdScores = "\"currentScore\": \(six(score)), \"thresholdScore\": \(six(threshold)), "
                + "\"decisionToRun\": \(e.decision?.hasPrefix("would start") == true ? 1 : 0), "
        }
        return "{\"app\": \(s(e.app)), \"identifier\": \(s(e.identifier)), \"t\": \(t(e.at)), "
            + "\"verdict\": [\(e.verdictLines.map(s).joined(separator: ", "))], \"status\": \(status), "
            + "\"kind\": \(e.kind.map(s) ?? "null"), \"earliestBegin\": \(t(e.earliestBegin)), "
            + "\"decision\": \(e.decision.map(s) ?? "null"), \"wouldStartNow\": \(e.wouldStartNow), "
            + "\"score\": \(n(e.score)), \"threshold\": \(n(e.threshold)), "
            + "\"weightedSum\": \(n(e.weightedSum)), \"totalWeight\": \(n(e.totalWeight)), " + dasdScores + "\"policies\": [\(policies)], "
            + "\"waitingSince\": \(t(e.waitingSince)), \"holds\": [\(holds)], "
            + "\"nextLook\": \(t(e.nextLook)), \"nextLookReason\": \(e.nextLookReason.map(s) ?? "null"), "
            + "\"predictedStart\": \(t(e.predictedStart)), \"predictedStartReason\": \(e.predictedStartReason.map(s) ?? "null"), "
            + "\"predictedUse\": \(t(e.predictedUse)), \"startedInRun\": \(started), \"runEnd\": \(t(e.runEnd)), "
            + "\"submittedBy\": \(submitters), \"history\": [\(history)]}"
    }

    /// `AppSummary.json` as it was.
    static func summary(_ a: AppSummary) -> String {
        func obj<K>(_ pairs: [(K, String)]) -> String where K: CustomStringConvertible {
            "{" + pairs.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
        let states = obj(ProcessState.allCases.map { ($0, Time.format(Time.seconds(a.secondsInState[$0] ?? 0))) })
        let l = obj(LaunchCause.allCases.compactMap { c in a.launches[c].map { (c, "\($0)") } })
        let t = obj(TerminationReason.allCases.compactMap { r in a.terminations[r].map { (r, "\($0)") } })
        return "{\"app\": \(string(a.bundleIdentifier)), \"secondsInState\": \(states), "
            + "\"backgroundSeconds\": \(Time.format(Time.seconds(a.backgroundSeconds))), "
            + "\"launches\": \(l), \"coldLaunches\": \(a.coldLaunches), \"warmLaunches\": \(a.warmLaunches), "
            + "\"terminations\": \(t), "
            + "\"backgroundTasks\": {\"begun\": \(a.backgroundTasksBegun), \"expired\": \(a.backgroundTasksExpired)}, "
            + "\"scheduledTasks\": \(requests(a)), \"pushes\": \(pushes(a)), "
            + "\"fetches\": \(a.fetches)}"
    }

    static func requests(_ a: AppSummary) -> String {
        let r = a.requests
        let longest = r.longestHold.map {
            "{\"policy\": \(string($0.policy)), \"seconds\": \(Time.format($0.duration))}"
        } ?? "null"
        var byError: [(BGTaskSchedulerError, Int)] = []  // in iOS's code order
        for e in [BGTaskSchedulerError.unavailable, .tooManyPendingTaskRequests, .notPermitted] {
            let n = r.refused.filter { $0.error == e }.reduce(0) { $0 + $1.count }
            if n > 0 { byError.append((e, n)) }
        }
        let refusals = r.refused.map {
            "{\"error\": \"\($0.error)\", \"reason\": \(string($0.reason)), \"count\": \($0.count)}"
        }
        return "{\"submitted\": \(r.submitted), \"started\": \(a.scheduledTasksStarted), \"expired\": \(a.scheduledTasksExpired), "
            + "\"deferred\": \(r.deferred), \"longestHold\": \(longest), "
            + "\"refused\": {" + byError.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}, "
            + "\"refusals\": [" + refusals.joined(separator: ", ") + "], "
            + "\"cancelled\": \(r.cancelled), \"pendingAtEnd\": \(r.pendingAtEnd)}"
    }

    static func pushes(_ a: AppSummary) -> String {
        func reasons(_ list: [PushCounts.Reason]) -> String {
            "{" + list.map { "\(string($0.reason)): \($0.count)" }.joined(separator: ", ") + "}"
        }
        let p = a.pushes
        return "{\"delivered\": \(p.delivered), \"deliveredToApp\": \(p.deliveredToApp), "
            + "\"deliveredToUser\": \(p.deliveredToUser), \"held\": \(reasons(p.held)), \"dropped\": \(reasons(p.dropped))}"
    }
}
