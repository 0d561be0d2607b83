/// SPEC §6: the scheduler's judgement, shaped like dasd's. Each policy looks
/// at one condition and answers Must Not Proceed, Can Proceed with a score
/// 0–1, or Absolutely Must Proceed, with a rationale — and, where time alone
/// will change its answer, when. The final score is Σ weight·score / Σ weight.
public enum SchedulingPolicy: String, Sendable, CaseIterable, Hashable, Comparable {
    case earliestBeginDate = "EarliestBeginDatePolicy"
    case backgroundAppRefresh = "BackgroundAppRefreshPolicy"
    case firstUnlock = "FirstUnlockPolicy"
    case forceQuit = "ForceQuitPolicy"
    case lowPowerMode = "LowPowerModePolicy"
    case batteryLevel = "BatteryLevelPolicy"
    case thermal = "ThermalPolicy"
    case chargerPluggedIn = "ChargerPluggedInPolicy"
    case networkQuality = "NetworkQualityPolicy"
    case deviceActivity = "DeviceActivityPolicy"
    case thunderingHerd = "ThunderingHerdPolicy"
    case application = "ApplicationPolicy"
    case rateLimit = "ActivityRateLimitPolicy"
    case energyBudget = "EnergyBudgetPolicy"

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

public enum PolicyVerdict: Sendable, Equatable {
    case mustNotProceed
    case canProceed(Double)
    case absolutelyMustProceed
}

public struct PolicyOutcome: Sendable, Equatable {
    public var policy: SchedulingPolicy
    public var verdict: PolicyVerdict
    public var rationale: String
    /// When time alone may change this answer.
    public var nextChange: Nanoseconds?
}

/// What the scheduler is deciding about: a BGTask request or a fetch.
struct Candidate: Sendable {
    enum Kind: Sendable, Equatable { case appRefresh, processing, fetch }
    var app: AppID
    var kind: Kind
    var earliest: Nanoseconds
    var submittedAt: Nanoseconds
    var requiresNetwork: Bool
    var requiresPower: Bool
}

extension Engine {
    var schedulerPolicy: SchedulerPolicy { profile.scheduler }

    /// Wall-clock time (time of day matters to the predictor).
    func wall(_ t: Nanoseconds) -> Nanoseconds { t + wallClockOffset }

    /// `1d 08:15` in the scenario's wall-clock time.
    public func clockText(_ t: Nanoseconds) -> String {
        let w = wall(t) / Time.nanosecondsPerSecond
        let day = (t + wallClockOffset % Time.days(1)) / Time.days(1)
        let rest = w % 86_400
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(day)d \(two(rest / 3600)):\(two(rest % 3600 / 60))"
    }

    func evaluate(_ policy: SchedulingPolicy, _ c: Candidate) -> PolicyOutcome {
        func out(_ v: PolicyVerdict, _ why: String, next: Nanoseconds? = nil) -> PolicyOutcome {
            PolicyOutcome(policy: policy, verdict: v, rationale: why, nextChange: next)
        }
        let p = schedulerPolicy
        let a = apps[Int(c.app.index)]
        switch policy {
        case .earliestBeginDate:
            if c.kind != .fetch, c.earliest - c.submittedAt > p.farFutureCutoff {
                return out(.mustNotProceed, "earliestBeginDate \(clockText(c.earliest)) is more than "
                           + "\(Time.describe(p.farFutureCutoff)) after submission; it may never run")
            }
            if now < c.earliest {
                return out(.mustNotProceed, "[{earliest begin \(clockText(c.earliest)) not reached}]", next: c.earliest)
            }
            return out(.canProceed(1), "earliest begin \(clockText(c.earliest)) reached")
        case .backgroundAppRefresh:
            if !device.backgroundAppRefresh { return out(.mustNotProceed, "Background App Refresh is off in Settings") }
            if !a.manifest.backgroundAppRefresh {
                return out(.mustNotProceed, "Background App Refresh is off for this app in Settings")
            }
            return out(.canProceed(1), "Background App Refresh is on")
        case .firstUnlock:
            if !device.unlockedSinceBoot { return out(.mustNotProceed, "the device has not been unlocked since boot") }
            return out(.canProceed(1), "unlocked since boot")
        case .forceQuit:
            if a.forceQuit {
                return out(.mustNotProceed, "the user force-quit the app; no background launch until the user opens it")
            }
            return out(.canProceed(1), "not force-quit")
        case .lowPowerMode:
            if device.lowPowerMode { return out(.mustNotProceed, "Low Power Mode pauses discretionary background work") }
            return out(.canProceed(1), "Low Power Mode off")
        case .batteryLevel:
            if !device.charging && device.battery < p.criticalBatteryLevel {
                return out(.mustNotProceed, "[{batteryLevel == \(device.battery) < \(p.criticalBatteryLevel)}] "
                           + "critically low: essential work only")
            }
            let score = device.charging ? 1 : Double(device.battery) / 100
            return out(.canProceed(score), "[{batteryLevel == \(device.battery)}]")
        case .thermal:
            switch device.thermal {
            case .serious, .critical: return out(.mustNotProceed, "[{thermalLevel == \(device.thermal.rawValue)}]")
            case .fair: return out(.canProceed(0.5), "[{thermalLevel == fair}]")
            case .nominal: return out(.canProceed(1), "[{thermalLevel == nominal}]")
            }
        case .chargerPluggedIn:
            if device.charging { return out(.canProceed(1), "[{pluggedIn == 1}]") }
            if c.requiresPower { return out(.mustNotProceed, "[{requiresExternalPower == 1 AND pluggedIn == 0}]") }
            if c.kind == .processing {
                let since = max(c.submittedAt, c.earliest)
                let bestEffort = since + p.processingBestEffort
                if now >= bestEffort, let last = a.usage.lastUse, now - last <= p.unusedAppCutoff {
                    return out(.canProceed(1), "best effort: pending since \(clockText(since)), "
                               + "over \(Time.describe(p.processingBestEffort)), and the app was used this week")
                }
                return out(.canProceed(0), "[{pluggedIn == 0}]", next: bestEffort)
            }
            return out(.canProceed(0), "[{pluggedIn == 0}]")
        case .networkQuality:
            switch device.network {
            case .none:
                if c.requiresNetwork { return out(.mustNotProceed, "[{requiresNetworkConnectivity == 1 AND network == none}]") }
                return out(.canProceed(0.3), "[{network == none}]")
            case .cellular: return out(.canProceed(0.6), "[{network == cellular}]")
            case .wifi: return out(.canProceed(1), "[{network == wifi}]")
            }
        case .deviceActivity:
            if c.kind == .processing {
                guard device.locked, let lockedSince else {
                    return out(.mustNotProceed, "[{launchType == PROCESSING AND deviceActive == 1}]")
                }
                let idleAt = lockedSince + p.idleBeforeProcessing
                if now < idleAt {
                    return out(.mustNotProceed, "[{launchType == PROCESSING AND idle < \(Time.describe(p.idleBeforeProcessing))}]",
                               next: idleAt)
                }
                return out(.canProceed(1), "device idle since \(clockText(lockedSince))")
            }
            return device.locked ? out(.canProceed(1), "[{deviceActive == 0}]")
                : out(.canProceed(0.7), "[{deviceActive == 1}]")
        case .thunderingHerd:
            if !device.locked, let unlocked = lastUnlock, now - unlocked < p.thunderingHerdWindow {
                return out(.canProceed(0), "[{deviceInUse == 1 AND timeSinceUnlock < \(Time.describe(p.thunderingHerdWindow))}]",
                           next: unlocked + p.thunderingHerdWindow)
            }
            return out(.canProceed(1), "no crowd after unlock")
        case .application:
            if a.state.isForeground { return out(.mustNotProceed, "the app is in the foreground") }
            guard let lastUse = a.usage.lastUse, let firstUse = a.usage.firstUse else {
                return out(.mustNotProceed, "the app has never been used in the foreground")
            }
            if now - lastUse > p.unusedAppCutoff {
                return out(.mustNotProceed, "the app has not been used since \(clockText(lastUse)) "
                           + "(over \(Time.describe(p.unusedAppCutoff)))")
            }
            if c.kind == .processing { return out(.canProceed(1), "the app was used this week (\(clockText(lastUse)))") }
            let predicted = a.usage.predictedUse(afterWall: wall(now), firstUseWall: wall(firstUse),
                                                 threshold: p.usageProbabilityThreshold).map { $0 - wallClockOffset }
            if let predicted, now >= predicted - p.refreshLeadTime {
                return out(.canProceed(1), "predicted use at \(clockText(predicted))")
            }
            let staleAt = (a.lastBackgroundLaunch ?? firstUse) + p.refreshStaleness
            if now >= staleAt {
                return out(.canProceed(0.6), "no background launch for \(Time.describe(p.refreshStaleness))")
            }
            let next = [predicted.map { $0 - p.refreshLeadTime }, staleAt].compactMap { $0 }.min()
            let when = predicted.map { "next predicted use \(clockText($0))" } ?? "no predicted use in the next two days"
            return out(.canProceed(0), when, next: next)
        case .rateLimit:
            guard c.kind != .processing, let last = a.lastBackgroundLaunch, let firstUse = a.usage.firstUse else {
                return out(.canProceed(1), "no recent background launch")
            }
            let perDay = a.usage.usesPerDay(todayWall: wall(now), firstUseWall: wall(firstUse))
            var spacing = perDay >= 3 ? p.spacingFrequentApp : perDay >= 1 ? p.spacingDailyApp : p.spacingRareApp
            spacing <<= Int64(min(a.penalties, p.maxPenaltyDoublings))
            if c.kind == .fetch { spacing = Nanoseconds(Double(spacing) / max(0.25, a.fetchReputation)) }
            if now < last + spacing {
                let usage = String(Double(Int(perDay * 10)) / 10)
                return out(.mustNotProceed, "last background launch \(clockText(last)); next allowed "
                           + "\(clockText(last + spacing)) (app used \(usage)×/day"
                           + (a.penalties > 0 ? ", \(a.penalties) task(s) left uncompleted" : "") + ")",
                           next: last + spacing)
            }
            return out(.canProceed(1), "spacing since \(clockText(last)) respected")
        case .energyBudget:
            guard c.kind != .processing else { return out(.canProceed(1), "processing has its own budget") }
            let day = wall(now) / Time.days(1)
            let used = a.energyDay == day ? a.energyUsed : 0
            if used >= p.dailyEnergyBudget {
                let nextDay = (day + 1) * Time.days(1) - wallClockOffset
                return out(.mustNotProceed, "daily energy budget of \(Time.describe(p.dailyEnergyBudget)) spent",
                           next: nextDay)
            }
            return out(.canProceed(1 - Double(used) / Double(p.dailyEnergyBudget)),
                       "\(Time.describe(used)) of \(Time.describe(p.dailyEnergyBudget)) used today")
        }
    }

    /// All policies for one candidate, and the decision they add up to.
    func judge(_ c: Candidate) -> (outcomes: [PolicyOutcome], run: Bool, score: Double, reason: String,
                                   nextChange: Nanoseconds?) {
        let outcomes = SchedulingPolicy.allCases.map { evaluate($0, c) }
        var total = 0.0, weighted = 0.0
        var mustNot: PolicyOutcome?
        var must = false
        var next: Nanoseconds?
        for o in outcomes {
            if let n = o.nextChange, n > now { next = min(next ?? n, n) }
            switch o.verdict {
            case .mustNotProceed: if mustNot == nil { mustNot = o }
            case .absolutelyMustProceed: must = true
            case let .canProceed(score):
                let w = schedulerPolicy.weight(o.policy, processing: c.kind == .processing)
                total += w
                weighted += w * score
            }
        }
        let score = total > 0 ? weighted / total : 1
        if let m = mustNot { return (outcomes, false, score, "\(m.policy.rawValue): \(m.rationale)", next) }
        if must { return (outcomes, true, score, "absolutely must proceed", next) }
        let threshold = c.kind == .processing ? schedulerPolicy.processingThreshold : schedulerPolicy.appRefreshThreshold
        let shown = String(Double(Int(score * 100)) / 100)
        if score >= threshold {
            // Name the policy that weighs most in favour: why now.
            var best: (gain: Double, outcome: PolicyOutcome)?
            for o in outcomes {
                guard case let .canProceed(s) = o.verdict else { continue }
                let gain = schedulerPolicy.weight(o.policy, processing: c.kind == .processing) * s
                if gain > (best?.gain ?? 0) { best = (gain, o) }
            }
            let why = best.map { " — \($0.outcome.policy.rawValue): \($0.outcome.rationale)" } ?? ""
            return (outcomes, true, score, "score \(shown) ≥ \(threshold)\(why)", next)
        }
        // Name the policy that costs the most: what the candidate waits for.
        var worst: (shortfall: Double, outcome: PolicyOutcome)?
        for o in outcomes {
            guard case let .canProceed(s) = o.verdict else { continue }
            let shortfall = schedulerPolicy.weight(o.policy, processing: c.kind == .processing) * (1 - s)
            if shortfall > (worst?.shortfall ?? 0) { worst = (shortfall, o) }
        }
        let why = worst.map { " — \($0.outcome.policy.rawValue): \($0.outcome.rationale)" } ?? ""
        return (outcomes, false, score, "score \(shown) < \(threshold)\(why)", next)
    }
}
