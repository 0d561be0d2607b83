/// rules §11: who gets launched, and when — one controller every subsystem
/// asks before it launches or wakes an app into the background.
///
/// The rules, in the order they are checked:
/// 1. **Multitasking** — on a device without it no app runs in the
///    background at all (rules §1).
/// 2. **The mode** — the cause's `UIBackgroundModes` entry must be declared
///    (rules §3): silentPush → `remote-notification`, voipPush and boot →
///    `voip`, bluetooth →
///    `bluetooth-central` or `bluetooth-peripheral`, accessory →
///    `external-accessory`, newsstand → `newsstand-content`, fetch →
///    `fetch`, audio → `audio`; bgTask → the task's identifier in
///    `BGTaskSchedulerPermittedIdentifiers`; transfer needs none (a
///    background URLSession is enough), and neither do location and region:
///    significant-change and region monitoring relaunch apps without the
///    `location` mode (it is what App Review tells mode-less apps to use;
///    the mode is for standard updates that keep an app running).
/// 3. **First unlock** — with a passcode, nothing is launched into the
///    background before the first unlock after boot. (`unlockedSinceBoot`
///    is false only on a device with a passcode.)
/// 4. **Force-quit** — a swipe in the app switcher sets the app's flag; a
///    user launch (or a tapped notification) and a reboot clear it. While
///    it is set no background cause launches the app, except location and
///    region events when `relaunchLocationAfterForceQuit` is on (iOS 8+),
///    and PushKit VoIP pushes when `launchVoIPPushAfterForceQuit` is on:
///    VoIP apps are launched for incoming calls even after a swipe [O].
/// 5. **Background App Refresh** — the Settings switch, for the device and
///    for the app (rules §6): off, no BGTask runs, no fetch and no background
///    push launches the app. One rule: BGTaskScheduler's `submit`, the
///    scheduler's BackgroundAppRefreshPolicy and the push gate all ask it.
///
/// A user launch (`user`, `notification`) is never refused: it is what
/// clears the force-quit flag, and it unlocks the device first.
///
/// The policy is a pure function of its inputs. Refusals are values
/// (`LaunchRefusal`); their words are built only when read, so the
/// scheduler's hot path can ask without allocating.
public struct LaunchPolicy: Sendable, Equatable, Codable {
    /// rules §4/§11 [S]: location apps are relaunched even after a user
    /// force-quit (iOS 8 and later).
    public var relaunchLocationAfterForceQuit: Bool
    /// PushKit VoIP pushes launch a force-quit app (iOS 8+) [O].
    public var launchVoIPPushAfterForceQuit: Bool

    public init(relaunchLocationAfterForceQuit: Bool, launchVoIPPushAfterForceQuit: Bool = false) {
        self.relaunchLocationAfterForceQuit = relaunchLocationAfterForceQuit
        self.launchVoIPPushAfterForceQuit = launchVoIPPushAfterForceQuit
    }

    /// What the policy needs to know about the app.
    public struct AppFacts: Sendable, Equatable {
        public var modes: Set<BackgroundMode>
        public var forceQuit: Bool
        /// For a bgTask launch: whether the task's identifier is in
        /// `BGTaskSchedulerPermittedIdentifiers` (nil when not asked).
        public var taskIdentifierPermitted: Bool?
        /// The app's own Background App Refresh switch in Settings.
        public var backgroundAppRefresh: Bool
        public init(modes: Set<BackgroundMode>, forceQuit: Bool, taskIdentifierPermitted: Bool? = nil,
                    backgroundAppRefresh: Bool = true) {
            self.modes = modes
            self.forceQuit = forceQuit
            self.taskIdentifierPermitted = taskIdentifierPermitted
            self.backgroundAppRefresh = backgroundAppRefresh
        }
    }

    /// The rules, each of which can be asked on its own.
    public enum Rule: Sendable, CaseIterable { case multitasking, mode, firstUnlock, forceQuit, backgroundAppRefresh }

    /// The modes that let `cause` launch an app — any one of them is enough;
    /// empty when the cause needs no mode.
    public static func modes(for cause: LaunchCause) -> [BackgroundMode] {
        switch cause {
        case .silentPush: [.remoteNotification]
        case .voipPush, .boot: [.voip]
        case .bluetooth: [.bluetoothCentral, .bluetoothPeripheral]
        case .accessory: [.externalAccessory]
        case .newsstand: [.newsstandContent]
        case .fetch: [.fetch]
        case .audio: [.audio]
        case .user, .notification, .bgTask, .transfer, .location, .region: []
        }
    }

    /// May an app be launched or woken into the background now for `cause`?
    public func verdict(for cause: LaunchCause, app: AppFacts, device: DeviceState) -> LaunchVerdict {
        for rule in Rule.allCases {
            if let refusal = check(rule, cause: cause, app: app, device: device) {
                return LaunchVerdict(cause: cause, refusal: refusal)
            }
        }
        return LaunchVerdict(cause: cause, refusal: nil)
    }

    /// One rule's answer: nil when it allows the launch.
    public func check(_ rule: Rule, cause: LaunchCause, app: AppFacts, device: DeviceState) -> LaunchRefusal? {
        if cause.launchesIntoForeground { return nil }
        switch rule {
        case .multitasking:
            return device.multitasking ? nil : .multitaskingUnsupported
        case .mode:
            if cause == .bgTask, app.taskIdentifierPermitted == false { return .taskIdentifierNotPermitted }
            let needed = Self.modes(for: cause)
            if needed.isEmpty || needed.contains(where: app.modes.contains) { return nil }
            return .modeMissing(needed[0])
        case .firstUnlock:
            return Self.firstUnlock(cause, unlockedSinceBoot: device.unlockedSinceBoot)
        case .forceQuit:
            return forceQuit(cause, forceQuit: app.forceQuit)
        case .backgroundAppRefresh:
            return Self.backgroundAppRefresh(cause, device: device.backgroundAppRefresh, app: app.backgroundAppRefresh)
        }
    }

    // The rules that need one fact each, asked on their own by the
    // scheduler's policies on its hot path (without a copy of the device).

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Launch/ (3 of them in this file) cost the engine 8 instructions per event.
    /// Rule 3: nothing is launched into the background before the first unlock after boot.
    @inline(__always) public static func firstUnlock(_ cause: LaunchCause, unlockedSinceBoot: Bool) -> LaunchRefusal? {
        cause.launchesIntoForeground || unlockedSinceBoot ? nil : .beforeFirstUnlock
    }

    /// Rule 4: a force-quit app is not launched in the background, except as the profile allows.
    @inline(__always) public func forceQuit(_ cause: LaunchCause, forceQuit: Bool) -> LaunchRefusal? {
        guard forceQuit, !cause.launchesIntoForeground else { return nil }
        if relaunchLocationAfterForceQuit && (cause == .location || cause == .region) { return nil }
        if launchVoIPPushAfterForceQuit && cause == .voipPush { return nil }
        return .forceQuit
    }

    /// Rule 5: Background App Refresh off — on the device, or for the app —
    /// stops BGTasks, fetch and background pushes (the causes it governs).
    @inline(__always) public static func backgroundAppRefresh(_ cause: LaunchCause, device: Bool, app: Bool) -> LaunchRefusal? {
        switch cause {
        case .bgTask, .fetch, .silentPush:
            if !device { return .backgroundAppRefreshOff }
            if !app { return .backgroundAppRefreshOffForApp }
            return nil
        default: return nil
        }
    }
}

/// Why the launch policy said no.
public enum LaunchRefusal: Sendable, Equatable, Codable {
    case multitaskingUnsupported
    case modeMissing(BackgroundMode)
    case taskIdentifierNotPermitted
    case beforeFirstUnlock
    case forceQuit
    case backgroundAppRefreshOff
    case backgroundAppRefreshOffForApp

    /// The words for the trace (the scheduler's policies use the same).
    public var reason: String {
        switch self {
        case .multitaskingUnsupported: "this device does not support multitasking"
        case let .modeMissing(mode): "UIBackgroundModes lacks '\(mode.rawValue)'"
        case .taskIdentifierNotPermitted: "the task identifier is not in BGTaskSchedulerPermittedIdentifiers"
        case .beforeFirstUnlock: "the device has not been unlocked since boot"
        case .forceQuit: "the user force-quit the app; no background launch until the user opens it"
        case .backgroundAppRefreshOff: "Background App Refresh is off in Settings"
        case .backgroundAppRefreshOffForApp: "Background App Refresh is off for this app in Settings"
        }
    }
}

/// The launch policy's answer for one app and cause.
public struct LaunchVerdict: Sendable, Equatable {
    public var cause: LaunchCause
    /// nil when the launch (or wake) may happen.
    public var refusal: LaunchRefusal?
    public var allowed: Bool { refusal == nil }
    /// For the trace: why not, or that it may.
    public var reason: String { refusal?.reason ?? "may launch for \(cause)" }
}
