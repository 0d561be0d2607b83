/// The numbers behind the scheduler's judgement (rules §5, §6). Every one can
/// be changed in a profile; each carries its source tag (docs/rules.md).
public struct SchedulerSettings: Sendable, Equatable, Codable {
    /// `BGAppRefreshTask`: up to 30 s per launch [S].
    public var appRefreshBudget: Nanoseconds = Time.seconds(30)
    /// `BGProcessingTask`: minutes; `backgroundTimeRemaining` ≈ 300 s observed [O].
    public var processingBudget: Nanoseconds = Time.seconds(300)
    /// Expiration handlers run this long before a task's time ends [D] ("shortly before").
    public var taskExpirationLeadTime: Nanoseconds = Time.seconds(5)
    /// At most 1 app-refresh and 10 processing requests pending per app [D].
    public var maxPendingAppRefresh = 1
    public var maxPendingProcessing = 10

    /// dasd's policy weights, as seen in device logs [O] (rules §6). Each
    /// number's source is beside it; the logs are kept with their sources in
    /// Calibration/dasd (DasdCalibrationTests holds bgx to them).
    public var weights: [SchedulingPolicy: Double] = [
        // ApplicationPolicy 50 for pushes (ably/ably-flutter README; e-mission/e-mission-phone#290),
        // 25 for in-app CloudKit activities (Apple TN3163; WWDC22 10119). 50, as logged for launches.
        .application: 50,
        // DeviceActivityPolicy: 5 in iOS logs (cocoa-mhlw/cocoa#644, processing; ably/ably-flutter
        // README, pushes — the push judgement uses 5), 20 in macOS logs (JohnCoates/Aerial#1190,
        // status-im/status-legacy#7582), 2 for TN3163's in-app activity. Not adopted: with 5 the
        // calibration set's final agreement falls from 17/18 to 16/18 (macos-cooled-down, plugged in
        // and cooled, falls below its threshold) and the deciding policy from 17/18 to 15/18 (the
        // tn3163 group-limit cases' earlier runs move) — bgx keeps 10, between iOS's and macOS's.
        .deviceActivity: 10,
        .thunderingHerd: 1,      // ThunderingHerdPolicy 1 (ably/ably-flutter README; lionheart/openradar-mirror#20555)
        .networkQuality: 8,      // NetworkQualityPolicy 8.4 (nstrauss.github.io 2020-08-11), 11.4 (iabem97/topanga#22)
        .batteryLevel: 1,        // BatteryLevelPolicy 1 (nstrauss.github.io 2020-08-11)
        .thermal: 5,             // ThermalPolicy 5 (nstrauss.github.io 2020-08-11)
        // ChargerPluggedInPolicy 20, Must Not Proceed unplugged (status-im/status-legacy#7582, macOS).
        // Issue reports of 0.5 unplugged at weight 10 were not adopted: with processing at 10 and 0.5
        // unplugged, final agreement falls to 16/18 (macos-cooled-down below its threshold).
        .chargerPluggedIn: 20,
        .rateLimit: 1,           // ActivityRateLimitPolicy 1 (Apple TN3163)
        .energyBudget: 2,        // EnergyBudgetPolicy (weight not in the logs; bgx's choice)
        .cpuUsage: 5,            // CPUUsagePolicy 5 (cocoa-mhlw/cocoa#644, bgProcessing)
        .memoryPressure: 5,      // MemoryPressurePolicy 5 (ably/ably-flutter README, pushLaunch; nstrauss.github.io)
        .activityGroup: 0.5,     // ActivityGroupPolicy 0.5 (Apple TN3163)
    ]
    /// App refresh and fetch weigh power less: they are short and run by day [O].
    public var refreshWeightOverrides: [SchedulingPolicy: Double] = [.chargerPluggedIn: 5]
    /// ApplicationPolicy gates processing (an unused app's request: Must Not
    /// Proceed) but adds no score: with its 50 in the sum a task would run
    /// right after lock, where the logs show it held below the threshold
    /// (CurrentScore 0.84 < ThresholdScore 0.91, issue 19's log) — bgx's choice.
    public var processingWeightOverrides: [SchedulingPolicy: Double] = [.application: 0]
    // DataBudgetPolicy has no weight: it only gates (Must Not Proceed when spent).
    /// A candidate runs when Σ weight·score / Σ weight reaches this [O].
    public var appRefreshThreshold = 0.5
    /// Processing's threshold moves [O]: from `processingThresholdStart`
    /// (logged ThresholdScore 0.9098) down to `processingThreshold` once the
    /// request has waited the best-effort window (see `thresholdScore`).
    public var processingThreshold = 0.8
    public var processingThresholdStart = 0.91

    /// Below this battery level, unplugged, only essential work runs [S][D].
    public var criticalBatteryLevel = 20
    /// Processing waits until the device has been locked this long ("idle") [O].
    public var idleBeforeProcessing: Nanoseconds = Time.minutes(10)
    /// After a thundering-herd trigger, while the device is in use, background work waits this long [O]
    /// (`deviceInUse == 1 AND timeSinceThunderingHerdTriggerEvent < 900`, ably/ably-flutter README).
    public var thunderingHerdWindow: Nanoseconds = Time.seconds(900)
    /// After a thundering-herd trigger (a boot among them) every background launch waits this long [O]
    /// (`timeSinceThunderingHerdTriggerEvent < 300`, lionheart/openradar-mirror#20555).
    public var thunderingHerdBootWindow: Nanoseconds = Time.seconds(300)
    /// The end of a state held this long is a thundering-herd trigger [O]: an unlock after the
    /// device was locked, plugging in after it was unplugged, a network after none (dasd's
    /// `lengthyLock`, `lengthyUnplug`, `lengthyNoNetwork`: 14,400 s in the previous state).
    public var thunderingHerdLengthyState: Nanoseconds = Time.hours(4)
    /// DeviceActivityPolicy's score for processing while locked but not yet
    /// idle, and its floor when use is predicted: Can Proceed, 0.05 [O] (issue 19's log).
    public var deviceActivityScoreSoonAfterLock = 0.05
    /// CPUUsagePolicy: processing waits while CPU use is above this percentage [O]
    /// (`[Max allowed CPU Usage level]: Required:50.00, Observed:90.00`, cocoa-mhlw/cocoa#644).
    public var maxCPUUsageForProcessing = 50
    /// ActivityGroupPolicy: processing activities of one app that may run at once [O]
    /// (`currentAvailableLimit == 0` holds the next, Apple TN3163). 1 is bgx's reading.
    public var processingGroupLimit = 1

    /// Refresh lands this long before the predicted use [S] ("launch shortly before").
    public var refreshLeadTime: Nanoseconds = Time.minutes(15)
    /// A quarter-hour counts as "predicted use" when the app was used then on this share of days.
    public var usageProbabilityThreshold = 0.3
    /// DeviceActivityPolicy scores processing by how likely the person is to use the
    /// device within this long of now, by quarter-hour of the day over past days [O].
    public var deviceUseHorizon: Nanoseconds = Time.hours(1)
    /// How many past days the usage predictor learns from.
    public var usageHistoryDays = 14
    /// Apps not used in front for this long get no background time [S][D][O].
    public var unusedAppCutoff: Nanoseconds = Time.days(7)
    /// A used app that has had no refresh for this long gets one even off-prediction [O].
    public var refreshStaleness: Nanoseconds = Time.hours(8)
    /// Earliest dates further than this from submission may never run [S].
    public var farFutureCutoff: Nanoseconds = Time.days(7)
    /// Processing: best effort within two days if the app was used in the past week [D].
    public var processingBestEffort: Nanoseconds = Time.days(2)

    /// Minimum spacing between background launches of one app, by how often
    /// the person uses it: rarely used apps run rarely [S][O].
    public var spacingFrequentApp: Nanoseconds = Time.hours(1)     // ≥ 3 uses a day
    public var spacingDailyApp: Nanoseconds = Time.hours(3)        // ≥ 1 use a day
    public var spacingRareApp: Nanoseconds = Time.hours(12)        // fewer
    /// After a processing task completes, the app's next one waits this long:
    /// processing typically runs once a night [O].
    public var spacingProcessing: Nanoseconds = Time.hours(12)
    /// After a processing run that failed, expired or was killed, a retry
    /// waits this long (bgx's choice; it also stops a request resubmitted by
    /// a failing handler from restarting at the same instant forever).
    public var processingRetryDelay: Nanoseconds = Time.minutes(10)
    /// Each task left uncompleted doubles the spacing, up to 2^this [S][D].
    public var maxPenaltyDoublings = 4

    /// Background launches an app may make over cellular per day: the data
    /// budget, counted in launches until transfers are simulated (bgx's choice).
    public var dailyCellularLaunches = 6
    /// Background-task seconds an app may use per day for refresh and fetch [O].
    public var dailyEnergyBudget: Nanoseconds = Time.minutes(10)

    /// Legacy background fetch: the completion handler must be called within 30 s [S][D].
    public var fetchTimeout: Nanoseconds = Time.seconds(30)
    /// Fetch reputation (rules §6 [D][S]: fast, honest fetchers get more time;
    /// slow ones and ones claiming data they did not fetch get less). The
    /// spacing between an app's fetches is divided by its reputation; the
    /// numbers are bgx's choice — Apple documents the direction, not the size.
    public var fetchReputationReward = 0.1
    public var fetchReputationSlowFactor = 0.8
    public var fetchReputationDishonestFactor = 0.7
    public var fetchReputationTimeoutFactor = 0.5
    /// A fetch moving more than this is large, judged like a slow one (bgx's
    /// choice: Apple asks for "small amounts of content" without a number).
    public var fetchLargeBytes: Int64 = 1_000_000
    /// The lowest reputation: fetches at most 20× further apart.
    public var fetchReputationFloor = 0.05
    /// `UIApplicationBackgroundFetchIntervalMinimum` as the system applies it [O].
    public var minimumFetchInterval: Nanoseconds = Time.minutes(15)

    /// CPU monitor: a background app above 80 % CPU over 60 s is killed [O].
    public var cpuLimitFraction = 0.8
    public var cpuLimitWindow: Nanoseconds = Time.seconds(60)

    public init() {}

    public func weight(_ policy: SchedulingPolicy, processing: Bool) -> Double {
        (processing ? processingWeightOverrides[policy] : refreshWeightOverrides[policy]) ?? weights[policy] ?? 0
    }

    /// The weights as tables indexed by `SchedulingPolicy.index`, for the hot path.
    func weightTable(processing: Bool) -> [Double] {
        SchedulingPolicy.allCases.map { weight($0, processing: processing) }
    }
}
