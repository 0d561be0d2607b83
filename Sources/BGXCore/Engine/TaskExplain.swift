// `bgx explain`'s question about one task is the coordinator's: the answer
// reads the scheduler's request and history, the task scheduler's running
// task, the launch policy and the process table, and repeats the judgement
// on a copy of the whole engine to predict the start (as JobScheduler's
// service, not one controller, answers `dumpsys`).

extension Engine {
    /// Explains one task identifier of an app, now.
    public func explainTask(app: AppID, identifier: String) -> TaskExplanation {
        let a = apps[Int(app.index)]
        var e = TaskExplanation(app: a.manifest.bundleIdentifier, identifier: identifier, at: now,
                                atText: clockText(now), status: .notPending)
        e.wallClockOffset = wallClockOffset
        let id = texts.index[identifier]
        if let pending = pendingTask(for: app, identifier: identifier) {
            e.status = .pending(since: pending.submittedAt)
            e.kind = pending.request.kind.description
            e.earliestBegin = pending.request.earliestBegin
            let candidate = pending.candidate
            let processing = candidate.kind == .processing
            let j = judge(candidate, app, cause: .bgTask, taskIdentifier: pending.identifier)
            let reason = decision(j, candidate).text(wallClockOffset: wallClockOffset)
            e.wouldStartNow = j.run
            e.decision = j.run ? "would start now (\(reason))" : "deferred: \(reason)"
            e.score = j.score
            e.threshold = j.threshold
            let outcomes = SchedulingPolicy.ordered.map { evaluate($0, candidate, detailed: true) }
            e.policies = outcomes.map { o in
                let weight = schedulerSettings.weight(o.policy, processing: processing)
                let (verdict, score): (String, Double?)
                switch o.verdict {
                case .absolutelyMustNotProceed: (verdict, score) = ("absolutely must not", nil)
                case .mustNotProceed: (verdict, score) = ("must not proceed", nil)
                case let .canProceed(s): (verdict, score) = ("can proceed", s)
                case .absolutelyMustProceed: (verdict, score) = ("absolutely must", nil)
                }
                let since = o.verdict.blocks ? (pending.blockedSince[o.policy.index] ?? now) : nil
                return TaskExplanation.PolicyLine(policy: o.policy.rawValue, verdict: verdict, score: score, weight: weight,
                                                  contribution: score.map { weight * $0 }, rationale: o.rationale,
                                                  blockedSince: since, changesAt: o.nextChange)
            }
            e.weightedSum = j.weightedSum
            e.totalWeight = j.totalWeight
            if !j.run {
                e.holds = holds(outcomes, pending: pending, judgement: j, processing: processing)
                let couldRunFrom = max(pending.submittedAt, candidate.earliest)
                e.waitingSince = e.holds.compactMap(\.since).min() ?? (couldRunFrom <= now ? couldRunFrom : pending.submittedAt)
                if let start = predictedStart(of: candidate, app: app, identifier: pending.identifier) {
                    e.predictedStart = start.time
                    e.predictedStartReason = start.reason
                }
            }
            if let next = j.nextChange {
                e.nextLook = next
                e.nextLookReason = outcomes.filter { $0.nextChange == next }
                    .map { "\($0.policy.rawValue) changes" }.joined(separator: ", ")
                if e.nextLookReason?.isEmpty == true { e.nextLookReason = "the threshold falls to the score" }
            }
        } else if let id, let running = taskScheduler.runningTask(app, TextID(index: id)) {
            e.status = .running(since: running.started,
                                timeLeft: taskScheduler.apps[Int(app.index)].deadline.map { max(0, $0 - now) })
            e.kind = running.kind.description
        }
        if let firstUse = scheduler.apps[Int(app.index)].usage.firstUse,
           let predicted = scheduler.apps[Int(app.index)].usage.predictedUse(afterWall: wall(now), firstUseWall: wall(firstUse),
                                                threshold: schedulerSettings.usageProbabilityThreshold) {
            e.predictedUse = predicted - wallClockOffset
        }
        if let id {
            e.history = scheduler.taskHistory.filter { $0.app == app && $0.identifier.index == id }.suffix(12).map { ($0.time, $0.words(text: { text($0) }, clock: { clockText($0) })) }
        }
        return e
    }

    /// What a deferred request waits for: every veto; or, when the score
    /// fell short, the policies that pulled it down most (largest
    /// weight × (1 − score) first) until the rest would pass.
    private func holds(_ outcomes: [PolicyOutcome], pending: PendingTask, judgement j: Judgement,
                       processing: Bool) -> [TaskExplanation.Hold] {
        func hold(_ o: PolicyOutcome, since: Nanoseconds?) -> TaskExplanation.Hold {
            // Moments as `when` writes them (seconds only when there are some).
            func clock(_ t: Nanoseconds) -> String {
                Time.wallClock(wall(t), seconds: wall(t) % Time.minutes(1) != 0)
            }
            let words = o.words?.hold(until: o.nextChange.map(clock))
            return TaskExplanation.Hold(policy: o.policy.rawValue,
                                        waitsFor: words?.waitsFor ?? "\(o.policy.rawValue): \(o.rationale)",
                                        change: words?.change ?? o.nextChange.map { "wait until \(clock($0))" }
                                            ?? "a change in what \(o.policy.rawValue) looks at",
                                        since: since, changesAt: o.nextChange)
        }
        if case let .launchRefused(refusal) = j.key {
            let words = Rationale.launchRefused(refusal).hold(until: nil)!
            return [TaskExplanation.Hold(policy: "launch policy", waitsFor: words.waitsFor, change: words.change,
                                         since: nil, changesAt: nil)]
        }
        let vetoes = outcomes.filter { $0.verdict.blocks }
        if !vetoes.isEmpty {
            return vetoes.map { hold($0, since: pending.blockedSince[$0.policy.index] ?? now) }
        }
        // Score below the threshold: the biggest shortfalls, until making them whole would pass.
        var shortfalls: [(o: PolicyOutcome, gap: Double)] = []
        let total = j.totalWeight
        var sum = j.weightedSum
        for o in outcomes {
            guard case let .canProceed(score) = o.verdict else { continue }
            let w = schedulerSettings.weight(o.policy, processing: processing)
            if score < 1, w > 0 { shortfalls.append((o, w * (1 - score))) }
        }
        shortfalls.sort { $0.gap > $1.gap }
        var result: [TaskExplanation.Hold] = []
        for (o, gap) in shortfalls {
            result.append(hold(o, since: nil))
            sum += gap
            if total > 0, sum / total >= j.threshold { break }
        }
        return result
    }

    /// When the scheduler would start the request if only time passed: the
    /// judgement repeated at each moment time alone changes an answer, on a
    /// copy of the engine (nothing is recorded). nil when time alone never will.
    func predictedStart(of c: Candidate, app: AppID, identifier: TextID) -> (time: Nanoseconds, reason: String)? {
        var copy = self
        for _ in 0..<64 {
            let j = copy.judge(c, app, cause: .bgTask, taskIdentifier: identifier)
            if j.run { return (copy.now, copy.decision(j, c).text(wallClockOffset: wallClockOffset)) }
            guard let next = j.nextChange, next > copy.now else { return nil }
            copy.now = next
            copy.scheduler.refreshPredictionCache(app, now: next, wallClockOffset: wallClockOffset)
            copy.scheduler.refreshDeviceUse(now: next, wallClockOffset: wallClockOffset)
        }
        return nil
    }

    /// Identifiers an app permits, has pending, running, or has a history for.
    public func taskIdentifiers(of app: AppID) -> [String] {
        var ids: [String] = []
        var seen: Set<String> = []
        func add(_ name: String) { if seen.insert(name).inserted { ids.append(name) } }
        for h in scheduler.taskHistory where h.app == app { add(text(h.identifier)) }
        for p in scheduler.pendingTasks.serials(of: app) { add(text(scheduler.pendingTasks[p].identifier)) }
        for name in apps[Int(app.index)].manifest.permittedTaskIdentifiers { add(name) }
        return ids
    }
}
