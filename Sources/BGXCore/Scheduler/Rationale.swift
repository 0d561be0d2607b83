/// rules §6: a scheduling policy's rationale as a value — the numbers it was
/// decided on — put into words only when someone reads it (a trace line,
/// `explain`, the history). Deciding never formats text: a simulated week
/// makes hundreds of decisions and building their words was a quarter of it.
enum Rationale: Sendable, Equatable, Codable {
    // EarliestBeginDatePolicy
    case earliestTooFar(earliest: Nanoseconds, cutoff: Nanoseconds)
    case earliestNotReached(Nanoseconds)
    case earliestReached(Nanoseconds)
    // BackgroundAppRefreshPolicy
    case backgroundAppRefreshOn
    // FirstUnlockPolicy, ForceQuitPolicy (the launch policy's words, rules §11)
    case launchRefused(LaunchRefusal)
    case unlockedSinceBoot, notForceQuit
    // LowPowerModePolicy
    case lowPowerModeOn, lowPowerModeOff
    // BatteryLevelPolicy
    case batteryCritical(level: Int, critical: Int)
    case battery(Int)
    // ThermalPolicy
    case thermal(DeviceState.Thermal)
    // ChargerPluggedInPolicy
    case pluggedIn, requiresPowerUnplugged, unplugged
    case processingBestEffort(since: Nanoseconds, after: Nanoseconds)
    // NetworkQualityPolicy
    case requiresNetworkNone
    case network(DeviceState.Network)
    // DeviceActivityPolicy
    case processingWhileActive
    case processingBeforeIdle(Nanoseconds)
    case idleSince(Nanoseconds)
    case predictedDeviceUse(usedDays: Int, of: Int, within: Nanoseconds)
    case deviceActive(Bool)
    // ThunderingHerdPolicy
    case herdAfterTrigger(window: Nanoseconds, ThunderingHerd.Trigger)
    case herdWhileInUse(window: Nanoseconds, ThunderingHerd.Trigger)
    case noCrowd
    // ApplicationPolicy
    case appInForeground, neverUsed
    case unusedSince(Nanoseconds, cutoff: Nanoseconds)
    case usedThisWeek(Nanoseconds)
    case predictedUse(Nanoseconds)
    case noBackgroundLaunchFor(Nanoseconds)
    case nextPredictedUse(Nanoseconds?)
    /// No whole day of use seen yet: the predictor learns from past days only.
    case noUsePatternYet
    // ActivityRateLimitPolicy
    case noProcessingYet
    case processingSpacing(ended: Nanoseconds, success: Bool, nextAt: Nanoseconds)
    case processingEnded(Nanoseconds)
    case noRecentBackgroundLaunch
    case launchSpacing(last: Nanoseconds, nextAt: Nanoseconds, perDay: Double, penalties: Int, fetchReputation: Double?)
    case spacingRespected(Nanoseconds)
    // EnergyBudgetPolicy
    case processingOwnBudget
    case energySpent(budget: Nanoseconds)
    case energyUsed(Nanoseconds, budget: Nanoseconds)
    // CPUUsagePolicy
    case cpuNotConsidered
    case cpuBusy(required: Int, observed: Int)
    case cpuLevel(Int)
    // MemoryPressurePolicy
    case cameraActive
    case memoryCritical
    case memoryPressure(DeviceState.MemoryPressure)
    // ActivityGroupPolicy
    case groupNotLimited
    case groupFull(String)
    case groupAvailable(Int)
    // FileProtectionPolicy
    case protectedDataLocked, protectedDataAvailable
    // ApplicationPolicy for pushes (dasd's `com.apple.pushLaunch.<bundle>`)
    case appIsForeground
    case pushDisallowed
    case pushAllowed
    // DataBudgetPolicy
    case notCellular
    case cellularSpent(Int)
    case cellularUsed(Int, limit: Int)

    /// The words, with moments on the scenario's wall clock (`wallClockOffset` at t = 0).
    func text(wallClockOffset: Nanoseconds) -> String {
        func clock(_ t: Nanoseconds) -> String { Time.wallClock(t + wallClockOffset) }
        let describe = Time.describe
        switch self {
        case let .earliestTooFar(earliest, cutoff):
            return "earliestBeginDate \(clock(earliest)) is more than \(describe(cutoff)) after submission; it may never run"
        case let .earliestNotReached(t): return "[{earliest begin \(clock(t)) not reached}]"
        case let .earliestReached(t): return "earliest begin \(clock(t)) reached"
        case .backgroundAppRefreshOn: return "Background App Refresh is on"
        case let .launchRefused(refusal): return refusal.reason
        case .unlockedSinceBoot: return "unlocked since boot"
        case .notForceQuit: return "not force-quit"
        case .lowPowerModeOn: return "Low Power Mode pauses discretionary background work"
        case .lowPowerModeOff: return "Low Power Mode off"
        case let .batteryCritical(level, critical):
            return "[{batteryLevel == \(level) < \(critical)}] critically low: essential work only"
        case let .battery(level): return "[{batteryLevel == \(level)}]"
        case let .thermal(state): return "[{thermalLevel == \(state.rawValue)}]"
        case .pluggedIn: return "[{pluggedIn == 1}]"
        case .requiresPowerUnplugged: return "[{requiresExternalPower == 1 AND pluggedIn == 0}]"
        case .unplugged: return "[{pluggedIn == 0}]"
        case let .processingBestEffort(since, after):
            return "best effort: pending since \(clock(since)), over \(describe(after)), and the app was used this week"
        case .requiresNetworkNone: return "[{requiresNetworkConnectivity == 1 AND network == none}]"
        case let .network(network): return "[{network == \(network.rawValue)}]"
        case .processingWhileActive: return "[{launchType == PROCESSING AND deviceActive == 1}]"
        case let .processingBeforeIdle(idle): return "[{launchType == PROCESSING AND idle < \(describe(idle))}]"
        case let .idleSince(t): return "device idle since \(clock(t))"
        case let .predictedDeviceUse(used, observed, within):
            return "the person used the device in the \(describe(within)) after this time of day on \(used) of the past \(observed) days"
        case let .deviceActive(active): return active ? "[{deviceActive == 1}]" : "[{deviceActive == 0}]"
        case let .herdAfterTrigger(window, reason):
            return "[{timeSinceThunderingHerdTriggerEvent < \(window / Time.nanosecondsPerSecond)}\(Self.herdReason(reason))]"
        case let .herdWhileInUse(window, reason):
            return "[{deviceInUse == 1 AND timeSinceThunderingHerdTriggerEvent < \(window / Time.nanosecondsPerSecond)}"
                + "\(Self.herdReason(reason))]"
        case .cpuNotConsidered: return "CPU use holds back processing only"
        case let .cpuBusy(required, observed):
            return "[{[Max allowed CPU Usage level]: Required:\(required).00, Observed:\(observed).00},]"
        case let .cpuLevel(level): return "[{cpuUsageLevel == \(level)}]"
        case .cameraActive: return "[{cameraIsActive == 1}]"
        case .memoryCritical: return "[{memoryPressure == critical}]"
        case let .memoryPressure(level): return "[{memoryPressure == \(level.rawValue)}]"
        case .groupNotLimited: return "no concurrency limit for this activity"
        case let .groupFull(group): return "[{\"\(group)\".currentAvailableLimit == 0}]"
        case let .groupAvailable(n): return "[{currentAvailableLimit == \(n)}]"
        case .protectedDataLocked:
            return "[{fileProtection == completeUntilFirstUserAuthentication AND unlockedSinceBoot == 0}]"
        case .protectedDataAvailable: return "[{unlockedSinceBoot == 1}]"
        case .appIsForeground: return "[{[appIsForeground]: Required:1.00, Observed:1.00},]"
        case .pushDisallowed: return "[{[pushDisallowed]: Required:0.00, Observed:1.00},]"
        case .pushAllowed: return "[{[pushDisallowed]: Required:0.00, Observed:0.00},]"
        case .noCrowd: return "no thundering herd"
        case .appInForeground: return "the app is in the foreground"
        case .neverUsed: return "the app has never been used in the foreground"
        case let .unusedSince(t, cutoff): return "the app has not been used since \(clock(t)) (over \(describe(cutoff)))"
        case let .usedThisWeek(t): return "the app was used this week (\(clock(t)))"
        case let .predictedUse(t): return "predicted use at \(clock(t))"
        case let .noBackgroundLaunchFor(d): return "a refresh is due: no background launch for \(describe(d))"
        case let .nextPredictedUse(t): return t.map { "next predicted use \(clock($0))" } ?? "no predicted use in the next two days"
        case .noUsePatternYet: return "no use pattern yet: use is predicted from the days seen so far, and none has ended"
        case .noProcessingYet: return "no processing task completed yet"
        case let .processingSpacing(ended, success, nextAt):
            return (success ? "a processing task completed at " : "a processing task failed at ")
                + "\(clock(ended)); the next may run from \(clock(nextAt))"
        case let .processingEnded(t): return "last processing task ended \(clock(t))"
        case .noRecentBackgroundLaunch: return "no recent background launch"
        case let .launchSpacing(last, nextAt, perDay, penalties, reputation):
            return "last background launch \(clock(last)); next allowed \(clock(nextAt)) (app used "
                + "\(String(Double(Int(perDay * 10)) / 10))×/day"
                + (penalties > 0 ? ", \(penalties) task(s) left uncompleted" : "")
                + (reputation.map { $0 < 1 ? ", fetch reputation \(Engine.twoDecimals($0)): spaced "
                    + "\(Engine.twoDecimals(1 / $0))× further apart" : ", fetch reputation 1" } ?? "") + ")"
        case let .spacingRespected(t): return "spacing since \(clock(t)) respected"
        case .processingOwnBudget: return "processing has its own budget"
        case let .energySpent(budget): return "daily energy budget of \(describe(budget)) spent"
        case let .energyUsed(used, budget): return "\(describe(used)) of \(describe(budget)) used today"
        case .notCellular: return "not on cellular"
        case let .cellularSpent(used):
            return "daily cellular data budget spent (\(used) background launches on cellular today)"
        case let .cellularUsed(used, limit): return "\(used) of \(limit) cellular background launches used today"
        }
    }

    /// dasd's second condition naming the trigger (`recentTriggerReason`); none for a restart.
    static func herdReason(_ reason: ThunderingHerd.Trigger) -> String {
        reason.identifier.map { ", {recentTriggerReason == \($0)}" } ?? ""
    }
}

/// A scheduling decision — run, wait, or refused — as a value, put into
/// words (`reason`) when a trace line, `explain` or the history is read.
struct DecisionWords: Sendable, Equatable, Codable {
    var key: DecisionKey
    var score: Double
    var threshold: Double
    /// The rationale of the deciding policy (`key.policy`).
    var rationale: Rationale?

    func text(wallClockOffset: Nanoseconds) -> String {
        let words = key.policy.map { p in "\(p.rawValue): " + (rationale?.text(wallClockOffset: wallClockOffset) ?? "") }
        switch key {
        case .absolutelyMust: return "absolutely must proceed"
        case let .launchRefused(refusal): return refusal.reason
        case .mustNot: return words ?? ""
        case .ran: return "score \(Engine.twoDecimals(score)) ≥ \(Engine.rounded(threshold))" + (words.map { " — " + $0 } ?? "")
        case .waits: return "score \(Engine.twoDecimals(score)) < \(Engine.rounded(threshold))" + (words.map { " — " + $0 } ?? "")
        }
    }
}

extension DecisionWords {
    /// dasd's `CurrentScore`, `ThresholdScore` and `DecisionToRun`, for a decision a score made.
    var scores: (current: Double, threshold: Double, run: Bool)? {
        switch key {
        case .ran: (score, threshold, true)
        case .waits: (score, threshold, false)
        case .mustNot, .absolutelyMust, .launchRefused: nil
        }
    }
}
