import BGXCore

/// A scenario without `population:` in a fleet: each device still draws its
/// person from the defaults, but whatever the scenario itself says happens —
/// its `usage:` habits, its timeline's user actions and device changes —
/// happens on every device at the same moment, as if the fleet were copies
/// of one person. Usually that is an app's own scenario run as a fleet by
/// mistake, so `bgx fleet` says what every device will share.
public enum SharedWithoutPopulation {
    /// The warning for `scenario`, or nil when it has a `population:`.
    public static func warning(_ scenario: Scenario, devices: Int) -> String? {
        guard scenario.population == nil else { return nil }
        let shared = sharedThings(scenario)
        let what = shared.isEmpty ? "nothing but the scenario's start and apps" : shared.joined(separator: "; ")
        return "warning: \(scenario.file): no population: section — each of the \(devices) devices draws its person "
            + "from the default population, and every device shares \(what). Add a population: section and move "
            + "the person's habits into it (docs/scenarios.md, 'From an app's scenario to a fleet')."
    }

    /// What every device of the fleet does alike, in words.
    static func sharedThings(_ s: Scenario) -> [String] {
        var things: [String] = []
        let sessions = s.usage.flatMap { u in u.sessions.map { (u.app, $0.timeOfDay) } }
        if !sessions.isEmpty {
            let shown = sessions.prefix(3).map { "\($0.0) at \(clock($0.1))" }.joined(separator: ", ")
            things.append("its usage: habits (\(sessions.count) session(s) a day: \(shown)\(sessions.count > 3 ? ", …" : ""))")
        }
        var users: [(Nanoseconds, Scenario.UserCommand)] = []
        var deviceChanges = 0, pushes = 0, others = 0
        for entry in s.timeline {
            switch entry.event {
            case let .user(command): users.append((entry.at, command))
            case .device: deviceChanges += 1
            case .push: pushes += 1
            default: others += 1
            }
        }
        if !users.isEmpty {
            let shown = users.prefix(3).map { "\(words($0.1)) at \(clock($0.0 + Units.timeOfDay(of: s.start)))" }
                .joined(separator: ", ")
            things.append("its timeline's \(users.count) user action(s) (\(shown)\(users.count > 3 ? ", …" : ""))")
        }
        if deviceChanges > 0 { things.append("its timeline's \(deviceChanges) device change(s) (network, charging, …)") }
        if others > 0 { things.append("its timeline's \(others) other event(s) (location, accessory, debug, …)") }
        if pushes > 0 { things.append("its timeline's \(pushes) push(es), sent to every device like a campaign") }
        return things
    }

    static func clock(_ t: Nanoseconds) -> String {
        FleetResult.clock(Int(t % Time.days(1) / Time.minutes(1)))
    }

    static func words(_ c: Scenario.UserCommand) -> String {
        switch c {
        case let .launch(b): "launch \(b)"
        case .home: "home"
        case .lock: "lock"
        case .unlock: "unlock"
        case let .switchTo(b): "switchTo \(b)"
        case let .forceQuit(b): "forceQuit \(b)"
        case let .tapNotification(id): "tapNotification \(id)"
        case let .cancelTask(id): "cancelTask \(id)"
        case let .allowNotifications(b): "allowNotifications \(b)"
        case let .denyNotifications(b): "denyNotifications \(b)"
        }
    }
}
