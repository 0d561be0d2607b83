/// rules §4's numbers and switches for audio, location, accessories and
/// Bluetooth. Source tags are docs/rules.md's.
public struct LongRunningSettings: Sendable, Equatable, Codable {
    /// Significant-change fixes need this many metres of movement: 500 m [D].
    public var significantChangeDistance: Int64 = 500
    /// …and come at most this often: once per 5 min [D].
    public var significantChangeMinimumInterval: Nanoseconds = Time.minutes(5)
    /// A location event (significant change, region) gives a suspended or
    /// relaunched app about 10 s to handle it [D CLLocationManager docs].
    public var locationEventRunTime: Nanoseconds = Time.seconds(10)
    /// New accessory or Bluetooth data gives the app ~10 s [S].
    public var accessoryEventRunTime: Nanoseconds = Time.seconds(10)
    /// Standard updates continue in the background only with
    /// `allowsBackgroundLocationUpdates` (iOS 9+ [D]); before, the mode sufficed.
    public var requiresAllowsBackgroundLocationUpdates = true
    /// Core Bluetooth state restoration relaunches a terminated app for its
    /// pending connection's events: iOS 7+ [D QA1962].
    public var bluetoothStateRestoration = true

    public init() {}

    public static let modern = LongRunningSettings()
    /// iOS 7–12: the iOS 8/9 rules are the majority of the range.
    public static let ios12 = LongRunningSettings()
    /// iOS 4–6: no `allowsBackgroundLocationUpdates`, no Bluetooth state
    /// restoration. (Relaunching location apps after a force-quit is the
    /// launch policy's `relaunchLocationAfterForceQuit`.)
    public static let ios6: LongRunningSettings = {
        var p = LongRunningSettings()
        p.requiresAllowsBackgroundLocationUpdates = false
        p.bluetoothStateRestoration = false
        return p
    }()
}
