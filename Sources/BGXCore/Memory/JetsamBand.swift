/// rules §10: jetsam priority bands, after XNU's `bsd/sys/kern_memorystatus.h`
/// Bands are plain numbers; the kill order is a policy over them (docs/rules.md §10).
/// The numbers are docs/rules.md's (§10); the revision-2 header numbers the same bands
/// 0, 1, 3, 10, 12 — the order, which is all jetsam uses, is the same.
public enum JetsamBand: UInt8, Sendable, CaseIterable, Comparable, CustomStringConvertible, Codable {
    /// `JETSAM_PRIORITY_IDLE`: suspended apps.
    case idle = 0
    /// `JETSAM_PRIORITY_IDLE_DEFERRED` (aging band 1): in the background with
    /// nothing keeping it running, on its way to suspension.
    case idleDeferred = 10
    /// `JETSAM_PRIORITY_BACKGROUND`: running in the background under an
    /// assertion (a background task, a BGTask, a fetch, a callback).
    case background = 30
    /// `JETSAM_PRIORITY_FOREGROUND`: the app in front.
    case foreground = 100
    /// `JETSAM_PRIORITY_AUDIO_AND_ACCESSORY`: playing audio or serving an accessory.
    case audioAndAccessory = 120

    public var description: String {
        switch self {
        case .idle: "idle"
        case .idleDeferred: "idleDeferred"
        case .background: "background"
        case .foreground: "foreground"
        case .audioAndAccessory: "audioAndAccessory"
        }
    }
    public static func < (a: JetsamBand, b: JetsamBand) -> Bool { a.rawValue < b.rawValue }
}

extension JetsamBand {
    /// The band of a process in `state` (nil: not running). A suspended
    /// process holds no assertion: it is purged first (rules §10), session or
    /// not; a background one is asked whether anything keeps it running
    /// (whatever keeps `suspendIfIdle` from suspending it is an assertion).
    @inline(__always) static func of(_ state: ProcessState, audioOrAccessory: Bool,
                                     keptRunning: () -> Bool) -> JetsamBand? {
        switch state {
        case .notRunning: return nil
        case .suspended: return .idle
        case _ where audioOrAccessory: return .audioAndAccessory
        case .active, .inactive: return .foreground
        case .background: return keptRunning() ? .background : .idleDeferred
        }
    }
}
