import BGXCore

/// One thing that happened to an app, as a test asks about it: the trace
/// event's kind and fields (the scenario language's trace, docs/scenarios.md),
/// with its moment as the run's day and time of day — the scenario's `Nd HH:MM`.
public struct Happening: Sendable, CustomStringConvertible {
    /// The trace kind: `task.start`, `launch`, `terminate`, `push.deliver`, …
    public let kind: String
    /// From the start of the run.
    public let time: Nanoseconds
    /// The run's day (0: the start's day, on the device's clock).
    public let day: Int
    /// Since that day's midnight.
    public let timeOfDay: Nanoseconds
    /// That day's weekday: 0 Sunday … 6 Saturday, as `Recurrence` counts them.
    public let weekday: Int
    /// The event's fields, as the trace writes them (numbers and booleans as text).
    public let fields: [(name: String, value: String)]

    /// A field's value (`happening["identifier"]`), nil if the event has none.
    public subscript(field: String) -> String? { fields.first { $0.name == field }?.value }

    /// `1d 07:12:05 task.start identifier=com.example.pods.refresh`, for a failing expectation's message.
    public var description: String {
        let clock = Time.wallClock(timeOfDay, seconds: true, day: false)
        return "\(day)d \(clock) \(kind)" + fields.map { " \($0.name)=\($0.value)" }.joined()
    }
}

/// What happened to an app, narrowed down until it reads like the question:
/// "did the refresh start before 07:30 on 5 of 7 days?" is
/// `device.happenings(of: app).taskStarts("com.example.pods.refresh").before(7, 30).days.count >= 5`.
public struct Happenings: Sendable, RandomAccessCollection, CustomStringConvertible {
    public let elements: [Happening]

    public init(_ elements: [Happening]) { self.elements = elements }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Happening { elements[position] }

    /// One line per happening.
    public var description: String { elements.map(\.description).joined(separator: "\n") }

    // MARK: Narrowing

    /// Those of one trace kind (`"task.start"`).
    public func kind(_ kind: String) -> Happenings { Happenings(elements.filter { $0.kind == kind }) }
    public func kind(_ kind: TraceKind) -> Happenings { self.kind(kind.rawValue) }

    /// Those whose field has this value (`with("reason", "userForceQuit")`).
    public func with(_ field: String, _ value: String) -> Happenings {
        Happenings(elements.filter { $0[field] == value })
    }

    /// Those before a time of day, on whatever day (`before(7, 30)`: up to 07:29:59).
    public func before(_ hour: Int, _ minute: Int = 0) -> Happenings {
        let limit = Time.hours(hour) + Time.minutes(minute)
        return Happenings(elements.filter { $0.timeOfDay < limit })
    }

    /// Those at or after a time of day, on whatever day.
    public func after(_ hour: Int, _ minute: Int = 0) -> Happenings {
        let limit = Time.hours(hour) + Time.minutes(minute)
        return Happenings(elements.filter { $0.timeOfDay >= limit })
    }

    /// Those on one day of the run (`on(day: 0)`: the start's day).
    public func on(day: Int) -> Happenings { Happenings(elements.filter { $0.day == day }) }

    /// Those on the chosen weekdays (`Recurrence.weekdays`, `.weekend`, `[0]` for Sundays).
    public func on(weekdays: Set<Int>) -> Happenings { Happenings(elements.filter { weekdays.contains($0.weekday) }) }

    /// The days of the run on which at least one happened.
    public var days: Set<Int> { Set(elements.map(\.day)) }

    // MARK: The usual questions

    /// BGTask starts of one identifier.
    public func taskStarts(_ identifier: String) -> Happenings { kind(.taskStart).with("identifier", identifier) }
    /// Launches of the app, any cause (narrow with `with("cause", "bgTask")`).
    public var launches: Happenings { kind(.launch) }
    /// The app's process ending, with its `reason` (`userForceQuit`, `watchdog`, `jetsam`, …).
    public var terminations: Happenings { kind(.terminate) }
    /// Terminations the person did not ask for: what a user would call a crash.
    public var kills: Happenings { Happenings(terminations.elements.filter { $0["reason"] != "userForceQuit" }) }
    /// Pushes delivered to the app.
    public var pushesDelivered: Happenings { kind(.pushDeliver) }
    /// Pushes the system held or dropped, with the reason.
    public var pushesDropped: Happenings { kind(.pushDrop) }
}

extension SimulatedDevice {
    /// What has happened to the app so far (its trace, ready to be asked about).
    public func happenings(of app: AppID) -> Happenings {
        let offset = engine.wallClockOffset
        let firstDay = engine.startEpochSeconds / 86_400
        return Happenings(events(of: app).map { event in
            let wall = event.time + offset
            let fields = renderer.fields(of: event).map { (name: $0.0, value: $0.1.text) }
            let day = Int(wall / Time.days(1))
            return Happening(kind: event.kindName, time: event.time, day: day, timeOfDay: wall % Time.days(1),
                             weekday: CivilDate.weekday(ofDay: firstDay + Int64(day)) - 1, fields: fields)
        })
    }
}
