/// `bgx explain`: at a moment of the run, why a task has or hasn't run, and
/// when it will. First a verdict in plain words — what the task waits for,
/// since when, what would change it, when it is predicted to start — then
/// each policy's view and how their weighted scores add up to the decision,
/// the way `dumpsys jobscheduler` prints each controller's (rules §6: "why
/// hasn't my task run?" has an answer).
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
        /// weight × score: what this policy adds to the weighted sum (nil when it vetoes or insists).
        public var contribution: Double?
        public var rationale: String
        /// Since when this policy has blocked the task (Must Not Proceed only).
        public var blockedSince: Nanoseconds?
        public var changesAt: Nanoseconds?
    }

    /// One thing the task waits for: a policy that vetoes it, or one whose
    /// low score keeps the sum under the threshold — in plain words, with
    /// what would change it.
    public struct Hold: Sendable {
        public var policy: String
        public var waitsFor: String
        public var change: String
        public var since: Nanoseconds?
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
    public var wouldStartNow = false
    public var score: Double?
    /// The threshold the score was compared with (the judgement's own).
    public var threshold: Double?
    /// Σ weight × score over the policies that can proceed, and Σ weight: score = sum / weights.
    public var weightedSum: Double?
    public var totalWeight: Double?
    /// What the task waits for, most decisive first.
    public var holds: [Hold] = []
    /// Since when the task has waited (the deciding veto's start, or since it could first run).
    public var waitingSince: Nanoseconds?
    /// When the scheduler will next look at it if nothing else changes, and why.
    public var nextLook: Nanoseconds?
    public var nextLookReason: String?
    /// When the scheduler would start it if nothing but time changed (nil: time alone never will).
    public var predictedStart: Nanoseconds?
    public var predictedStartReason: String?
    public var predictedUse: Nanoseconds?
    public var history: [(time: Nanoseconds, what: String)] = []
    /// What the run did after `at`, when whoever explains ran on to the end:
    /// when the task started (nil: it did not), and where the run ended.
    public var startedInRun: (time: Nanoseconds, reason: String)?
    public var runEnd: Nanoseconds?
    /// Where the scenario submits this identifier (empty: nothing does; nil: not known).
    public var submittedBy: [String]?
    /// Wall-clock time at t = 0, for the moments' words.
    public var wallClockOffset: Nanoseconds = 0

    public func when(_ t: Nanoseconds) -> String {
        let wall = t + wallClockOffset
        return Time.wallClock(wall, seconds: wall % Time.minutes(1) != 0)
    }

    // MARK: The verdict in plain words

    /// A few lines a person can act on: what the task waits for, since
    /// when, what would change it, when it is predicted to start, and when
    /// it did start in this run.
    public var verdictLines: [String] {
        var lines: [String] = []
        switch status {
        case let .pending(since):
            if wouldStartNow {
                lines.append("starts now: \(decision.map { Self.dropPrefix($0) } ?? "")")
            } else {
                let from = waitingSince ?? since
                if holds.isEmpty {
                    lines.append("waiting since \(when(from))")
                } else {
                    lines.append("waiting since \(when(from)) for " + holds.map(\.waitsFor).joined(separator: "; and for "))
                    lines.append("to change it: " + changes.joined(separator: "; and "))
                }
                if let predictedStart {
                    lines.append("predicted start: \(when(predictedStart))"
                                 + (predictedStartReason.map { " — \($0)" } ?? "") + " (if nothing else changes)")
                } else {
                    lines.append("predicted start: none by time alone — it waits until one of the above changes")
                }
            }
        case let .running(since, _):
            let why = history.last { $0.what.hasPrefix("started") }.map { " — \($0.what)" } ?? ""
            lines.append("running since \(when(since))\(why)")
        case .notPending:
            if history.isEmpty {
                lines.append("never submitted up to \(atText)")
            } else if let last = history.last {
                lines.append("not pending: last \(last.what) at \(when(last.time))")
            }
            if let submittedBy {
                lines.append(submittedBy.isEmpty ? "nothing in this scenario submits it"
                             : "would be submitted by " + submittedBy.joined(separator: "; "))
            }
        }
        if let runEnd, runEnd > at {
            if let s = startedInRun {
                lines.append("in this run: started at \(when(s.time)) — \(s.reason)")
            } else {
                lines.append("in this run: not started before the run ends at \(when(runEnd))")
            }
        }
        return lines
    }

    /// What would change the answer, each once: of several waits only the
    /// latest matters, as every hold must clear.
    var changes: [String] {
        let latestWait = holds.filter { h in h.changesAt.map { h.change == "wait until \(when($0))" } ?? false }
            .compactMap(\.changesAt).max()
        var out: [String] = []
        for h in holds {
            if let t = h.changesAt, let latest = latestWait, t < latest, h.change == "wait until \(when(t))" { continue }
            if !out.contains(h.change) { out.append(h.change) }
        }
        return out
    }

    static func dropPrefix(_ s: String) -> String {
        s.hasPrefix("would start now (") && s.hasSuffix(")") ? String(s.dropFirst(17).dropLast()) : s
    }

    // MARK: Text (the JSON: ExplainJSON.swift)

    public var text: String {
        var out = "\(identifier) (\(app)) at \(atText)\n"
        for line in verdictLines { out += "  \(line)\n" }
        out += "  details:\n"
        switch status {
        case let .pending(since):
            out += "    status: pending since \(when(since))"
            if let kind { out += ", \(kind)" }
            if let e = earliestBegin { out += ", earliest begin \(when(e))" }
            out += "\n"
        case let .running(since, left):
            out += "    status: running since \(when(since))"
            if let left { out += ", \(Time.describe(left)) left" }
            out += "\n"
        case .notPending:
            out += "    status: not pending\n"
        }
        if let decision { out += "    decision: \(decision)\n" }
        if !policies.isEmpty {
            out += "    policies (weight × score = contribution; a policy that must not proceed vetoes):\n"
            for p in policies {
                var line = "      \(p.policy.padding(28)) \(Self.number(p.weight).padding(4, left: true))"
                if let s = p.score, let c = p.contribution {
                    line += " × \(Self.number(s).padding(4)) = \(Self.number(c).padding(5))"
                } else {
                    line += "               "
                }
                line += " \(p.verdict.padding(16)) — \(p.rationale)"
                if let since = p.blockedSince { line += " (since \(when(since)))" }
                out += line + "\n"
            }
            if let sum = weightedSum, let total = totalWeight, let score, let threshold {
                let passes = score >= threshold
                out += "      sum \(Self.number(sum)) / weights \(Self.number(total)) = score \(Self.number(score)) "
                    + (passes ? "≥" : "<") + " threshold \(Self.number(threshold))"
                let vetoes = policies.filter { $0.verdict == "must not proceed" || $0.verdict == "absolutely must not" }.map(\.policy)
                if !vetoes.isEmpty {
                    out += passes ? " — but vetoed by \(vetoes.joined(separator: ", "))" : "; vetoed too by \(vetoes.joined(separator: ", "))"
                }
                out += "\n"
            }
        }
        if let next = nextLook {
            out += "    next look: \(when(next))" + (nextLookReason.map { " — \($0)" } ?? "")
                + " (the scheduler judges again then; a change of device or app state makes it look sooner)\n"
        } else if case .pending = status {
            out += "    next look: when a condition changes (no time-based change is due)\n"
        }
        if let p = predictedUse { out += "    predicted next use of the app: \(when(p))\n" }
        if !history.isEmpty {
            out += "    history:\n"
            for h in history { out += "      \(when(h.time))  \(h.what)\n" }
        }
        return out
    }

    static func number(_ d: Double) -> String {
        d == d.rounded() ? String(Int64(d)) : String(Double(Int((d * 100).rounded())) / 100)
    }
}

private extension String {
    func padding(_ n: Int, left: Bool = false) -> String {
        guard count < n else { return self }
        let pad = String(repeating: " ", count: n - count)
        return left ? pad + self : self + pad
    }
}

extension Rationale {
    /// What a policy's answer waits for and what would change it, in plain
    /// words; `until` is when time alone changes it. nil for an answer that
    /// holds nothing back (and for words this table does not know: the
    /// caller falls back to the rationale itself).
    func hold(until changesAt: String?) -> (waitsFor: String, change: String)? {
        let wait = changesAt.map { "wait until \($0)" }
        switch self {
        case .earliestTooFar:
            return ("an earliestBeginDate the scheduler will honour", "submit it again with an earlier earliestBeginDate")
        case .earliestNotReached:
            return ("its earliestBeginDate", wait ?? "wait for its earliestBeginDate")
        case let .launchRefused(refusal):
            switch refusal {
            case .beforeFirstUnlock: return ("the first unlock since boot", "unlock the device")
            case .forceQuit: return ("the person to open the app (they force-quit it)", "open the app")
            case let .modeMissing(mode): return ("the '\(mode.rawValue)' background mode", "add '\(mode.rawValue)' to UIBackgroundModes")
            case .taskIdentifierNotPermitted:
                return ("a permitted identifier", "add it to BGTaskSchedulerPermittedIdentifiers")
            case .multitaskingUnsupported: return ("a device that multitasks", "nothing: this device never runs it")
            case .backgroundAppRefreshOff:
                return ("Background App Refresh (off in Settings)", "turn Background App Refresh on in Settings")
            case .backgroundAppRefreshOffForApp:
                return ("Background App Refresh for this app (off in Settings)",
                        "turn Background App Refresh on for the app in Settings")
            }
        case .lowPowerModeOn: return ("Low Power Mode to be off", "turn Low Power Mode off")
        case .batteryCritical: return ("more battery (critically low)", "plug the device in")
        case let .battery(level) where level < 100: return ("more battery (\(level)%)", "plug the device in")
        case let .thermal(state) where state != .nominal:
            return ("the device to cool down (thermal state \(state.rawValue))", wait ?? "let the device cool down")
        case .requiresPowerUnplugged:
            return ("power (the request requires external power; the device is unplugged)", "plug the device in")
        case .unplugged: return ("the charger (unplugged scores 0)", wait.map { "plug the device in, or \($0)" } ?? "plug the device in")
        case .requiresNetworkNone:
            return ("a network (the request requires connectivity)", "connect the device to a network")
        case let .network(network) where network != .wifi:
            return ("a better network (\(network.rawValue))", "connect the device to Wi-Fi")
        case .processingWhileActive:
            return ("the device to be idle (a processing task runs only while the device is locked and idle)",
                    "lock the device and leave it")
        case let .processingBeforeIdle(idle):
            return ("the device to be idle for \(Time.describe(idle))", wait ?? "leave the device locked")
        case .deviceActive(true): return ("the device to be idle (in use scores lower)", "lock the device")
        case let .herdAfterTrigger(window, reason):
            return ("the first \(Time.describe(window)) after \(reason.words) to pass (ThunderingHerdPolicy)", wait ?? "wait")
        case let .herdWhileInUse(_, reason):
            return ("the person to stop using the device after \(reason.words) (ThunderingHerdPolicy)",
                    wait.map { "lock the device, or \($0)" } ?? "lock the device")
        case .appInForeground: return ("the app to leave the foreground", "send the app to the background")
        case .neverUsed:
            return ("the person to use the app (the scheduler does not launch an app never used)", "open the app")
        case .unusedSince: return ("the person to use the app again", "open the app")
        case let .nextPredictedUse(t):
            if t == nil {
                return ("a predicted use (none in the next two days)", wait.map { "open the app, or \($0)" } ?? "open the app")
            }
            return ("the person's predicted use to near", wait.map { "\($0), when the person's predicted use nears" }
                    ?? "wait for the person's predicted use")
        case .noUsePatternYet:
            return ("a day of the person's use to learn from (use is predicted from past days)",
                    wait.map { "\($0), when a refresh is due anyway" } ?? "wait for a day of use")
        case .processingSpacing: return ("the spacing between processing tasks", wait ?? "wait")
        case let .launchSpacing(_, _, _, _, reputation?) where reputation < 1:
            return ("the spacing between fetches, \(Engine.twoDecimals(1 / reputation))× longer for the app's fetch "
                    + "reputation (\(Engine.twoDecimals(reputation)): slow, large or dishonest fetches)",
                    wait.map { "\($0); fetch faster, smaller, and report newData only for data fetched" } ?? "wait")
        case .launchSpacing: return ("the spacing between background launches", wait ?? "wait")
        case .energySpent: return ("tomorrow's energy budget", wait ?? "wait until tomorrow")
        case let .energyUsed(used, budget) where used > 0:
            return ("energy budget (\(Time.describe(used)) of \(Time.describe(budget)) used today)", wait ?? "wait until tomorrow")
        case .cellularSpent:
            return ("tomorrow's cellular budget", wait.map { "connect to Wi-Fi, or \($0)" } ?? "connect to Wi-Fi")
        case let .cellularUsed(used, limit) where used > 0:
            return ("cellular budget (\(used) of \(limit) used today)", "connect to Wi-Fi")
        default:
            return nil
        }
    }
}
