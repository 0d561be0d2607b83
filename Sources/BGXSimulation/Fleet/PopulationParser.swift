import BGXCore
import Yams

/// The `population:` section. A distribution is written as one value
/// (`usesPerDay: 3`), a range (`useLength: {between: [20s, 2m]}`), or
/// values with percentage weights adding up to 100 (`network: {wifi: 25%,
/// cellular: 73%, none: 2%}`); a share is a percentage (`forceQuit: 15%`).
extension ScenarioParser {
    typealias PopulationKey = ScenarioKey<Population>

    /// A distribution of `population:`, read with `read` (nil: not `expected`).
    static func drawn<V>(_ name: String, _ path: WritableKeyPath<Population, Draw<V>>, _ expected: String, ranged: Bool,
                         _ read: @escaping (String) -> V?) -> PopulationKey {
        PopulationKey(name) { p, node, key, population in
            population[keyPath: path] = try p.draw(node, key, expected, ranged: ranged, read)
        }
    }

    /// A share of the population, a percentage (`forceQuit: 15%`).
    static func share(_ name: String, _ path: WritableKeyPath<Population, Double>) -> PopulationKey {
        PopulationKey(name) { p, node, key, population in population[keyPath: path] = try p.share(node, key) }
    }

    static let populationKeys = ScenarioSection<Population>(what: "population", keys: [
        PopulationKey("seed") { p, node, key, population in
            guard let s = UInt64(try p.scalar(node, key)) else { throw p.err(node, "\(key) must be a non-negative integer") }
            population.seed = s
        },
        drawn("usesPerDay", \.usesPerDay, "a whole number of uses from 0 to 100", ranged: true) {
            Int($0).flatMap { (0...100).contains($0) ? $0 : nil }
        },
        drawn("useHours", \.useHours, "a window of the day like 07:00-09:00", ranged: false) { Self.dayWindow($0) },
        drawn("useLength", \.useLength, "a duration between 1s and 12h", ranged: true) {
            Units.duration($0).flatMap { $0 >= Time.seconds(1) && $0 <= Time.hours(12) ? $0 : nil }
        },
        share("regularity", \.regularity),
        PopulationKey("wake") { p, node, key, population in population.wake = try p.timeOfDayDraw(node, key) },
        PopulationKey("bedtime") { p, node, key, population in population.bedtime = try p.timeOfDayDraw(node, key) },
        share("chargesAtNight", \.chargesAtNight),
        drawn("autoLock", \.autoLock, "a duration between 10s and 1h", ranged: true) {
            Units.duration($0).flatMap { $0 >= Time.seconds(10) && $0 <= Time.hours(1) ? $0 : nil }
        },
        drawn("network", \.network, "wifi, cellular or none", ranged: false) { DeviceState.Network(rawValue: $0) },
        share("homeWifi", \.homeWifi),
        share("lowPowerMode", \.lowPowerMode),
        share("backgroundAppRefreshOff", \.backgroundAppRefreshOff),
        share("forceQuit", \.forceQuit),
        drawn("memory", \.memory, "a size between 256MB and 64GB", ranged: true) {
            Units.size($0).flatMap { $0 >= 256 << 20 && $0 <= 64 << 30 ? $0 : nil }
        },
        drawn("otherApps", \.otherApps, "a whole number of apps from 0 to 20", ranged: true) {
            Int($0).flatMap { (0...20).contains($0) ? $0 : nil }
        },
        drawn("pushSpread", \.pushSpread, "a duration from 0s to 1d", ranged: true) {
            Units.duration($0).flatMap { $0 >= 0 && $0 <= Time.days(1) ? $0 : nil }
        },
    ])
    /// The range form of a distribution.
    static let distributionKeys = ["between"]

    func population(_ node: Node) throws -> Population {
        var p = Population(location: location(node))
        try read(Self.populationKeys, node, into: &p)
        return p
    }

    /// `07:00-09:00`; a window may run past midnight (`22:00-01:00`).
    static func dayWindow(_ text: String) -> DayWindow? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Units.timeOfDay(String(parts[0])) else { return nil }
        let to: Nanoseconds
        if parts[1] == "24:00" { to = Time.days(1) } else {
            guard let t = Units.timeOfDay(String(parts[1])) else { return nil }
            to = t <= from ? t + Time.days(1) : t
        }
        return DayWindow(from: from, to: to)
    }

    func share(_ node: Node, _ what: String) throws -> Double {
        let text = try scalar(node, what)
        guard let v = Units.percent(text) else { throw err(node, "\(what) must be a percentage 0–100%, got '\(text)'") }
        return Double(v) / 100
    }

    /// A time of day; a range may run past midnight (`{between: ["22:00", "00:30"]}`).
    func timeOfDayDraw(_ node: Node, _ what: String) throws -> Draw<Nanoseconds> {
        let d = try draw(node, what, "a time of day like 07:30", ranged: true) { Units.timeOfDay($0) }
        if case let .between(lo, hi) = d, hi < lo { return .between(lo, hi + Time.days(1)) }
        return d
    }

    /// One value, `{between: [LO, HI]}` (when `ranged`), or `{VALUE: N%, …}` adding up to 100%.
    func draw<V>(_ node: Node, _ what: String, _ expected: String, ranged: Bool,
                 _ read: (String) -> V?) throws -> Draw<V> {
        func value(_ n: Node) throws -> V {
            let text = try scalar(n, what)
            guard let v = read(text) else { throw err(n, "\(what): '\(text)' is not \(expected)") }
            return v
        }
        guard case .mapping = node else { return .fixed(try value(node)) }
        let m = try mapping(node, what, known: nil)
        if let rangeNode = m["between"] {
            guard ranged else { throw err(m.keyNodes["between"], "\(what) is drawn from weighted values, not a range") }
            guard m.ordered.count == 1 else { throw err(node, "\(what): 'between' stands alone") }
            let bounds = try sequence(rangeNode, "between")
            guard bounds.count == 2 else { throw err(rangeNode, "'between' is [LOW, HIGH]") }
            return .between(try value(bounds[0]), try value(bounds[1]))
        }
        var weighted: [(V, Double)] = []
        var total = 0
        for (_, weightNode) in m.ordered {
            let text = try scalar(weightNode, "a weight")
            guard let w = Units.percent(text) else {
                throw err(weightNode, "\(what): a weight must be a percentage 0–100%, got '\(text)'")
            }
            total += w
        }
        for (k, weightNode) in m.ordered {
            weighted.append((try value(m.keyNodes[k]!), Double(Units.percent(try scalar(weightNode, "a weight"))!)))
        }
        guard !weighted.isEmpty else { throw err(node, "\(what) needs at least one value") }
        guard total == 100 else { throw err(node, "\(what): the weights add up to \(total)%, not 100%") }
        return .weighted(weighted)
    }
}
