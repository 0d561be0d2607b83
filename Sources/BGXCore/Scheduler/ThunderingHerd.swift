/// rules §6: dasd's ThunderingHerdPolicy [O]. After an event that leaves many
/// apps with work piled up — a restart, or the end of a lengthy deprivation:
/// the device unlocked after 4 hours locked, plugged in after 4 hours
/// unplugged, back on a network after 4 hours without — dasd holds every
/// background launch for 300 s (`timeSinceThunderingHerdTriggerEvent < 300`),
/// then, while the person goes on using the device, until 900 s
/// (`deviceInUse == 1 AND timeSinceThunderingHerdTriggerEvent < 900`). Once
/// the person stops using the device (it locks) the second window is over.
/// The triggers and both windows are those of public reverse-engineered dasd
/// sources (the policy's `lengthyLock`, `lengthyUnplug` and
/// `lengthyNoNetwork` triggers, each a 14,400 s minimum in the previous
/// state; its 300 s and 900 s timers; its "waiting for inactivity" flag).
struct ThunderingHerd: Sendable, Codable {
    /// What started a herd window (dasd's `recentTriggerReason`).
    enum Trigger: UInt8, Sendable, Codable {
        case boot
        case lengthyLock
        case lengthyUnplug
        case lengthyNoNetwork

        /// dasd's identifier for the trigger (nil for a restart, which logs none).
        var identifier: String? {
            switch self {
            case .boot: nil
            case .lengthyLock: "com.apple.duetactivityscheduler.thpolicy.lengthyLock"
            case .lengthyUnplug: "com.apple.duetactivityscheduler.thpolicy.lengthyUnplug"
            case .lengthyNoNetwork: "com.apple.duetactivityscheduler.thpolicy.lengthyNoNetwork"
            }
        }

        /// The trigger in words, for `explain`.
        var words: String {
            switch self {
            case .boot: "the restart"
            case .lengthyLock: "the unlock after 4 hours locked"
            case .lengthyUnplug: "plugging in after 4 hours unplugged"
            case .lengthyNoNetwork: "the network back after 4 hours without"
            }
        }
    }

    /// The last trigger and when it happened.
    private(set) var at: Nanoseconds?
    private(set) var reason: Trigger?
    /// dasd's `waitingForInactivity`: the in-use window still applies.
    private(set) var waitingForInactivity = false
    /// When the device last changed to locked / unplugged / without network
    /// (nil while it is unlocked / on power / on a network).
    private var lockedAt: Nanoseconds?
    private var unpluggedAt: Nanoseconds?
    private var offlineAt: Nanoseconds?

    init(locked: Bool, charging: Bool, online: Bool) {
        lockedAt = locked ? 0 : nil
        unpluggedAt = charging ? nil : 0
        offlineAt = online ? nil : 0
    }

    /// A restart: a trigger; the device is locked and has been since just now.
    mutating func booted(now: Nanoseconds, locked: Bool) {
        trigger(.boot, now: now)
        if locked { lockedAt = now }
    }

    /// The device locked or unlocked. Returns whether the herd window changed.
    mutating func lockChanged(_ locked: Bool, now: Nanoseconds, lengthy: Nanoseconds) -> Bool {
        if locked {
            lockedAt = now
            // The person stopped using the device: the in-use window is over.
            defer { waitingForInactivity = false }
            return waitingForInactivity
        }
        defer { lockedAt = nil }
        if let since = lockedAt, now - since >= lengthy { trigger(.lengthyLock, now: now); return true }
        return false
    }

    /// The charger was plugged in or out. Returns whether a window began.
    mutating func chargingChanged(_ charging: Bool, now: Nanoseconds, lengthy: Nanoseconds) -> Bool {
        if !charging { if unpluggedAt == nil { unpluggedAt = now }; return false }
        defer { unpluggedAt = nil }
        if let since = unpluggedAt, now - since >= lengthy { trigger(.lengthyUnplug, now: now); return true }
        return false
    }

    /// The network came or went. Returns whether a window began.
    mutating func networkChanged(online: Bool, now: Nanoseconds, lengthy: Nanoseconds) -> Bool {
        if !online { if offlineAt == nil { offlineAt = now }; return false }
        defer { offlineAt = nil }
        if let since = offlineAt, now - since >= lengthy { trigger(.lengthyNoNetwork, now: now); return true }
        return false
    }

    private mutating func trigger(_ why: Trigger, now: Nanoseconds) {
        at = now
        reason = why
        waitingForInactivity = true
    }
}
