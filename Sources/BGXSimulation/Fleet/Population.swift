import BGXCore

/// A scenario's `population:` section: the distributions each device of a
/// fleet is sampled from — the person's habits, the phone's settings. The
/// defaults come from published usage studies where one exists and are
/// marked as assumptions where none was found (docs/scenarios.md, `population:`).
public struct Population: Sendable {
    /// The fleet's seed; device i's seed derives from it and i. Default: the scenario's `seed`.
    public var seed: UInt64?
    /// How many times a day the person opens each of the scenario's apps.
    public var usesPerDay: Draw<Int> = .weighted([(1, 25), (2, 25), (3, 20), (5, 15), (8, 10), (12, 5)])
    /// When in the day the uses fall (windows of the day, weighted).
    public var useHours: Draw<DayWindow> = .weighted([
        (DayWindow(from: 0, to: Time.hours(7)), 2),
        (DayWindow(from: Time.hours(7), to: Time.hours(9)), 20),
        (DayWindow(from: Time.hours(9), to: Time.hours(12)), 15),
        (DayWindow(from: Time.hours(12), to: Time.hours(14)), 15),
        (DayWindow(from: Time.hours(14), to: Time.hours(18)), 15),
        (DayWindow(from: Time.hours(18), to: Time.hours(22)), 25),
        (DayWindow(from: Time.hours(22), to: Time.hours(24)), 8),
    ])
    /// How long one use lasts.
    public var useLength: Draw<Nanoseconds> = .between(Time.seconds(20), Time.seconds(120))
    /// The share of uses at the person's habitual moment (± 10 minutes); the rest fall anywhere `useHours` allows.
    public var regularity: Double = 0.6
    /// When the person wakes (unplugs, unlocks) and goes to bed (locks, plugs in), as times of day.
    public var wake: Draw<Nanoseconds> = .between(Time.hours(6), Time.hours(8) + Time.minutes(30))
    public var bedtime: Draw<Nanoseconds> = .between(Time.hours(22), Time.hours(24) + Time.minutes(30))
    /// The share of people who charge overnight, from bedtime to waking.
    public var chargesAtNight: Double = 0.85
    /// Auto-Lock: how long after the person leaves the app the phone locks itself.
    public var autoLock: Draw<Nanoseconds> = .weighted([(Time.seconds(30), 60), (Time.minutes(1), 20), (Time.minutes(5), 20)])
    /// The network during the day (waking to 18:00), drawn for each device and day.
    public var network: Draw<DeviceState.Network> = .weighted([(.wifi, 25), (.cellular, 73), (.none, 2)])
    /// The share of people on Wi-Fi at home, from 18:00 to waking (the rest stay on cellular).
    public var homeWifi: Double = 0.75
    /// Shares of devices with Low Power Mode on, and with Background App Refresh off, all the time.
    public var lowPowerMode: Double = 0.10
    public var backgroundAppRefreshOff: Double = 0.10
    /// The share of people who swipe the app away in the app switcher after each use.
    public var forceQuit: Double = 0.15
    /// The device's memory.
    public var memory: Draw<Int64> = .weighted([(3 << 30, 15), (4 << 30, 35), (6 << 30, 40), (8 << 30, 10)])
    /// How many other apps that refresh in the background the person has, each opened once a day.
    public var otherApps: Draw<Int> = .weighted([(0, 40), (1, 30), (2, 20), (3, 10)])
    /// A server staggering its sends: each `push:` of the scenario's timeline
    /// reaches each device this much later, drawn per device and push (default: at once).
    public var pushSpread: Draw<Nanoseconds> = .fixed(0)
    public var location: SourceLocation

    public init(location: SourceLocation) { self.location = location }
}

/// A distribution a population property is drawn from: one value, a
/// uniform range, or values with weights (percentages adding up to 100).
public enum Draw<Value: Sendable>: Sendable {
    case fixed(Value)
    case between(Value, Value)
    case weighted([(Value, Double)])
}

/// A stretch of the day, `from` up to `to` (a time of day; `to` past 24 h wraps).
public struct DayWindow: Sendable, Equatable, Hashable {
    public var from: Nanoseconds
    public var to: Nanoseconds
    public init(from: Nanoseconds, to: Nanoseconds) {
        self.from = from
        self.to = to
    }
}
