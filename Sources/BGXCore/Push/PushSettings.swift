/// Every number of rules §7 (push) and the VoIP part of rules §4, with its
/// source tag. Part of `PolicyProfile`.
public struct PushSettings: Sendable, Equatable, Codable {
    // MARK: Silent (background) pushes, rules §7
    /// `content-available` pushes wake apps: iOS 7 and later [D].
    public var silentPushSupported = true
    /// More than 2–3 background pushes an hour are throttled [D]; this many
    /// are delivered within any hour, the rest held.
    public var silentPushesPerHour = 3
    /// The completion handler must be called within 30 s [D], or the app is
    /// terminated (`completionHandlerTimeout`).
    public var completionTimeout = Time.seconds(30)
    /// In practice [A][O]: a budget of background pushes per app that resets
    /// every 24 h. nil: no daily budget. (The number is a guess: Apple gives
    /// none, only "up to several per hour across all apps".)
    public var silentPushDailyBudget: Int? = 24
    /// In practice [A][O]: none processed at or below this battery level
    /// (unless charging). nil: the battery does not matter.
    public var silentPushMinimumBattery: Int? = 20
    /// In practice [A][O]: none processed in Low Power Mode.
    public var silentPushPausedInLowPowerMode = true
    /// In practice [A][O]: none for apps not opened for this long (and none
    /// for an app never opened). nil: usage does not matter.
    public var silentPushUnusedAppCutoff: Nanoseconds? = Time.days(7)

    /// dasd (iOS 11 and later [O]) judges each background push as an
    /// activity `com.apple.pushLaunch.<bundle>` with its own policies
    /// (ApplicationPolicy, ThunderingHerdPolicy, MemoryPressurePolicy,
    /// DeviceActivityPolicy), weights as logged (`PushJudgement.swift`).
    public var judgedByDasd = true
    public var dasdWeights: [SchedulingPolicy: Double] = [
        .application: 50,      // ApplicationPolicy 50 (e-mission/e-mission-phone#290; ably/ably-flutter README)
        .deviceActivity: 5,    // DeviceActivityPolicy 5 (ably/ably-flutter README)
        .thunderingHerd: 1,    // ThunderingHerdPolicy 1 (ably/ably-flutter README; lionheart/openradar-mirror#20555)
        .memoryPressure: 5,    // MemoryPressurePolicy 5 (ably/ably-flutter README)
    ]
    /// A push Can Proceed on every policy still needs this final score (bgx's
    /// choice: the one logged push that ran scored 0.96).
    public var dasdThreshold = 0.5
    /// DeviceActivityPolicy's score for a push while the device is in use
    /// (0.25 logged, ably/ably-flutter README) and while it is locked (the
    /// policy's floor, 0.05 — bgx's reading: dasd favours launches when use is likely).
    public var deviceActivityScoreInUse = 0.25
    public var deviceActivityScoreLocked = 0.05
    /// After a restart, background pushes are refused until the person opens
    /// the app: `Absolutely Must Not Proceed … [pushDisallowed]` [O] (Apple
    /// Developer Forums thread 835645, iOS 18; reported on iOS 14–17). Apple's
    /// older documentation says a restart re-enables launches [D]: older profiles follow it.
    public var pushDisallowedAfterReboot = true

    // MARK: VoIP, rules §4
    /// PushKit VoIP pushes: iOS 8 and later [D].
    public var pushKitAvailable = true
    /// iOS 13+: a VoIP push whose handler returns without reporting a call
    /// to CallKit terminates the app (0xbaadca11) [D].
    public var voipMustReportCall = true
    /// After this many such failures the system stops delivering VoIP pushes
    /// to the app [D] ("repeated failures"; the number is observed, 3 [O]).
    public var voipReportFailureLimit = 3
    /// `setKeepAliveTimeout` refuses shorter intervals: 600 s [D].
    public var minimumKeepAliveTimeout = Time.seconds(600)
    /// Apps with the `voip` mode are relaunched at boot [S] (after the first
    /// unlock when there is a passcode, rules §11).
    public var relaunchVoIPAppsAtBoot = true

    public init() {}

    /// iOS 7–12: VoIP pushes need no CallKit report; the [A][O] practice of
    /// daily budgets, battery and Low Power Mode is not assumed.
    public static let ios12: PushSettings = {
        var p = PushSettings()
        p.voipMustReportCall = false
        p.silentPushDailyBudget = nil
        p.silentPushMinimumBattery = nil
        p.silentPushPausedInLowPowerMode = false
        p.silentPushUnusedAppCutoff = nil
        p.pushDisallowedAfterReboot = false
        return p
    }()

    /// iOS 4–6: no silent pushes, no PushKit; the legacy VoIP socket and
    /// keep-alive handler only.
    public static let ios6: PushSettings = {
        var p = PushSettings.ios12
        p.silentPushSupported = false
        p.pushKitAvailable = false
        p.judgedByDasd = false  // dasd judges pushes from iOS 11 [O]
        return p
    }()
}
