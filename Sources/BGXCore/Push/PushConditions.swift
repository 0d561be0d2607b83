/// What the push controller reads of the rest of the system when it judges a
/// push for one app (rules §7): the app's process and place, the launch
/// policy's verdict, dasd's device-wide answers and the device — copied as
/// values by the coordinator (`Engine.pushConditions(of:)`), so the
/// controller decides without the engine.
struct PushConditions {
    var now: Nanoseconds
    /// Time of day at t = 0 (times in a reason are wall-clock times).
    var wallClockOffset: Nanoseconds
    /// The app is the one in front of the person (its process may have ended).
    var isFrontApp: Bool
    var state: ProcessState
    /// Which lifetime of the app's process this is (a watched push's timeout carries it).
    var epoch: UInt32
    /// The launch policy's refusal of a `silentPush` launch (nil: allowed).
    var launchRefusal: LaunchRefusal?
    /// When the person last opened the app; when the device last restarted.
    var lastUse: Nanoseconds?
    var lastBoot: Nanoseconds?
    /// dasd's ThunderingHerdPolicy (nil: no herd), MemoryPressurePolicy and FileProtectionPolicy now.
    var herd: (words: Rationale, until: Nanoseconds)?
    var memoryPressure: (verdict: PolicyVerdict, words: Rationale)
    var fileProtection: (verdict: PolicyVerdict, words: Rationale)
    var locked: Bool
    var charging: Bool
    var battery: Int
    var lowPowerMode: Bool

    /// The app is in front and runs: a push is the app's, not the system's to judge.
    var inFront: Bool { isFrontApp && state.isRunning }

    func clockText(_ t: Nanoseconds) -> String { Time.wallClock(t + wallClockOffset) }
}

/// What stops a background push from reaching an app that is not in front.
enum PushGate: Equatable {
    case drop(String)
    case hold(String, retryAt: Nanoseconds?)
}

extension PushController {
    /// What stops a background push to an app not in front, in the order
    /// checked: the profile, the priority, the launch policy, the unused-app
    /// cutoff, dasd (unless `dasd` is false), the battery, Low Power Mode,
    /// then the controller's own throttle and budget; nil when nothing does.
    func gate(_ app: AppID, _ push: Push, _ c: PushConditions, settings p: PushSettings,
              dasd: Bool = true) -> PushGate? {
        if !p.silentPushSupported { return .drop("content-available pushes wake apps from iOS 7 on") }
        if push.priority > 5 && c.state == .notRunning {
            return .drop("priority \(push.priority) background pushes do not launch the app (send them with priority 5)")
        }
        if let refusal = c.launchRefusal {
            switch refusal {
            case .forceQuit, .beforeFirstUnlock: return .hold(refusal.reason, retryAt: nil)
            case .multitaskingUnsupported, .modeMissing, .taskIdentifierNotPermitted,
                 .backgroundAppRefreshOff, .backgroundAppRefreshOffForApp: return .drop(refusal.reason)
            }
        }
        if let cutoff = p.silentPushUnusedAppCutoff {
            guard let lastUse = c.lastUse else { return .drop("the app has never been opened") }
            if c.now - lastUse > cutoff {
                return .drop("the app has not been opened since \(c.clockText(lastUse)) (over \(Time.describe(cutoff)))")
            }
        }
        if dasd, let refused = Self.dasdGate(c, settings: p) { return refused }
        if let minimum = p.silentPushMinimumBattery, !c.charging, c.battery <= minimum {
            return .hold("battery at \(c.battery)% (≤ \(minimum)%): background pushes wait", retryAt: nil)
        }
        if p.silentPushPausedInLowPowerMode && c.lowPowerMode {
            return .hold("Low Power Mode pauses background pushes", retryAt: nil)
        }
        return ownHold(app, now: c.now, settings: p, clockText: c.clockText).map { .hold($0.reason, retryAt: $0.retryAt) }
    }
}
