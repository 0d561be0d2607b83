/// The numbers of memory enforcement (rules §10). Fractions are of the
/// device's RAM (`device: {memory:}`).
public struct MemorySettings: Sendable, Equatable, Codable {
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
    public static let modern = MemorySettings()
    /// iOS 7–12 devices: smaller RAM, a smaller share per app [O].
    public static let ios12: MemorySettings = {
        var p = MemorySettings()
        p.appLimitFraction = 0.5
        return p
    }()
    /// iOS 4–6 devices (256–512 MB of RAM): the system keeps more [O].
    public static let ios6: MemorySettings = {
        var p = MemorySettings()
        p.appLimitFraction = 0.45
        p.systemShare = 0.35
        return p
    }()
}
