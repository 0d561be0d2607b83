import BGXCore
import Yams

/// The scenario's top-level keys, read in the order declared: the clock
/// before the device, the apps before what names them.
extension ScenarioParser {
    struct TopReading {
        var scenario: Scenario
        var bundles = KnownApps(names: [])
        /// Every id a `notify` action names (what `tapNotification` may name).
        var notificationIDs: Set<String> = []

        var context: MomentContext {
            MomentContext(startOffset: Units.timeOfDay(of: scenario.start), duration: scenario.duration,
                          start: scenario.start, profile: scenario.profile, notificationIDs: notificationIDs)
        }
    }

    typealias TopKey = ScenarioKey<TopReading>

    static let topKeys = ScenarioSection<TopReading>(what: "the scenario", keys: [
        TopKey("profile") { p, node, key, d in
            let name = try p.scalar(node, key)
            guard let profile = PolicyProfile.named(name) else {
                throw p.unknown(node, key, name, PolicyProfile.all.map(\.name))
            }
            d.scenario.profile = profile
        },
        TopKey("seed") { p, node, key, d in
            guard let s = UInt64(try p.scalar(node, key)) else { throw p.err(node, "\(key) must be a non-negative integer") }
            d.scenario.seed = s
        },
        TopKey("start") { p, node, key, d in
            let s = try p.scalar(node, key)
            guard let date = Self.parseStart(s) else {
                throw p.err(node, "\(key) must be a date and time like 2026-01-05T00:00:00, got '\(s)'")
            }
            d.scenario.start = date
        },
        TopKey("duration") { p, node, key, d in
            let length = try p.duration(node, key)
            guard length > 0 else { throw p.err(node, "\(key) must be longer than 0") }
            d.scenario.duration = length
        },
        TopKey("device") { p, node, _, d in
            d.scenario.device = try p.deviceSettings(node, into: d.scenario.device, allowReboot: false, d.context).0
        },
        TopKey("apps", needed: { "the scenario has no '\($0):' list" }) { p, node, key, d in try p.apps(node, key, into: &d) },
        TopKey("usage") { p, node, key, d in
            for entry in try p.entries(node, key, "usage entries") {
                d.scenario.usage.append(try p.usage(entry, bundles: d.bundles))
            }
        },
        TopKey("timeline") { p, node, key, d in
            let context = d.context
            for entry in try p.entries(node, key, "timeline entries") {
                try p.timelineEntries(entry, bundles: d.bundles, context, into: &d.scenario.timeline)
            }
        },
        TopKey("population") { p, node, _, d in d.scenario.population = try p.population(node) },
        TopKey("loadtest") { p, node, _, d in d.scenario.loadTest = try p.loadTest(node, bundles: d.bundles) },
        TopKey("expect") { p, node, key, d in
            let context = d.context
            for entry in try p.entries(node, key, "expectations") {
                d.scenario.expectations.append(try p.expectation(entry, bundles: d.bundles, context))
            }
        },
    ], declaredOrder: true)

    /// A list of at most `limits.timelineEntries` entries.
    func entries(_ node: Node, _ key: String, _ what: String) throws -> [Node] {
        let entries = try sequence(node, key)
        if entries.count > limits.timelineEntries {
            throw err(entries[limits.timelineEntries], "too many \(what): bgx reads at most \(limits.timelineEntries)")
        }
        return entries
    }

    /// `apps:`, and what the apps name of each other (`extensionOf`) and of themselves (notification ids).
    func apps(_ appsNode: Node, _ key: String, into d: inout TopReading) throws {
        var listed: Set<String> = []
        let appNodes = try sequence(appsNode, key)
        if appNodes.count > limits.apps {
            throw err(appNodes[limits.apps], "too many apps: bgx runs at most \(limits.apps) in one scenario")
        }
        let context = d.context
        for appNode in appNodes {
            let spec = try app(appNode, context, device: d.scenario.device)
            guard listed.insert(spec.manifest.bundleIdentifier).inserted else {
                throw err(appNode, "app '\(spec.manifest.bundleIdentifier)' is listed twice")
            }
            d.scenario.apps.append(spec)
        }
        d.bundles = KnownApps(names: d.scenario.apps.map(\.manifest.bundleIdentifier))
        d.notificationIDs = Set(d.scenario.apps.flatMap { $0.handlers.values.flatMap { $0 } }.compactMap {
            if case let .notify(n) = $0.action { n.id } else { nil }
        })
        for (spec, node) in zip(d.scenario.apps, appNodes) {
            guard let host = spec.manifest.extensionOf else { continue }
            let at = (try? mapping(node, "an app", known: nil))?.keyNodes["extensionOf"] ?? node
            guard d.bundles.contains(host), host != spec.manifest.bundleIdentifier else {
                throw unknown(at, "containing app", host, d.bundles.names.filter { $0 != spec.manifest.bundleIdentifier })
            }
        }
    }
}
