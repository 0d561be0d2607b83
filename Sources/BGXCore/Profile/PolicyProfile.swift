/// Every number the system decides by. A profile is data, not a code path:
/// the same engine runs all of them. Source tags are docs/rules.md's:
/// [D] Apple documentation, [A] Apple staff, [O] observed, [S] seed documents.
public struct PolicyProfile: Sendable, Equatable, Codable {
    public var name: String

    // MARK: rules §2 — finite-length background tasks
    /// Background time granted after entering the background while a task is
    /// open. modern ~30 s [A], ios12 180 s [O], ios6 600 s [O].
    public var backgroundTaskBudget: Nanoseconds
    /// The expiration handlers run this long before the budget ends [D] ("shortly before").
    public var expirationLeadTime: Nanoseconds
    /// A task created this long before the app enters the background earns
    /// iOS's "at risk of termination" warning [O] (iOS 13+ console message).
    public var staleBackgroundTaskWarningAge: Nanoseconds?

    // MARK: rules §1 — watchdogs (code 0x8badf00d)
    /// Launch (scene-create) allowance: ~20 s [D example 19.97 s].
    public var launchWatchdog: Nanoseconds
    /// `didEnterBackground` must return within ~5 s [D].
    public var didEnterBackgroundWatchdog: Nanoseconds
    /// `willTerminate` must return within ~5 s [D][S].
    public var willTerminateWatchdog: Nanoseconds
    /// Resume / scene-update (willEnterForeground, didBecomeActive,
    /// willResignActive): 10 s [O] (crash logs: "scene-update watchdog
    /// transgression … allowance of 10.00 seconds").
    public var sceneUpdateWatchdog: Nanoseconds

    // MARK: rules §9 — local notifications
    public var notifications: NotificationSettings

    // MARK: rules §11 — who gets launched
    /// Location apps are relaunched for location and region events even
    /// after a user force-quit: iOS 8 and later [S] (rules §4, §11).
    public var relaunchLocationAfterForceQuit: Bool
    /// A PushKit VoIP push launches the app even after a user force-quit —
    /// what VoIP apps rely on for incoming calls (PushKit, iOS 8+) [O].
    public var launchVoIPPushAfterForceQuit: Bool

    // MARK: rules §7 — push
    public var push: PushSettings

    // MARK: rules §5 — BGTaskScheduler
    public var scheduler = SchedulerSettings()

    // MARK: rules §10 — memory (jetsam)
    public var memory = MemorySettings()
    // MARK: rules §8 — background transfers
    public var transfers = TransferSettings()

    // MARK: rules §4 — long-running services
    public var longRunning: LongRunningSettings

    // MARK: rules §13 — data protection, continued processing
    public var dataProtection = DataProtectionSettings()
    public var continuedProcessing = ContinuedProcessingSettings()

    public init(
        name: String,
        backgroundTaskBudget: Nanoseconds,
        expirationLeadTime: Nanoseconds = Time.seconds(5),
        staleBackgroundTaskWarningAge: Nanoseconds? = Time.seconds(30),
        launchWatchdog: Nanoseconds = Time.seconds(20),
        didEnterBackgroundWatchdog: Nanoseconds = Time.seconds(5),
        willTerminateWatchdog: Nanoseconds = Time.seconds(5),
        sceneUpdateWatchdog: Nanoseconds = Time.seconds(10),
        notifications: NotificationSettings = NotificationSettings(),
        relaunchLocationAfterForceQuit: Bool = true,
        launchVoIPPushAfterForceQuit: Bool = true,
        memory: MemorySettings = .modern,
        longRunning: LongRunningSettings = .modern,
        transfers: TransferSettings = TransferSettings(),
        push: PushSettings = PushSettings()
    ) {
        self.name = name
        self.backgroundTaskBudget = backgroundTaskBudget
        self.expirationLeadTime = expirationLeadTime
        self.staleBackgroundTaskWarningAge = staleBackgroundTaskWarningAge
        self.launchWatchdog = launchWatchdog
        self.didEnterBackgroundWatchdog = didEnterBackgroundWatchdog
        self.willTerminateWatchdog = willTerminateWatchdog
        self.sceneUpdateWatchdog = sceneUpdateWatchdog
        self.notifications = notifications
        self.relaunchLocationAfterForceQuit = relaunchLocationAfterForceQuit
        self.launchVoIPPushAfterForceQuit = launchVoIPPushAfterForceQuit
        self.memory = memory
        self.longRunning = longRunning
        self.transfers = transfers
        self.push = push
    }

    /// iOS 13 and later — the default.
    public static let modern = PolicyProfile(
        name: "modern",
        backgroundTaskBudget: Time.seconds(30))          // [A] ~30 s

    /// iOS 7–12.
    public static let ios12 = PolicyProfile(
        name: "ios12",
        backgroundTaskBudget: Time.seconds(180),         // [O] 180 s
        staleBackgroundTaskWarningAge: nil,              // the warning is iOS 13+
        memory: .ios12,
        push: .ios12)

    /// iOS 4–6.
    public static let ios6 = PolicyProfile(
        name: "ios6",
        backgroundTaskBudget: Time.seconds(600),         // [O] 600 s
        staleBackgroundTaskWarningAge: nil,
        notifications: NotificationSettings(limit: 128,  // [S] 128 active
                                            overflow: .refuseNew),  // [S] the 129th is not scheduled
        relaunchLocationAfterForceQuit: false,           // [S] iOS 8+ only
        launchVoIPPushAfterForceQuit: false,             // no PushKit before iOS 8
        memory: .ios6,
        longRunning: .ios6,
        transfers: .ios6,                                // [D] background sessions are iOS 7+
        push: .ios6)

    /// iOS 26 and later: `modern` plus what iOS 26 added —
    /// `BGContinuedProcessingTaskRequest` (rules §13) [D]. Profiles grow by
    /// version: a profile is named for the iOS release whose behaviour it adds.
    public static let ios26: PolicyProfile = {
        var p = PolicyProfile(name: "ios26", backgroundTaskBudget: Time.seconds(30))
        p.continuedProcessing.available = true
        return p
    }()

    public static let all: [PolicyProfile] = [.modern, .ios26, .ios12, .ios6]

    public static func named(_ name: String) -> PolicyProfile? {
        all.first { $0.name == name }
    }
}
