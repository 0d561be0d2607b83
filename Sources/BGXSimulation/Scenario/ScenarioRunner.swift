import BGXCore
import Foundation

/// Runs a scenario on a simulated device: installs its apps, expands the
/// person's habits into user actions, plays the timeline, checks `expect:`.
public final class ScenarioRun {
    public let scenario: Scenario
    public let device: SimulatedDevice
    public private(set) var results: [ExpectationResult] = []

    /// Features of later issues the scenario uses, as errors: `bgx run`
    /// refuses to pretend it simulated them.
    public static func unsupportedFeatures(_ scenario: Scenario) -> [ScenarioError] {
        var errors: [ScenarioError] = []
        for app in scenario.apps {
            for (handler, actions) in app.handlers.sorted(by: { $0.key.description < $1.key.description }) {
                if case let .unsupported(name) = handler {
                    let word = name.split(separator: " ").first.map(String.init) ?? name
                    let feature = ScenarioParser.futureHandlers[word]?.feature ?? name
                    errors.append(ScenarioError(actions.first?.location ?? app.location,
                                                "not yet supported: the '\(name)' handler (\(feature))"))
                }
                for a in actions {
                    if case let .unsupported(name, _, _) = a.action {
                        errors.append(ScenarioError(a.location, "not yet supported: the '\(name)' action ("
                                                    + (ScenarioParser.futureActions[name] ?? "a later issue") + ")"))
                    }
                }
            }
        }
        return errors.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
    }

    /// Prepares the run (no time passes yet). Throws the first unsupported feature.
    public init(_ scenario: Scenario, seed: UInt64? = nil, keepsTrace: Bool = true) throws {
        if let first = Self.unsupportedFeatures(scenario).first { throw first }
        self.scenario = scenario
        device = SimulatedDevice(profile: scenario.profile, device: scenario.device,
                                 seed: seed ?? scenario.seed, startDate: scenario.start)
        device.keepsTrace = keepsTrace
        for spec in scenario.apps {
            let app = device.install(spec.manifest, program: { ScenarioApp(spec: spec) })
            if let preset = spec.notifications { device.withEngine { $0.presetNotificationAuthorization(preset, for: app) } }
        }
        // Which app permits an identifier, made once and only if a `debug:` entry asks.
        var permitting: [String: String]?
        for entry in scenario.timeline {
            switch entry.event {
            case let .user(command): device.schedule(.user(userAction(command)), at: entry.at)
            case let .device(changes): for c in changes { device.schedule(.device(c), at: entry.at) }
            case let .location(meters): device.schedule(.locationMove(meters: meters), at: entry.at)
            case let .accessory(bundle, transport): device.schedule(.accessoryData(device.app(bundle)!, transport), at: entry.at)
            case let .push(bundle, push): device.schedule(.push(device.app(bundle)!, push), at: entry.at)
            case let .voipSocket(bundle): device.schedule(.voipSocketTraffic(device.app(bundle)!), at: entry.at)
            case let .debug(command, bundle):
                if permitting == nil { permitting = Self.appsByPermittedIdentifier(scenario) }
                guard let app = (bundle ?? permitting?[command.identifier]).flatMap({ device.app($0) }) else {
                    throw ScenarioError(entry.location, "no app permits the task identifier '\(command.identifier)'; "
                                        + "name one with 'app:'")
                }
                let id = device.withEngine { $0.intern(command.identifier) }
                switch command {
                case .simulateLaunch: device.schedule(.simulateLaunch(app, identifier: id), at: entry.at)
                case .simulateExpiration: device.schedule(.simulateExpiration(app, identifier: id), at: entry.at)
                }
            }
        }
        for usage in scenario.usage {
            device.scheduleDailyUse(of: device.app(usage.app)!, sessions: usage.sessions, until: scenario.duration)
        }
    }

    /// The app named, else the first that permits `identifier`.
    public static func app(for identifier: String, named bundle: String?, in scenario: Scenario) -> String? {
        if let bundle { return bundle }
        return scenario.apps.first { $0.manifest.permittedTaskIdentifiers.contains(identifier) }?.manifest.bundleIdentifier
    }

    /// Each task identifier's app: the first that permits it.
    static func appsByPermittedIdentifier(_ scenario: Scenario) -> [String: String] {
        var map: [String: String] = [:]
        for app in scenario.apps {
            for id in app.manifest.permittedTaskIdentifiers where map[id] == nil { map[id] = app.manifest.bundleIdentifier }
        }
        return map
    }

    func userAction(_ command: Scenario.UserCommand) -> UserAction {
        switch command {
        case let .launch(b): .launch(device.app(b)!)
        case let .switchTo(b): .switchTo(device.app(b)!)
        case let .forceQuit(b): .forceQuit(device.app(b)!)
        case .home: .home
        case .lock: .lock
        case .unlock: .unlock
        case let .tapNotification(id): .tapNotification(device.withEngine { $0.internNotification(id) })
        case let .cancelTask(id): .cancelTask(device.withEngine { $0.internText(id) })
        case let .allowNotifications(b): .allowNotifications(device.app(b)!)
        case let .denyNotifications(b): .denyNotifications(device.app(b)!)
        }
    }

    /// Runs up to a moment (for `explain`); expectations are not checked.
    public func run(until time: Nanoseconds) {
        device.run(until: min(time, scenario.duration))
    }

    /// The scenario's start time of day, for reading `--at` times.
    public var startOffset: Nanoseconds {
        device.engine.wallClockOffset
    }

    /// Runs to the scenario's end and checks its expectations.
    public func run() {
        device.run(until: scenario.duration)
        // The trace by kind, once: each expectation then looks only at its own kind's events.
        var byKind: [String: [Int]] = [:]
        if !scenario.expectations.isEmpty {
            for (k, event) in device.trace.enumerated() { byKind[event.kindName, default: []].append(k) }
        }
        results = scenario.expectations.map { check($0, among: byKind[$0.kind] ?? []) }
    }

    public var passed: Bool { results.allSatisfy(\.passed) }

    func check(_ e: Expectation, among indices: [Int]) -> ExpectationResult {
        let renderer = device.renderer
        let appID = e.app.flatMap { device.app($0) }
        var matches: [Nanoseconds] = []
        for k in indices {
            let event = device.trace[k]
            if let appID, event.app != appID { continue }
            if let (from, to) = e.between, event.time < from || event.time > to { continue }
            if !e.fields.isEmpty {
                let fields = renderer.fields(of: event)
                let ok = e.fields.allSatisfy { wanted in
                    fields.contains { $0.0 == wanted.name && Self.matches($0.1, wanted.value) }
                }
                if !ok { continue }
            }
            matches.append(event.time)
        }
        let passed = e.count.map { matches.count == $0 } ?? !matches.isEmpty
        var message = "\(e.text): "
        if let count = e.count {
            message += "expected \(count), found \(matches.count)"
        } else {
            message += matches.isEmpty ? "expected at least one, found none" : "found \(matches.count)"
        }
        // The moment as the scenario writes it (`0d 23:30`), not seconds from the start.
        if let first = matches.first { message += " (first at \(device.engine.momentText(first)))" }
        return ExpectationResult(expectation: e, passed: passed, matches: matches.count, message: message)
    }

    static func matches(_ field: TraceField, _ wanted: String) -> Bool {
        switch field {
        case let .string(s): return s == wanted
        case let .bool(b): return (b ? "true" : "false") == wanted
        case let .number(n): return Double(wanted) == n
        }
    }
}

public struct ExpectationResult: Sendable {
    public var expectation: Expectation
    public var passed: Bool
    public var matches: Int
    public var message: String
}
