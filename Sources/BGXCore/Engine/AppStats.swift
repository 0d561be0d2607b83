/// Per-app accounting for the summary (docs/rules.md §12).
/// Counters live in fixed-size SIMD vectors: inline storage, so updating
/// them on the hot path touches no heap and checks no uniqueness.
public struct AppStats: Sendable, Equatable, Codable {
    public var timeInState = StateTimes()
    /// Indexed by `LaunchCause.rawValue` (a test checks the enums fit).
    public var launches = SIMD32<Int32>()
    /// Indexed by `TerminationReason.rawValue`.
    public var terminations = SIMD32<Int32>()
    public var backgroundTasksBegun = 0
    public var backgroundTasksExpired = 0
    public var watchdogHits = 0
    public var scheduledTasksStarted = 0
    public var scheduledTasksExpired = 0
    public var fetches = 0
    /// Returns to the front of a process that was still there (suspended or
    /// in the background); every launch is a cold one.
    public var warmLaunches = 0
    public init() {}
}
