import BGXCore
import Yams

/// `usage:` and `timeline:` — what the person and the world do — with the
/// inputs a timeline entry may carry and the person's actions, each declared once.
extension ScenarioParser {
    // MARK: usage

    typealias UsageKey = ScenarioKey<(usage: Scenario.Usage, bundles: KnownApps)>

    static let usageKeys = ScenarioSection<(usage: Scenario.Usage, bundles: KnownApps)>(what: "a usage entry", keys: [
        UsageKey("app", needed: { "a usage entry needs '\($0):'" }) { p, node, _, d in d.usage.app = try p.bundle(node, d.bundles) },
        UsageKey("daily", needed: { "a usage entry needs '\($0):' sessions like \"08:00 5m\"" }) { p, node, key, d in
            for s in try p.sequence(node, key) {
                let text = try p.scalar(s, "a session")
                let parts = text.split(separator: " ")
                guard parts.count == 2, let tod = Units.timeOfDay(String(parts[0])),
                      let length = Units.duration(String(parts[1])), length > 0 else {
                    throw p.err(s, "a daily session is \"HH:MM DURATION\" like \"08:00 5m\", got '\(text)'")
                }
                d.usage.sessions.append((tod, length))
            }
        },
    ], declaredOrder: true)

    func usage(_ node: Node, bundles: KnownApps) throws -> Scenario.Usage {
        var d = (usage: Scenario.Usage(app: "", sessions: [], location: location(node)), bundles: bundles)
        try read(Self.usageKeys, node, into: &d)
        return d.usage
    }

    // MARK: timeline

    /// What an input of a timeline entry is read with.
    struct TimelineInput {
        let bundles: KnownApps
        let context: MomentContext
    }

    typealias TimelineEvent = ScenarioWord<(ScenarioParser, Node, String, TimelineInput) throws -> Scenario.TimelineEntry.Event>

    /// When an entry happens: `at:`, and when it recurs `every:`, `from:`, `for:` (RecurringEntries).
    static let timelineMoments = ["at", "every", "from", "for"]

    /// What an entry does: exactly one of these.
    static let timelineEvents: [TimelineEvent] = [
        TimelineEvent("user") { p, node, _, t in
            .user(try p.userCommand(node, bundles: t.bundles, notificationIDs: t.context.notificationIDs))
        },
        TimelineEvent("device") { p, node, _, t in
            .device(try p.deviceSettings(node, into: DeviceState(), allowReboot: true, t.context).1)
        },
        TimelineEvent("push") { p, node, _, t in try p.pushEntry(node, bundles: t.bundles) },
        TimelineEvent("voipSocket") { p, node, key, t in .voipSocket(try p.appOf(node, key, t.bundles)) },
        TimelineEvent("location") { p, node, _, _ in
            var meters: Int64 = 0
            try p.read(Self.locationMoveKeys, node, into: &meters)
            return .location(meters: meters)
        },
        TimelineEvent("accessory") { p, node, key, t in .accessory(try p.appOf(node, key, t.bundles), .accessory) },
        TimelineEvent("bluetooth") { p, node, key, t in .accessory(try p.appOf(node, key, t.bundles), .bluetooth) },
        TimelineEvent("network") { p, node, _, _ in
            var change = DeviceChange.bandwidth(0)
            try p.read(Self.networkSpeedKeys, node, into: &change)
            return .device([change])
        },
        TimelineEvent("debug") { p, node, _, t in try p.debugCommand(node, bundles: t.bundles) },
    ]
    static let futureTimeline: [String: String] = [:]
    static let timelineKeys = timelineMoments + timelineEvents.map(\.name) + Array(futureTimeline.keys).sorted()

    /// One timeline entry, or a recurring one (`every:`) as an entry for each of its moments.
    func timelineEntries(_ node: Node, bundles: KnownApps, _ context: MomentContext,
                         into timeline: inout [Scenario.TimelineEntry]) throws {
        let m = try mapping(node, "a timeline entry", known: Self.timelineKeys)
        guard let atNode = m["at"] else { throw err(node, "a timeline entry needs 'at:'") }
        let event = try timelineEvent(node, m, bundles: bundles, context)
        guard m["every"] != nil else {
            for key in ["from", "for"] where m[key] != nil {
                throw err(m.keyNodes[key]!, "'\(key):' belongs to a recurring entry, with 'every:'")
            }
            let at = try moment(atNode, "at", context)
            guard at <= context.duration else {
                throw err(atNode, "at: \(try scalar(atNode, "at")) is after the scenario ends at "
                          + "\(Time.wallClock(context.startOffset + context.duration)) (duration \(Time.describe(context.duration)))")
            }
            timeline.append(Scenario.TimelineEntry(at: at, event: event, location: location(node)))
            return
        }
        let moments = try recurrence(m, context)
        guard timeline.count + moments.count <= limits.timelineEntries else {
            throw err(m.keyNodes["every"]!, "this recurring entry makes \(moments.count) entries, more than the "
                      + "\(limits.timelineEntries) timeline entries bgx reads")
        }
        for at in moments { timeline.append(Scenario.TimelineEntry(at: at, event: event, location: location(node))) }
    }

    func timelineEvent(_ node: Node, _ m: Mapping, bundles: KnownApps, _ context: MomentContext) throws -> Scenario.TimelineEntry.Event {
        let others = m.ordered.filter { !Self.timelineMoments.contains($0.0) }
        guard others.count == 1, let (key, value) = others.first else {
            throw err(node, "a timeline entry has 'at:' (with 'every:', 'from:', 'for:' when it recurs) and exactly one "
                      + "of \(Self.timelineEvents.map { $0.name + ":" }.joined(separator: ", "))")
        }
        if let feature = Self.futureTimeline[key] {
            throw err(m.keyNodes[key]!, "not yet supported: \(feature)")
        }
        // `mapping` let only the timeline's keys through.
        return try Self.timelineEvents.word(key)!.read(self, value, key, TimelineInput(bundles: bundles, context: context))
    }

    /// `voipSocket: {app}`, `accessory: {app}`, `bluetooth: {app}`: the app the input is for.
    func appOf(_ node: Node, _ input: String, _ bundles: KnownApps) throws -> String {
        var app = ""
        try read(ScenarioSection<String>(what: input, keys: [
            ScenarioKey("app", needed: { "'\(input)' needs {\($0): BUNDLE}" }) { p, node, _, a in a = try p.bundle(node, bundles) },
        ]), node, into: &app)
        return app
    }

    /// `location: {moveMeters: N}`: the device moves N metres along its route (negative: back).
    static let locationMoveKeys = ScenarioSection<Int64>(what: "location", keys: [
        ScenarioKey("moveMeters", needed: { "'location' needs {\($0): N}" }) { p, node, key, meters in
            let text = try p.scalar(node, key)
            let digits = text.hasSuffix("m") ? String(text.dropLast()) : text
            guard let v = Int64(digits), v != 0, v.magnitude <= 40_000_000 else {
                throw p.err(node, "\(key) must be a whole number of metres other than 0 (negative: back), got '\(text)'")
            }
            meters = v
        },
    ])

    /// `network: {transferSpeed: 500KB/s}`: the speed transfers share (rules §8).
    static let networkSpeedKeys = ScenarioSection<DeviceChange>(what: "network", keys: [
        ScenarioKey("transferSpeed", needed: { "'network' needs \($0): RATE (like 500KB/s)" }) { p, node, key, change in
            let text = try p.scalar(node, key)
            guard let v = Units.bandwidth(text), v > 0 else {
                throw p.err(node, "\(key) must be a rate like 2MB/s, got '\(text)'")
            }
            change = .bandwidth(v)
        },
    ])

    struct PushReading {
        var app = ""
        var push = Push(type: .background, priority: 10)
        let bundles: KnownApps
    }

    typealias PushKey = ScenarioKey<PushReading>

    /// `push: {app, type: background|alert|voip, priority: 5|10}`. Without a
    /// priority, APNs uses 10 — for a background push that is the classic
    /// mistake (rules §7), so it is not papered over here.
    static let pushKeys = ScenarioSection<PushReading>(what: "push", keys: [
        PushKey("app", needed: { "a push needs '\($0):'" }) { p, node, _, d in d.app = try p.bundle(node, d.bundles) },
        PushKey("type") { p, node, key, d in
            let name = try p.scalar(node, key)
            guard let v = PushType.allCases.first(where: { $0.description == name }) else {
                throw p.unknown(node, "push type", name, PushType.allCases.map(\.description))
            }
            d.push.type = v
        },
        PushKey("priority") { p, node, key, d in
            let v = try p.scalar(node, key)
            guard v == "5" || v == "10" else { throw p.err(node, "a push's \(key) is 5 or 10, got '\(v)'") }
            d.push.priority = UInt8(v)!
        },
    ], declaredOrder: true)

    func pushEntry(_ node: Node, bundles: KnownApps) throws -> Scenario.TimelineEntry.Event {
        var d = PushReading(bundles: bundles)
        try read(Self.pushKeys, node, into: &d)
        return .push(d.app, d.push)
    }

    struct DebugReading {
        var command: Scenario.DebugCommand?
        var app: String?
        let bundles: KnownApps
    }

    typealias DebugKey = ScenarioKey<DebugReading>

    /// One of the debugger's commands.
    static func debugCommand(_ name: String, _ make: @escaping (String) -> Scenario.DebugCommand) -> DebugKey {
        DebugKey(name) { p, node, key, d in d.command = make(try p.scalar(node, key)) }
    }

    /// `debug: {simulateLaunch: ID}` / `{simulateExpiration: ID}`, optionally with `app:`.
    static let debugKeys = ScenarioSection<DebugReading>(what: "debug", keys: [
        debugCommand("simulateLaunch", Scenario.DebugCommand.simulateLaunch),
        debugCommand("simulateExpiration", Scenario.DebugCommand.simulateExpiration),
        DebugKey("app") { p, node, _, d in d.app = try p.bundle(node, d.bundles) },
    ])
    static let debugApp = debugKeys.names.last!
    static var debugUse: String {
        "debug takes one of " + debugKeys.names.filter { $0 != debugApp }.map { "\($0): ID" }.joined(separator: " or ")
    }

    func debugCommand(_ node: Node, bundles: KnownApps) throws -> Scenario.TimelineEntry.Event {
        // One command, checked before any value is read.
        let m = try mapping(node, Self.debugKeys.what, known: Self.debugKeys.names)
        guard m.ordered.filter({ $0.0 != Self.debugApp }).count == 1 else { throw err(node, Self.debugUse) }
        var d = DebugReading(bundles: bundles)
        try read(Self.debugKeys, node, into: &d)
        return .debug(d.command!, app: d.app)
    }

    // MARK: user

    /// What a user action reads: its argument, if it takes one.
    enum UserForm {
        case alone(Scenario.UserCommand)
        case app((String) -> Scenario.UserCommand)
        /// The argument's description (`a notification id`), how it is written, and what it makes.
        case other(String, String, (ScenarioParser, Node, _ argument: String, _ notificationIDs: Set<String>) throws
                   -> Scenario.UserCommand)
    }

    static let userCommands: [ScenarioWord<UserForm>] = [
        .init("launch", .app(Scenario.UserCommand.launch)),
        .init("home", .alone(.home)),
        .init("lock", .alone(.lock)),
        .init("unlock", .alone(.unlock)),
        .init("switchTo", .app(Scenario.UserCommand.switchTo)),
        .init("forceQuit", .app(Scenario.UserCommand.forceQuit)),
        .init("tapNotification", .other("a notification id", "ID") { p, node, id, ids in
            guard ids.contains(id) else {
                throw p.unknown(node, "notification id (no 'notify' action schedules it)", id, ids.sorted())
            }
            return .tapNotification(id)
        }),
        .init("cancelTask", .other("a continued-processing task identifier", "IDENTIFIER") { _, _, id, _ in .cancelTask(id) }),
        .init("allowNotifications", .app(Scenario.UserCommand.allowNotifications)),
        .init("denyNotifications", .app(Scenario.UserCommand.denyNotifications)),
    ]

    func userCommand(_ node: Node, bundles: KnownApps, notificationIDs: Set<String>) throws -> Scenario.UserCommand {
        let text = try scalar(node, "user")
        let words = text.split(separator: " ").map(String.init)
        guard let verb = words.first else { throw err(node, "an empty user action") }
        guard let command = Self.userCommands.word(verb) else {
            throw unknown(node, "user action", verb, Self.userCommands.map(\.name))
        }
        switch command.read {
        case let .alone(c):
            guard words.count == 1 else { throw err(node, "'\(verb)' takes no argument") }
            return c
        case let .app(make):
            guard words.count == 2 else { throw err(node, "'\(verb)' needs an app: '\(verb) BUNDLE'") }
            guard bundles.contains(words[1]) else { throw unknown(node, "app", words[1], bundles.names) }
            return make(words[1])
        case let .other(what, written, make):
            guard words.count == 2 else { throw err(node, "'\(verb)' needs \(what): '\(verb) \(written)'") }
            return try make(self, node, words[1], notificationIDs)
        }
    }
}
