import BGXCore

/// Turns a scenario with a `population:` into device i's own scenario: the
/// person and phone drawn for it, their days written as timeline entries
/// (waking, uses, Auto-Lock, bedtime on the charger, the network moving
/// between home Wi-Fi and the day's), beside the scenario's own timeline
/// (a push campaign in it reaches every device).
public struct DeviceSampler: Sendable {
    public let scenario: Scenario
    public let population: Population
    public let fleetSeed: UInt64
    public let days: Int
    /// The apps the fleet reports on (the scenario's own).
    public let bundles: [String]
    /// Apps the population adds beside the scenario's (`otherApps`).
    let others: [ScenarioApp.Spec]

    /// What was drawn for one device: the sampled population's rows.
    public struct Person: Sendable {
        public var seed: UInt64
        public var memory: Int64
        public var lowPowerMode: Bool
        public var backgroundAppRefreshOff: Bool
        public var forceQuits: Bool
        public var chargesAtNight: Bool
        public var homeWifi: Bool
        public var wake: Nanoseconds
        public var bedtime: Nanoseconds
        public var usesPerDay: [Int]
        public var otherApps: Int
        public var dayNetworks: [DeviceState.Network]
    }

    public init(_ scenario: Scenario, days: Int? = nil) throws {
        self.scenario = scenario
        population = scenario.population ?? Population(location: SourceLocation(file: scenario.file, line: 1, column: 1))
        fleetSeed = population.seed ?? scenario.seed
        self.days = days ?? max(1, Int((scenario.duration + Time.days(1) - 1) / Time.days(1)))
        bundles = scenario.apps.filter { $0.manifest.extensionOf == nil }.map(\.manifest.bundleIdentifier)
        let most: Int
        switch population.otherApps {
        case let .fixed(n): most = n
        case let .between(a, b): most = max(a, b)
        case let .weighted(c): most = c.map(\.0).max() ?? 0
        }
        others = try Self.otherApps(most, file: scenario.file)
    }

    /// An app that refreshes in the background like most: registers, submits
    /// a refresh each time it leaves the screen, works 2 s when it runs.
    static func otherApps(_ n: Int, file: String) throws -> [ScenarioApp.Spec] {
        guard n > 0 else { return [] }
        var yaml = "apps:\n"
        for k in 0..<n {
            let b = "population.other\(k)"
            yaml += """
              - bundle: \(b)
                backgroundModes: [fetch]
                permittedTaskIdentifiers: [\(b).refresh]
                memory: 120MB
                on:
                  didFinishLaunching: [{register: \(b).refresh}]
                  didEnterBackground: [{submit: {identifier: \(b).refresh, type: appRefresh, earliestBegin: 30m}}]
                  task \(b).refresh: [{work: 2s}, {submit: {identifier: \(b).refresh, type: appRefresh, earliestBegin: 30m}}, {complete: true}]

            """
        }
        return try ScenarioParser(file: file).parse(yaml).apps
    }

    /// Device `index`'s scenario and what was drawn for it.
    public func device(_ index: Int) -> (Scenario, Person) {
        let seed = FleetRandom.deviceSeed(fleetSeed: fleetSeed, device: index)
        var rng = FleetRandom(seed: seed)
        let p = population
        var s = scenario
        s.seed = seed
        s.duration = Time.days(days)
        s.population = nil
        s.expectations = []
        var person = Person(seed: seed, memory: rng.size(p.memory), lowPowerMode: rng.chance(p.lowPowerMode),
                            backgroundAppRefreshOff: rng.chance(p.backgroundAppRefreshOff),
                            forceQuits: rng.chance(p.forceQuit), chargesAtNight: rng.chance(p.chargesAtNight),
                            homeWifi: rng.chance(p.homeWifi), wake: rng.duration(p.wake), bedtime: rng.duration(p.bedtime),
                            usesPerDay: [], otherApps: rng.count(p.otherApps), dayNetworks: [])
        person.otherApps = min(person.otherApps, others.count)
        if person.bedtime <= person.wake { person.bedtime += Time.days(1) }
        s.device.memory = person.memory
        s.device.lowPowerMode = person.lowPowerMode
        s.device.backgroundAppRefresh = !person.backgroundAppRefreshOff
        s.apps += others.prefix(person.otherApps)

        let here = p.location
        let startOffset = Units.timeOfDay(of: scenario.start)
        var entries: [Scenario.TimelineEntry] = []
        func at(_ day: Int, _ timeOfDay: Nanoseconds, _ event: Scenario.TimelineEntry.Event) {
            let t = Time.days(day) + timeOfDay - startOffset
            guard t >= 0, t <= s.duration else { return }
            entries.append(Scenario.TimelineEntry(at: t, event: event, location: here))
        }
        let home: DeviceState.Network = person.homeWifi ? .wifi : .cellular
        let evening = Time.hours(18)
        // The start: asleep (locked, on the charger, at home) or awake.
        let awake = (person.wake..<person.bedtime).contains(startOffset)
            || (person.wake..<person.bedtime).contains(startOffset + Time.days(1))
        let asleep = !awake
        s.device.network = asleep || startOffset >= evening ? home : s.device.network
        if asleep {
            s.device.charging = person.chargesAtNight
            entries.append(Scenario.TimelineEntry(at: 0, event: .user(.lock), location: here))
        }

        // Habits: each app's uses at habitual moments.
        let apps = bundles.map { b in (b, rng.count(p.usesPerDay)) }
        person.usesPerDay = apps.map(\.1)
        let habits = apps.map { app in (0..<app.1).map { _ in rng.moment(in: p.useHours) } }
        let window = Time.minutes(10)
        for day in 0...days {
            let network = rng.choice(p.network)
            if day < days { person.dayNetworks.append(network) }
            at(day, person.wake, .user(.unlock))
            at(day, person.wake, .device([.charging(false), .network(network)]))
            at(day, evening, .device([.network(home)]))
            // The day's uses, in order, none starting before the last has ended and the phone locked.
            var uses: [(start: Nanoseconds, length: Nanoseconds, app: String, forceQuit: Bool)] = []
            for (k, app) in apps.enumerated() {
                for habit in habits[k] {
                    let moment = rng.chance(p.regularity)
                        ? habit + Nanoseconds((rng.unit() * 2 - 1) * Double(window))
                        : rng.moment(in: p.useHours)
                    uses.append((max(0, moment), rng.duration(p.useLength), app.0, person.forceQuits))
                }
            }
            for other in others.prefix(person.otherApps) {
                uses.append((rng.moment(in: p.useHours), rng.duration(p.useLength), other.manifest.bundleIdentifier, false))
            }
            uses.sort { ($0.start, $0.app) < ($1.start, $1.app) }
            var free: Nanoseconds = 0
            for use in uses {
                let start = max(use.start, free)
                let end = start + use.length
                let lock = end + rng.duration(p.autoLock)
                at(day, start, .user(.launch(use.app)))
                at(day, end, .user(.home))
                if use.forceQuit { at(day, end + Time.seconds(2), .user(.forceQuit(use.app))) }
                at(day, lock, .user(.lock))
                free = lock + Time.seconds(1)
            }
            at(day, person.bedtime, .user(.lock))
            if person.chargesAtNight { at(day, person.bedtime, .device([.charging(true)])) }
        }
        // A staggered campaign: each push of the timeline later by its own draw.
        if case .fixed(0) = p.pushSpread {} else {
            for k in s.timeline.indices {
                guard case .push = s.timeline[k].event else { continue }
                s.timeline[k].at = min(s.duration, s.timeline[k].at + rng.duration(p.pushSpread))
            }
        }
        // The scenario's own timeline first at equal times, then the person's, in time order.
        s.timeline = (s.timeline.map { ($0, 0) } + entries.map { ($0, 1) }).enumerated()
            .sorted { ($0.element.0.at, $0.element.1, $0.offset) < ($1.element.0.at, $1.element.1, $1.offset) }
            .map(\.element.0)
        return (s, person)
    }
}
