import HeapModule

/// Something the engine must handle at a moment of virtual time. Plain values
/// in a heap, never closures (a closure per event measured 3–4× slower). A `Ticket` ties an event to one process lifetime and one moment
/// of its controller: a stale ticket's event is dropped when it comes due.
public enum EngineEvent: Sendable, Equatable, Codable {
    case user(UserAction)
    /// Boxed: a time zone's rules would make every queued event 40 % larger.
    indirect case device(DeviceChange)
    case watchdog(AppID, Ticket)
    case expirationWarning(AppID, Ticket)
    case budgetDeadline(AppID, Ticket)
    case timer(AppID, epoch: UInt32, token: Int32, continuation: Bool)
    case notificationFire(AppID, NotificationID, generation: UInt32)
    /// Device-wide, not an app's: a generation, with no process to tie a ticket to.
    case schedulerWake(generation: UInt32)
    /// rules §5: a launch's BGTask budget is nearly spent: its tasks are expired.
    case taskExpiry(AppID, Ticket)
    /// rules §5: the budget is spent: a task not completed ends the app.
    case taskDeadline(AppID, Ticket)
    /// rules §6: a fetch's time for its completion handler is over.
    case fetchTimeout(AppID, Ticket)
    case cpuCheck(AppID, Ticket)
    /// The debugger's `_simulateLaunchForTaskWithIdentifier` / `_simulateExpirationForTaskWithIdentifier`.
    case simulateLaunch(AppID, identifier: TextID)
    case simulateExpiration(AppID, identifier: TextID)
    /// Jetsam looks at free memory (rules §10).
    case jetsamCheck
    /// rules §4: a `playAudio {for: D}` ran its course.
    case audioEnd(AppID, Ticket)
    /// rules §4: the run an event (location, accessory) bought the app is over.
    case serviceWakeEnd(AppID, Ticket)
    /// rules §4: the device moved this many metres along its route.
    case locationMove(meters: Int64)
    /// A significant-change fix held back by the once-per-5-minutes limit is
    /// due. A generation, not a `Ticket`: the monitoring is the system's and
    /// the fix relaunches a terminated app, so a process's end must not make it stale.
    case significantChangeDue(AppID, generation: UInt32)
    /// rules §4: an accessory or Bluetooth peripheral sent the app data.
    case accessoryData(AppID, AccessoryTransport)
    /// The transfer daemon's next look (rules §8); stale generations are
    /// dropped. Device-wide, not an app's: no process to tie a ticket to.
    case transferReview(generation: UInt32)
    /// The relaunch rate limiter's delay has passed: wake the app for a
    /// session's events. The session's number, not a `Ticket`: the session
    /// is the daemon's and the wake relaunches a terminated app.
    case transferWake(AppID, session: TextID, number: UInt32)
    /// The time to call the `handleEventsForBackgroundURLSession` completion handler is up.
    case transferEventsDeadline(AppID, Ticket)
    /// A push reaches the device (rules §7, §4).
    case push(AppID, Push)
    /// A silent push's 30 s for its completion handler are over (rules §7).
    case pushTimeout(AppID, Ticket)
    /// A held push may be deliverable now (a throttle or budget ended). A
    /// generation, not a `Ticket`: the system holds the push past the
    /// process and the retry launches a terminated app.
    case pushRetry(AppID, generation: UInt32)
    /// Traffic on the app's VoIP socket (rules §4).
    case voipSocketTraffic(AppID)
    /// The app's keep-alive handler is due (rules §4).
    case keepAlive(AppID, Ticket)
}

/// Ordered by (time, insertion order), like `EmbeddedEventLoop`.
public struct ScheduledEvent: Comparable, Sendable, Codable {
    public var time: Nanoseconds
    public var sequence: UInt64
    public var event: EngineEvent

    @inlinable public init(time: Nanoseconds, sequence: UInt64, event: consuming EngineEvent) {
        self.time = time
        self.sequence = sequence
        self.event = event
    }

    /// The event, moved out of its place in the order.
    @inlinable public consuming func takeEvent() -> EngineEvent { event }

    @inlinable public static func < (a: ScheduledEvent, b: ScheduledEvent) -> Bool {
        a.time != b.time ? a.time < b.time : a.sequence < b.sequence
    }
    @inlinable public static func == (a: ScheduledEvent, b: ScheduledEvent) -> Bool {
        a.time == b.time && a.sequence == b.sequence
    }
}

/// The engine's events in (time, insertion order). Some kinds are always
/// due a fixed delay after the moment they are queued — a budget's warning,
/// its deadline, jetsam's next look — and the host's inputs come in time
/// order, so each such kind arrives already sorted (in the bench, 80 % of
/// all events): it waits in a FIFO lane, O(1) each way, and only the rest
/// (timers, watchdogs, anything that arrives out of order) goes through the
/// heap. The next event is the least of the heap's minimum and the lanes'
/// heads; lanes and heap never change the order, only its cost.
public struct EventQueue: Sendable, Codable {
    @usableFromInline var heap = Heap<ScheduledEvent>()
    /// The heap's first (time, sequence), kept beside it like a lane's.
    @usableFromInline var heapFirst = Key.none
    @usableFromInline var inputs = Lane(), warnings = Lane(), deadlines = Lane(), checks = Lane()
    @usableFromInline var nextSequence: UInt64 = 0
    @usableFromInline var heapInserts = 0

    public init() {}

    /// Events queued so far.
    public var pushes: Int { Int(nextSequence) }
    /// Events that went through the heap (the rest waited in lanes).
    public var heapPushes: Int { heapInserts }

    @usableFromInline enum Place { case heap, inputs, warnings, deadlines, checks }

    /// The lane an event kind arrives sorted in, if any.
    @inlinable static func lane(for event: EngineEvent) -> Place {
        switch event {
        case .user, .device: .inputs
        case .expirationWarning: .warnings
        case .budgetDeadline: .deadlines
        case .jetsamCheck: .checks
        default: .heap
        }
    }

    /// The event is taken, not copied (`consuming`): a copy and its release
    /// cost about 4 instructions per engine event (`bgx bench`, callgrind).
    @inlinable public mutating func push(_ event: consuming EngineEvent, at time: Nanoseconds) {
        let place = Self.lane(for: event)
        let e = ScheduledEvent(time: time, sequence: nextSequence, event: event)
        nextSequence &+= 1
        switch place {
        case .inputs where inputs.accepts(time): inputs.append(e)
        case .warnings where warnings.accepts(time): warnings.append(e)
        case .deadlines where deadlines.accepts(time): deadlines.append(e)
        case .checks where checks.accepts(time): checks.append(e)
        default:
            let key = Key(e)
            if key.precedes(heapFirst) { heapFirst = key }
            heap.insert(e)
            heapInserts &+= 1
        }
    }

    /// Where the next event waits, and its key.
    @inlinable func next() -> (Place, Key) {
        var place = Place.heap, least = heapFirst
        if inputs.first.precedes(least) { place = .inputs; least = inputs.first }
        if warnings.first.precedes(least) { place = .warnings; least = warnings.first }
        if deadlines.first.precedes(least) { place = .deadlines; least = deadlines.first }
        if checks.first.precedes(least) { place = .checks; least = checks.first }
        return (place, least)
    }

    @inlinable public mutating func pop() -> ScheduledEvent? {
        let (place, key) = next()
        guard !key.isNone else { return nil }
        switch place {
        case .heap:
            let e = heap.removeMin()
            heapFirst = heap.min.map(Key.init) ?? .none
            return e
        case .inputs: return inputs.removeFirst()
        case .warnings: return warnings.removeFirst()
        case .deadlines: return deadlines.removeFirst()
        case .checks: return checks.removeFirst()
        }
    }
    @inlinable public var nextTime: Nanoseconds? {
        let (_, key) = next()
        return key.isNone ? nil : key.time
    }
    @inlinable public var count: Int {
        heap.count + inputs.count + warnings.count + deadlines.count + checks.count
    }

    /// An event's place in the order: (time, sequence) as one unsigned
    /// number that orders the same way, so finding the next of five places
    /// is four comparisons of one number each, not of two (about 14
    /// instructions per engine event in `bgx bench`, callgrind).
    @usableFromInline struct Key: Sendable, Codable {
        @usableFromInline var bits: UInt128
        @inlinable init(bits: UInt128) { self.bits = bits }
        /// The time's sign bit is flipped so that negative times still come first.
        @inlinable init(time: Nanoseconds, sequence: UInt64) {
            bits = UInt128(UInt64(bitPattern: time) ^ (1 << 63)) << 64 | UInt128(sequence)
        }
        @inlinable init(_ e: borrowing ScheduledEvent) { self.init(time: e.time, sequence: e.sequence) }
        @inlinable var time: Nanoseconds { Int64(bitPattern: UInt64(truncatingIfNeeded: bits >> 64) ^ (1 << 63)) }
        /// An empty place's first: sequences never reach `.max`. (Computed, so
        /// that reading it is a constant, not a lazily initialised global.)
        @inlinable static var none: Key { Key(bits: .max) }
        @inlinable var isNone: Bool { UInt64(truncatingIfNeeded: bits) == .max }
        @inlinable func precedes(_ other: Key) -> Bool { bits < other.bits }
    }

    /// Events of one kind in the order they came, which is time order,
    /// with the first one's key and the last one's time kept beside them.
    @usableFromInline struct Lane: Sendable, Codable {
        @usableFromInline var events = FIFO<ScheduledEvent>()
        /// The first event's key, `.none` while empty.
        @usableFromInline var first = Key.none
        /// The last event's time, `.min` while empty.
        @usableFromInline var lastTime = Nanoseconds.min

        @inlinable init() {}
        @inlinable var count: Int { events.count }
        /// Whether an event at `time` keeps the lane in time order.
        @inlinable func accepts(_ time: Nanoseconds) -> Bool { lastTime <= time }

        @inlinable @inline(__always) mutating func append(_ e: consuming ScheduledEvent) {
            if first.isNone { first = Key(e) }
            lastTime = e.time
            events.append(e)
        }

        /// Inlined into `pop`, as it was before `Key` became one number:
        /// as a call it cost about 13 instructions per engine event (`bgx bench`, callgrind).
        @inlinable @inline(__always) mutating func removeFirst() -> ScheduledEvent {
            let e = events.popFirst().unsafelyUnwrapped
            if let next = events.mapFirst({ Key($0) }) {
                first = next
            } else {
                first = .none
                lastTime = .min
            }
            return e
        }
    }
}
