/// rules §6: the scheduler's judgement, shaped like dasd's. Each policy looks
/// at one condition and answers Must Not Proceed, Can Proceed with a score
/// 0–1, or Absolutely Must Proceed, with a rationale — and, where time alone
/// will change its answer, when. The final score is Σ weight·score / Σ weight.
public enum SchedulingPolicy: String, Sendable, CaseIterable, Hashable, Comparable, Codable {
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
    case dataBudget = "DataBudgetPolicy"
    case cpuUsage = "CPUUsagePolicy"
    case memoryPressure = "MemoryPressurePolicy"
    case activityGroup = "ActivityGroupPolicy"
    case fileProtection = "FileProtectionPolicy"

    /// The policy's position in `allCases`: tables indexed by it avoid
    /// hashing the name on the hot path.
    public var index: Int {
        switch self {
        case .earliestBeginDate: 0
        case .backgroundAppRefresh: 1
        case .firstUnlock: 2
        case .forceQuit: 3
        case .lowPowerMode: 4
        case .batteryLevel: 5
        case .thermal: 6
        case .chargerPluggedIn: 7
        case .networkQuality: 8
        case .deviceActivity: 9
        case .thunderingHerd: 10
        case .application: 11
        case .rateLimit: 12
        case .energyBudget: 13
        case .dataBudget: 14
        case .cpuUsage: 15
        case .memoryPressure: 16
        case .activityGroup: 17
        case .fileProtection: 18
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.index < b.index }

    /// `allCases`, made once: the synthesized `allCases` builds a new array
    /// on every call, and the scheduler walks the policies on its hot path.
    static let ordered: [SchedulingPolicy] = allCases

    // Hash and compare by position, not by the name (the raw value).
    public func hash(into hasher: inout Hasher) { hasher.combine(index) }
    public static func == (a: Self, b: Self) -> Bool { a.index == b.index }
}

public enum PolicyVerdict: Sendable, Equatable, Codable {
    /// dasd's hardest no (`Absolutely Must Not Proceed`, e.g. `pushDisallowed`):
    /// nothing, not even an Absolutely Must Proceed, overrides it.
    case absolutelyMustNotProceed
    case mustNotProceed
    case canProceed(Double)
    case absolutelyMustProceed

    /// dasd's words for the verdict, as its logs print them.
    public var dasdName: String {
        switch self {
        case .absolutelyMustNotProceed: "Absolutely Must Not Proceed"
        case .mustNotProceed: "Must Not Proceed"
        case .canProceed: "Can Proceed"
        case .absolutelyMustProceed: "Absolutely Must Proceed"
        }
    }

    /// The score dasd prints beside the verdict.
    public var score: Double {
        switch self {
        case .absolutelyMustNotProceed, .mustNotProceed: 0
        case let .canProceed(s): s
        case .absolutelyMustProceed: 1
        }
    }

    public var blocks: Bool { self == .mustNotProceed || self == .absolutelyMustNotProceed }
}

public struct PolicyOutcome: Sendable, Equatable {
    public var policy: SchedulingPolicy
    public var verdict: PolicyVerdict
    /// When time alone may change this answer.
    public var nextChange: Nanoseconds?
    /// The rationale as a value, when asked for; a plain value, so judging
    /// many outcomes allocates and releases nothing.
    var words: Rationale?
    /// Wall-clock time at t = 0, for the words' moments.
    var wallClockOffset: Nanoseconds

    /// The rationale in words ("" when it was not asked for).
    public var rationale: String { words?.text(wallClockOffset: wallClockOffset) ?? "" }
}

/// What a policy's answer carries beside its verdict: its rationale
/// (`Rationale?`), or nothing on the scheduler's hot path (`NoWords`).
protocol PolicyWords { init(_ why: @autoclosure () -> Rationale) }

struct NoWords: PolicyWords {
    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Scheduler/ (8 of them in this file) cost the engine 23 instructions per event.
    @inline(__always) init(_ why: @autoclosure () -> Rationale) {}
}

extension Optional: PolicyWords where Wrapped == Rationale {
    @inline(__always) init(_ why: @autoclosure () -> Rationale) { self = why() }
}

/// A policy's verdict, when time alone may change it, and its words.
struct PolicyAnswer<Words: PolicyWords> {
    var verdict: PolicyVerdict
    var nextChange: Nanoseconds?
    var words: Words
}

/// What the scheduler is deciding about: a BGTask request or a fetch.
struct Candidate: Sendable {
    enum Kind: Sendable, Equatable, Codable { case appRefresh, processing, fetch }
    var app: AppID
    var kind: Kind
    var earliest: Nanoseconds
    var submittedAt: Nanoseconds
    var requiresNetwork: Bool
    var requiresPower: Bool
    /// What a launch for this candidate is recorded as (rules §11).
    var launchCause: LaunchCause { kind == .fetch ? .fetch : .bgTask }
}

/// What the scheduler's policies read beyond the controller's own state:
/// the moment, the device, and of an app what the process table, the launch
/// policy (rules §11) and the task scheduler say. Read-only; the engine
/// answers it in place (a copy of its device per judgement would cost the hot
/// path), a test answers with a plain value.
protocol SchedulingFacts {
    var now: Nanoseconds { get }
    var wallClockOffset: Nanoseconds { get }
    var device: DeviceState { get }
    /// When the device was last locked (nil while unlocked).
    var lockedSince: Nanoseconds? { get }
    func isForeground(_ app: AppID) -> Bool
    /// One rule of the launch policy, asked as a dasd policy (BackgroundAppRefreshPolicy, FirstUnlockPolicy, ForceQuitPolicy).
    func launchRule(_ rule: LaunchPolicy.Rule, _ app: AppID, cause: LaunchCause) -> LaunchRefusal?
    /// Processing tasks running in the app (ActivityGroupPolicy).
    func processingTasksRunning(_ app: AppID) -> Int
    func bundleIdentifier(_ app: AppID) -> String
}

extension SchedulingFacts {
    /// Wall-clock time (time of day matters to the predictor).
    @inline(__always) func wall(_ t: Nanoseconds) -> Nanoseconds { t + wallClockOffset }
}

extension SchedulerController {
    /// One policy's answer, with its rationale when `detailed` (for
    /// `explain`, and the deciding policy): the scheduler judges without it.
    func evaluate<F: SchedulingFacts>(_ policy: SchedulingPolicy, _ c: Candidate, _ f: F,
                                      detailed: Bool = true) -> PolicyOutcome {
        if detailed {
            let a = answer(policy, c, f, Rationale?.self)
            return PolicyOutcome(policy: policy, verdict: a.verdict, nextChange: a.nextChange, words: a.words,
                                 wallClockOffset: f.wallClockOffset)
        }
        let a = answer(policy, c, f, NoWords.self)
        return PolicyOutcome(policy: policy, verdict: a.verdict, nextChange: a.nextChange, words: nil,
                             wallClockOffset: f.wallClockOffset)
    }

    /// One policy's answer — the one place each policy's rule is written.
    /// Generic over its words: the scheduler's hot path asks for `NoWords`,
    /// and then the answer is three plain values, built without a rationale
    /// (the autoclosure is never called) and dropped without a release.
    @inline(__always)
    func answer<F: SchedulingFacts, Words: PolicyWords>(_ policy: SchedulingPolicy, _ c: Candidate, _ f: F,
                                                      _: Words.Type) -> PolicyAnswer<Words> {
        @inline(__always)
        func out(_ v: PolicyVerdict, _ why: @autoclosure () -> Rationale, next: Nanoseconds? = nil) -> PolicyAnswer<Words> {
            PolicyAnswer(verdict: v, nextChange: next, words: Words(why()))
        }
        let p = settings
        let ai = Int(c.app.index)
        switch policy {
        case .earliestBeginDate:
            if c.kind != .fetch, c.earliest - c.submittedAt > p.farFutureCutoff {
                return out(.mustNotProceed, .earliestTooFar(earliest: c.earliest, cutoff: p.farFutureCutoff))
            }
            if f.now < c.earliest { return out(.mustNotProceed, .earliestNotReached(c.earliest), next: c.earliest) }
            return out(.canProceed(1), .earliestReached(c.earliest))
        case .backgroundAppRefresh:
            // rules §11's rule 5, asked of the launch policy (LaunchPolicy.swift).
            if let refusal = f.launchRule(.backgroundAppRefresh, c.app, cause: c.launchCause) {
                return out(.mustNotProceed, .launchRefused(refusal))
            }
            return out(.canProceed(1), .backgroundAppRefreshOn)
        case .firstUnlock:
            // rules §11, asked of the launch policy (LaunchPolicy.swift).
            if let refusal = f.launchRule(.firstUnlock, c.app, cause: c.launchCause) {
                return out(.mustNotProceed, .launchRefused(refusal))
            }
            return out(.canProceed(1), .unlockedSinceBoot)
        case .forceQuit:
            if let refusal = f.launchRule(.forceQuit, c.app, cause: c.launchCause) {
                return out(.mustNotProceed, .launchRefused(refusal))
            }
            return out(.canProceed(1), .notForceQuit)
        case .lowPowerMode:
            if f.device.lowPowerMode { return out(.mustNotProceed, .lowPowerModeOn) }
            return out(.canProceed(1), .lowPowerModeOff)
        case .batteryLevel:
            if !f.device.charging && f.device.battery < p.criticalBatteryLevel {
                return out(.mustNotProceed, .batteryCritical(level: f.device.battery, critical: p.criticalBatteryLevel))
            }
            let score = f.device.charging ? 1 : Double(f.device.battery) / 100
            return out(.canProceed(score), .battery(f.device.battery))
        case .thermal:
            switch f.device.thermal {
            // dasd's hardest no [O]: `Absolutely Must Not Proceed … [{thermalLevel >= 2}]`
            // (nstrauss/nstrauss.github.io, 2020-08-11-mitigating-mac-enrollment-failures).
            case .serious, .critical: return out(.absolutelyMustNotProceed, .thermal(f.device.thermal))
            case .fair: return out(.canProceed(0.5), .thermal(.fair))
            case .nominal: return out(.canProceed(1), .thermal(.nominal))
            }
        case .chargerPluggedIn:
            if f.device.charging { return out(.canProceed(1), .pluggedIn) }
            if c.requiresPower { return out(.mustNotProceed, .requiresPowerUnplugged) }
            if c.kind == .processing {
                let since = max(c.submittedAt, c.earliest)
                let bestEffort = since + p.processingBestEffort
                if f.now >= bestEffort, let last = apps[ai].usage.lastUse, f.now - last <= p.unusedAppCutoff {
                    return out(.canProceed(1), .processingBestEffort(since: since, after: p.processingBestEffort))
                }
                return out(.canProceed(0), .unplugged, next: bestEffort)
            }
            return out(.canProceed(0), .unplugged)
        case .networkQuality:
            switch f.device.network {
            case .none:
                if c.requiresNetwork { return out(.mustNotProceed, .requiresNetworkNone) }
                return out(.canProceed(0.3), .network(.none))
            case .cellular: return out(.canProceed(0.6), .network(.cellular))
            case .wifi: return out(.canProceed(1), .network(.wifi))
            }
        case .deviceActivity:
            if c.kind == .processing {
                // dasd blocks processing only while the device is in use [O]; once
                // locked it answers Can Proceed, with a low score (0.05) until the
                // device has been idle a while [O] — the threshold then holds the
                // task back, not a Must Not Proceed.
                guard f.device.locked, let lockedSince = f.lockedSince else { return out(.mustNotProceed, .processingWhileActive) }
                let idleAt = lockedSince + p.idleBeforeProcessing
                if f.now < idleAt {
                    return out(.canProceed(p.deviceActivityScoreSoonAfterLock),
                               .processingBeforeIdle(p.idleBeforeProcessing), next: idleAt)
                }
                // Idle: as quiet as the person's past days say the coming hour will be [O].
                let changes = deviceUse.predictionChanges(afterWall: f.wall(f.now)) - f.wallClockOffset
                if let predicted = deviceUse.prediction(atWall: f.wall(f.now)) {
                    return out(.canProceed(max(p.deviceActivityScoreSoonAfterLock, predicted.quiet)),
                               .predictedDeviceUse(usedDays: predicted.usedDays, of: predicted.observed,
                                                   within: p.deviceUseHorizon),
                               next: changes)
                }
                return out(.canProceed(1), .idleSince(lockedSince), next: changes)
            }
            return f.device.locked ? out(.canProceed(1), .deviceActive(false)) : out(.canProceed(0.7), .deviceActive(true))
        case .thunderingHerd:
            if let herd = thunderingHerd(f) { return out(.mustNotProceed, herd.words, next: herd.until) }
            return out(.canProceed(1), .noCrowd)
        case .application:
            if f.isForeground(c.app) { return out(.mustNotProceed, .appInForeground) }
            guard let lastUse = apps[ai].usage.lastUse, let firstUse = apps[ai].usage.firstUse else {
                return out(.mustNotProceed, .neverUsed)
            }
            if f.now - lastUse > p.unusedAppCutoff {
                return out(.mustNotProceed, .unusedSince(lastUse, cutoff: p.unusedAppCutoff))
            }
            if c.kind == .processing { return out(.canProceed(1), .usedThisWeek(lastUse)) }
            let predicted = predictedUse(of: c.app, firstUse: firstUse, f)
            if let predicted, f.now >= predicted - p.refreshLeadTime {
                return out(.canProceed(1), .predictedUse(predicted))
            }
            let staleAt = (apps[ai].lastBackgroundLaunch ?? firstUse) + p.refreshStaleness
            if f.now >= staleAt {
                return out(.canProceed(0.6), .noBackgroundLaunchFor(p.refreshStaleness))
            }
            // On the day of first use there is no past day to predict from;
            // say so rather than "no predicted use" while the habit is still unseen,
            // and look again at midnight, when that day becomes history.
            let learning = predicted == nil && f.wall(f.now) / Time.days(1) == f.wall(firstUse) / Time.days(1)
            let midnight = (f.wall(f.now) / Time.days(1) + 1) * Time.days(1) - (f.wall(f.now) - f.now)
            let next = predicted.map { min($0 - p.refreshLeadTime, staleAt) } ?? (learning ? min(staleAt, midnight) : staleAt)
            return out(.canProceed(0), learning ? .noUsePatternYet : .nextPredictedUse(predicted), next: next)
        case .rateLimit:
            if c.kind == .processing {
                guard let end = apps[ai].lastProcessingEnd else { return out(.canProceed(1), .noProcessingYet) }
                let wait = end.success ? p.spacingProcessing : p.processingRetryDelay
                if f.now < end.time + wait {
                    return out(.mustNotProceed, .processingSpacing(ended: end.time, success: end.success, nextAt: end.time + wait),
                               next: end.time + wait)
                }
                return out(.canProceed(1), .processingEnded(end.time))
            }
            guard let last = apps[ai].lastBackgroundLaunch, let firstUse = apps[ai].usage.firstUse else {
                return out(.canProceed(1), .noRecentBackgroundLaunch)
            }
            let perDay = apps[ai].usage.usesPerDay(todayWall: f.wall(f.now), firstUseWall: f.wall(firstUse))
            var spacing = perDay >= 3 ? p.spacingFrequentApp : perDay >= 1 ? p.spacingDailyApp : p.spacingRareApp
            spacing <<= Int64(min(apps[ai].penalties, p.maxPenaltyDoublings))
            if c.kind == .fetch { spacing = Nanoseconds(Double(spacing) * fetchSpacingFactor(c.app)) }
            if f.now < last + spacing {
                return out(.mustNotProceed, .launchSpacing(last: last, nextAt: last + spacing, perDay: perDay,
                                                           penalties: apps[ai].penalties,
                                                           fetchReputation: c.kind == .fetch
                                                               ? apps[ai].fetchStanding.reputation : nil),
                           next: last + spacing)
            }
            return out(.canProceed(1), .spacingRespected(last))
        case .energyBudget:
            guard c.kind != .processing else { return out(.canProceed(1), .processingOwnBudget) }
            let day = f.wall(f.now) / Time.days(1)
            let used = apps[ai].energy.spent(at: f.now)
            if used >= p.dailyEnergyBudget {
                let nextDay = (day + 1) * Time.days(1) - f.wallClockOffset
                return out(.mustNotProceed, .energySpent(budget: p.dailyEnergyBudget), next: nextDay)
            }
            return out(.canProceed(1 - Double(used) / Double(p.dailyEnergyBudget)),
                       .energyUsed(used, budget: p.dailyEnergyBudget))
        case .cpuUsage:
            // Processing waits while the system is busy [O]; other launches do not.
            guard c.kind == .processing else { return out(.canProceed(1), .cpuNotConsidered) }
            if f.device.cpuLoad > p.maxCPUUsageForProcessing {
                return out(.mustNotProceed, .cpuBusy(required: p.maxCPUUsageForProcessing, observed: f.device.cpuLoad))
            }
            return out(.canProceed(1), .cpuLevel(f.device.cpuLoad))
        case .memoryPressure:
            let a = Self.memoryPressureAnswer(f.device)
            return out(a.verdict, a.words)
        case .activityGroup:
            // A group runs at most `processingGroupLimit` activities at once [O]
            // (TN3163's `currentAvailableLimit == 0`): a second processing task
            // of the app waits for the first to end.
            guard c.kind == .processing else { return out(.canProceed(1), .groupNotLimited) }
            let running = f.processingTasksRunning(c.app)
            if running >= p.processingGroupLimit {
                return out(.mustNotProceed, .groupFull(f.bundleIdentifier(c.app)))
            }
            return out(.canProceed(1), .groupAvailable(p.processingGroupLimit - running))
        case .fileProtection:
            // dasd's launch activities declare their data protection class:
            // `completeUntilFirstUserAuthentication` for pushes [O] (as public
            // reverse-engineered dasd sources build a push launch), data locked
            // until the first unlock after boot. bgx gives BGTasks the same class.
            let a = Self.fileProtectionAnswer(f.device)
            return out(a.verdict, a.words)
        case .dataBudget:
            // Until transfers are simulated, data is counted in launches made
            // over cellular; Wi-Fi is not budgeted.
            guard f.device.network == .cellular else { return out(.canProceed(1), .notCellular) }
            let day = f.wall(f.now) / Time.days(1)
            let used = apps[ai].cellularLaunches.spent(at: f.now)
            if used >= p.dailyCellularLaunches {
                return out(.mustNotProceed, .cellularSpent(used), next: (day + 1) * Time.days(1) - f.wallClockOffset)
            }
            return out(.canProceed(1 - Double(used) / Double(p.dailyCellularLaunches)),
                       .cellularUsed(used, limit: p.dailyCellularLaunches))
        }
    }

    /// The app's next predicted use after now (virtual time), cached per
    /// quarter-hour and usage history: evaluations within one quarter-hour
    /// share the answer.
    func predictedUse<F: SchedulingFacts>(of app: AppID, firstUse: Nanoseconds, _ f: F) -> Nanoseconds? {
        let i = Int(app.index)
        let bin = f.wall(f.now) / UsageHistory.bin
        if let cached = apps[i].predictionCache, cached.bin == bin, cached.uses == apps[i].usage.version {
            return cached.predicted
        }
        return apps[i].usage.predictedUse(afterWall: f.wall(f.now), firstUseWall: f.wall(firstUse),
                                          threshold: settings.usageProbabilityThreshold).map { $0 - f.wallClockOffset }
    }

    /// All policies for one candidate and the decision they add up to —
    /// without words (`decision(_:_:_:)` adds the deciding policy's when
    /// someone will read them) and without allocating. Every policy is
    /// asked even after a veto: the mask (for `explain`'s holds) and the
    /// next change (the scheduler's wake) need every answer.
    @inline(__always) func decide<F: SchedulingFacts>(_ c: Candidate, _ f: F) -> Judgement {
        let processing = c.kind == .processing
        let weights = processing ? processingWeights : refreshWeights
        var total = 0.0, weighted = 0.0
        // Policies, not their outcomes, are kept: the deciding one is asked for its rationale at the end.
        var mustNot: SchedulingPolicy?
        var mask: UInt32 = 0
        var must = false
        var next: Nanoseconds?
        var bestGain = 0.0, worstShortfall = 0.0
        var best: SchedulingPolicy?, worst: SchedulingPolicy?
        for policy in SchedulingPolicy.ordered {
            let o = answer(policy, c, f, NoWords.self)
            if let n = o.nextChange, n > f.now { next = min(next ?? n, n) }
            switch o.verdict {
            case .mustNotProceed, .absolutelyMustNotProceed:
                mask |= 1 << UInt32(policy.index)
                if mustNot == nil { mustNot = policy }
            case .absolutelyMustProceed: must = true
            case let .canProceed(score):
                let w = weights[policy.index]
                total += w
                weighted += w * score
                if w * score > bestGain { (bestGain, best) = (w * score, policy) }
                if w * (1 - score) > worstShortfall { (worstShortfall, worst) = (w * (1 - score), policy) }
            }
        }
        let score = total > 0 ? weighted / total : 1
        let threshold = thresholdScore(c, f)
        var j = Judgement(run: false, score: score, threshold: threshold, key: .waits(nil), nextChange: next,
                          mustNotMask: mask, weightedSum: weighted, totalWeight: total)
        if let m = mustNot { j.key = .mustNot(m) }
        else if must { (j.run, j.key) = (true, .absolutelyMust) }
        else if score >= threshold { (j.run, j.key) = (true, .ran(best)) }
        else {
            j.key = .waits(worst)
            // The threshold falls as the request waits: wake when it reaches this score.
            if let t = thresholdReaches(score, c, f), t > f.now { j.nextChange = min(j.nextChange ?? t, t) }
        }
        return j
    }

    /// The decision as a value, with the deciding policy's rationale (asked
    /// again, now with words): the trace and the history keep it and put it
    /// into words only when they are read. Ask before anything changes.
    func decision<F: SchedulingFacts>(_ j: Judgement, _ c: Candidate, _ f: F) -> DecisionWords {
        DecisionWords(key: j.key, score: j.score, threshold: j.threshold,
                      rationale: j.key.policy.flatMap { answer($0, c, f, Rationale?.self).words })
    }

    /// dasd's `ThresholdScore`: the score a candidate must reach. It moves
    /// [O] (logged 0.9098 for a processing task whose CurrentScore 0.8396 did
    /// not run): bgx starts a processing request at `processingThresholdStart`
    /// and lowers it to `processingThreshold` over the best-effort window, so
    /// a request that has waited long runs on a weaker moment. Refresh keeps
    /// one threshold.
    ///
    /// dasd sets the threshold from the best moment its prediction of device
    /// use promises in the request's window and relaxes it only after that
    /// moment has passed [O]: so a request waits in the evening for the night,
    /// however long it has been pending. bgx holds `processingThresholdStart`
    /// until the quietest predicted quarter-hour at or after the request became
    /// eligible, then lowers it evenly to the window's end (dasd: in ten
    /// steps). Without a prediction the best moment is the start.
    func thresholdScore<F: SchedulingFacts>(_ c: Candidate, _ f: F) -> Double {
        let p = settings
        guard c.kind == .processing else { return p.appRefreshThreshold }
        let (from, end) = thresholdRelaxation(c, f)
        let waited = min(1, Double(max(0, f.now - from)) / Double(max(1, end - from)))
        return p.processingThresholdStart - (p.processingThresholdStart - p.processingThreshold) * waited
    }

    /// When a processing request's threshold starts to fall (its best predicted
    /// moment) and when it reaches `processingThreshold` (the best-effort window's end).
    /// The best moment is looked for from when the request may first run: its
    /// earliest date, and the spacing after the app's last processing task.
    func thresholdRelaxation<F: SchedulingFacts>(_ c: Candidate, _ f: F) -> (from: Nanoseconds, end: Nanoseconds) {
        let p = settings
        let since = max(c.submittedAt, c.earliest)
        let end = since + p.processingBestEffort
        var eligible = since
        if let last = apps[Int(c.app.index)].lastProcessingEnd {
            eligible = max(eligible, last.time + (last.success ? p.spacingProcessing : p.processingRetryDelay))
        }
        let weights = processingWeights
        let best = deviceUse.bestMoment(atOrAfterWall: f.wall(eligible), floor: p.deviceActivityScoreSoonAfterLock,
                                                  deviceActivityWeight: weights[SchedulingPolicy.deviceActivity.index],
                                                  chargerWeight: weights[SchedulingPolicy.chargerPluggedIn.index])
            .map { $0 - f.wallClockOffset } ?? since
        return (min(best, end), end)
    }

    /// When `thresholdScore(c)` will have fallen to `score` (nil if it never will).
    func thresholdReaches<F: SchedulingFacts>(_ score: Double, _ c: Candidate, _ f: F) -> Nanoseconds? {
        let p = settings
        guard c.kind == .processing, p.processingThresholdStart > p.processingThreshold,
              score >= p.processingThreshold else { return nil }
        let (from, end) = thresholdRelaxation(c, f)
        let fraction = (p.processingThresholdStart - score) / (p.processingThresholdStart - p.processingThreshold)
        // A second late, so that rounding never leaves the threshold a hair above the score.
        return from + Nanoseconds((fraction * Double(end - from)).rounded(.up)) + Time.seconds(1)
    }

    /// ThunderingHerdPolicy [O]: after a trigger event (`ThunderingHerd`: a
    /// boot, or the end of 4 hours locked, unplugged or offline) background
    /// launches wait — every one for 300 s (`timeSinceThunderingHerdTriggerEvent
    /// < 300`), and for 900 s while the person goes on using the device
    /// (`deviceInUse == 1 AND … < 900`; locking it ends that). A hard block.
    func thunderingHerd<F: SchedulingFacts>(_ f: F) -> (words: Rationale, until: Nanoseconds)? {
        guard let at = herd.at, let reason = herd.reason else { return nil }
        let p = settings
        if f.now - at < p.thunderingHerdBootWindow {
            return (.herdAfterTrigger(window: p.thunderingHerdBootWindow, reason), at + p.thunderingHerdBootWindow)
        }
        if herd.waitingForInactivity, !f.device.locked, f.now - at < p.thunderingHerdWindow {
            return (.herdWhileInUse(window: p.thunderingHerdWindow, reason), at + p.thunderingHerdWindow)
        }
        return nil
    }

    /// MemoryPressurePolicy [O], for tasks and pushes alike: no background
    /// launch while the camera is in use (`cameraIsActive == 1`) or memory is
    /// critically short; 0.5 at `warning`.
    @inline(__always) static func memoryPressureAnswer(_ device: DeviceState) -> (verdict: PolicyVerdict, words: Rationale) {
        if device.cameraActive { return (.mustNotProceed, .cameraActive) }
        if device.memoryPressure == .critical { return (.mustNotProceed, .memoryCritical) }
        return (device.memoryPressure == .warning ? .canProceed(0.5) : .canProceed(1), .memoryPressure(device.memoryPressure))
    }

    /// FileProtectionPolicy [O], for tasks and pushes alike: launch
    /// activities' data (`completeUntilFirstUserAuthentication`) is locked
    /// until the first unlock after a boot.
    @inline(__always) static func fileProtectionAnswer(_ device: DeviceState) -> (verdict: PolicyVerdict, words: Rationale) {
        device.unlockedSinceBoot ? (.canProceed(1), .protectedDataAvailable) : (.mustNotProceed, .protectedDataLocked)
    }
}
