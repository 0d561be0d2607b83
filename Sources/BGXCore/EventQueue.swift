import HeapModule

/// Something the engine must handle at a moment of virtual time. Plain values
/// in a heap, never closures (DESIGN.md: a closure per event measured 3–4×
/// slower). `epoch` ties an event to one process lifetime: once the app is
/// terminated its stale events are dropped when they come due.
public enum EngineEvent: Sendable, Equatable {
    case user(UserAction)
    /// Boxed: a time zone's rules would make every queued event 40 % larger.
    indirect case device(DeviceChange)
    case watchdog(AppID, epoch: UInt32, job: UInt32)
    case expirationWarning(AppID, epoch: UInt32, window: UInt32)
    case budgetDeadline(AppID, epoch: UInt32, window: UInt32)
    case timer(AppID, epoch: UInt32, token: Int32, continuation: Bool)
    case notificationFire(AppID, NotificationID, generation: UInt32)
    case schedulerWake(generation: UInt32)
    case taskExpiry(AppID, epoch: UInt32, window: UInt32)
    case taskDeadline(AppID, epoch: UInt32, window: UInt32)
    case fetchTimeout(AppID, epoch: UInt32, fetch: UInt32)
    case cpuCheck(AppID, epoch: UInt32, check: UInt32)
    /// The debugger's `_simulateLaunchForTaskWithIdentifier` / `_simulateExpirationForTaskWithIdentifier`.
    case simulateLaunch(AppID, identifier: TextID)
    case simulateExpiration(AppID, identifier: TextID)
    /// Jetsam looks at free memory (SPEC §10).
    case jetsamCheck
    /// SPEC §4: a `playAudio {for: D}` ran its course.
    case audioEnd(AppID, epoch: UInt32, playback: UInt32)
    /// SPEC §4: the run an event (location, accessory) bought the app is over.
    case serviceWakeEnd(AppID, epoch: UInt32, wake: UInt32)
    /// SPEC §4: the device moved this many metres along its route.
    case locationMove(meters: Int64)
    /// A significant-change fix held back by the once-per-5-minutes limit is due.
    case significantChangeDue(AppID, generation: UInt32)
    /// SPEC §4: an accessory or Bluetooth peripheral sent the app data.
    case accessoryData(AppID, AccessoryTransport)
    /// The transfer daemon's next look (SPEC §8); stale generations are dropped.
    case transferReview(generation: UInt32)
    /// The relaunch rate limiter's delay has passed: wake the app for a session's events.
    case transferWake(AppID, session: TextID, number: UInt32)
    /// The time to call the `handleEventsForBackgroundURLSession` completion handler is up.
    case transferEventsDeadline(AppID, epoch: UInt32, number: UInt32)
    /// A push reaches the device (SPEC §7, §4).
    case push(AppID, Push)
    /// A silent push's 30 s for its completion handler are over (SPEC §7).
    case pushTimeout(AppID, epoch: UInt32, push: UInt32)
    /// A held push may be deliverable now (a throttle or budget ended).
    case pushRetry(AppID, generation: UInt32)
    /// Traffic on the app's VoIP socket (SPEC §4).
    case voipSocketTraffic(AppID)
    /// The app's keep-alive handler is due (SPEC §4).
    case keepAlive(AppID, epoch: UInt32, generation: UInt32)
}

/// Ordered by (time, insertion order), like `EmbeddedEventLoop`.
public struct ScheduledEvent: Comparable, Sendable {
    public var time: Nanoseconds
    public var sequence: UInt64
    public var event: EngineEvent

    @inlinable public init(time: Nanoseconds, sequence: UInt64, event: EngineEvent) {
        self.time = time
        self.sequence = sequence
        self.event = event
    }

    @inlinable public static func < (a: ScheduledEvent, b: ScheduledEvent) -> Bool {
        a.time != b.time ? a.time < b.time : a.sequence < b.sequence
    }
    @inlinable public static func == (a: ScheduledEvent, b: ScheduledEvent) -> Bool {
        a.time == b.time && a.sequence == b.sequence
    }
}

public struct EventQueue: Sendable {
    @usableFromInline var heap = Heap<ScheduledEvent>()
    @usableFromInline var nextSequence: UInt64 = 0

    public init() {}

    @inlinable public mutating func push(_ event: EngineEvent, at time: Nanoseconds) {
        heap.insert(ScheduledEvent(time: time, sequence: nextSequence, event: event))
        nextSequence &+= 1
    }
    @inlinable public mutating func pop() -> ScheduledEvent? { heap.popMin() }
    @inlinable public var nextTime: Nanoseconds? { heap.min?.time }
    @inlinable public var count: Int { heap.count }
}

/// A seeded generator held in the engine's state (SplitMix64): the engine
/// never touches global randomness.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
