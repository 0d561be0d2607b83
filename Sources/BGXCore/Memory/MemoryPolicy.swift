/// SPEC §10: jetsam priority bands, after XNU's `bsd/sys/kern_memorystatus.h`
/// (DESIGN.md: "bands are plain numbers; kill order is a policy over them").
/// The numbers are SPEC's; the revision-2 header numbers the same bands
/// 0, 1, 3, 10, 12 — the order, which is all jetsam uses, is the same.
public enum JetsamBand: UInt8, Sendable, CaseIterable, Comparable, CustomStringConvertible {
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

/// Which app of one band jetsam kills first.
public enum JetsamOrder: String, Sendable, CaseIterable {
    /// XNU keeps each band as a FIFO and kills from its head: the app that
    /// has been in its band (its state) the longest [D].
    case leastRecentlyUsed
    /// The app with the largest footprint first (frees the most per kill).
    case largestFirst
}

/// Why jetsam killed an app (a `terminate` field).
public enum JetsamCause: UInt8, Sendable, CustomStringConvertible {
    /// Free memory fell below the critical level; kills from the lowest band up.
    case pressure
    /// The app's own footprint passed its per-process limit; killed at once.
    case perProcessLimit
    public var description: String {
        switch self {
        case .pressure: "pressure"
        case .perProcessLimit: "perProcessLimit"
        }
    }
}

/// The numbers of memory enforcement (SPEC §10). Fractions are of the
/// device's RAM (`device: {memory:}`).
public struct MemoryPolicy: Sendable, Equatable {
    /// What the system itself keeps resident (kernel, SpringBoard, daemons):
    /// bgx's choice, in line with what free-memory readings on devices show [O].
    public var systemShare = 0.25
    /// The per-process footprint limit: about 50–80 % of RAM by device class
    /// [O] (2.0 GB of 3.7 GB on an iPhone XS ≈ 0.55).
    public var appLimitFraction = 0.55
    /// Free memory below this: running apps get `didReceiveMemoryWarning`
    /// (once per episode of pressure) [S] (bgx's level).
    public var warningLevel = 0.10
    /// Free memory below this: jetsam kills from the lowest band up until
    /// free memory is back above it [S] (bgx's level).
    public var criticalLevel = 0.05
    /// Which app of a band goes first.
    public var orderWithinBand = JetsamOrder.leastRecentlyUsed
    /// From the warning to the kills. At 0 the kills still come after the
    /// warned apps' handlers have returned in that instant, so memory an app
    /// frees on a warning counts.
    public var killDelay: Nanoseconds = 0
    /// The system may tear a suspended app's connections down [S]; bgx does
    /// once the app has been suspended this long (bgx's choice; nil: never).
    public var suspendedSocketTeardown: Nanoseconds? = Time.minutes(10)

    public init() {}

    /// iOS 13+: iPhone XS-class limits [O].
    public static let modern = MemoryPolicy()
    /// iOS 7–12 devices: smaller RAM, a smaller share per app [O].
    public static let ios12: MemoryPolicy = {
        var p = MemoryPolicy()
        p.appLimitFraction = 0.5
        return p
    }()
    /// iOS 4–6 devices (256–512 MB of RAM): the system keeps more [O].
    public static let ios6: MemoryPolicy = {
        var p = MemoryPolicy()
        p.appLimitFraction = 0.45
        p.systemShare = 0.35
        return p
    }()
}
