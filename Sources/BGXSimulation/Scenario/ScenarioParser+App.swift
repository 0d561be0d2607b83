import BGXCore
import Yams

/// An app of `apps:` — its manifest (or its `infoPlist:`), its handlers, its
/// plugin; keys read in the order declared, since later ones read earlier ones.
extension ScenarioParser {
    struct AppReading {
        var spec: ScenarioApp.Spec
        var written = Mapping()
        let context: MomentContext
        let device: DeviceState
    }

    typealias AppKey = ScenarioKey<AppReading>

    /// A key the app's Info.plist says when it has one (`infoPlist:`).
    static func manifestKey(_ name: String, _ read: @escaping AppKey.Read) -> AppKey {
        AppKey(name) { p, node, key, d in
            if let plist = d.spec.infoPlist {
                throw p.err(d.written.keyNodes[key], "'\(key)' is read from the app's Info.plist (\(plist)); write it in one place")
            }
            try read(p, node, key, &d)
        }
    }

    static let appKeys = ScenarioSection<AppReading>(what: "an app", keys: [
        AppKey("bundle", needed: { "an app needs a '\($0):' identifier" }) { p, node, key, d in
            let bundle = try p.scalar(node, key)
            guard !bundle.isEmpty, !bundle.contains(where: { $0.isWhitespace }) else {
                throw p.err(node, "a bundle identifier cannot be empty or contain spaces")
            }
            d.spec.manifest.bundleIdentifier = bundle
        },
        AppKey("infoPlist") { p, node, _, d in
            (d.spec.manifest, d.spec.infoPlist) = try p.appInfoPlist(node, bundle: d.spec.manifest.bundleIdentifier)
        },
        manifestKey("backgroundModes") { p, node, key, d in
            for modeNode in try p.sequence(node, key) {
                let name = try p.scalar(modeNode, "a background mode")
                if let feature = Self.futureModes[name] { throw p.err(modeNode, "not yet supported: \(feature)") }
                guard let mode = BackgroundMode(rawValue: name) else {
                    throw p.unknown(modeNode, "background mode", name, BackgroundMode.allCases.map(\.rawValue))
                }
                d.spec.manifest.backgroundModes.insert(mode)
            }
        },
        manifestKey("permittedTaskIdentifiers") { p, node, key, d in
            d.spec.manifest.permittedTaskIdentifiers = try p.sequence(node, key).map { try p.scalar($0, "a task identifier") }
        },
        manifestKey("exitsOnSuspend") { p, node, key, d in d.spec.manifest.exitsOnSuspend = try p.bool(node, key) },
        AppKey("backgroundAppRefresh") { p, node, key, d in d.spec.manifest.backgroundAppRefresh = try p.bool(node, key) },
        AppKey("extensionOf") { p, node, key, d in d.spec.manifest.extensionOf = try p.scalar(node, key) },
        AppKey("memory") { p, node, key, d in
            let text = try p.scalar(node, key)
            if text.hasPrefix("-") { throw p.err(node, "app \(key) cannot be negative, got '\(text)'") }
            guard let v = Units.size(text), v > 0 else {
                throw p.err(node, "app \(key) must be a size like 150MB, got '\(text)'")
            }
            guard v <= d.device.memory else {
                throw p.err(node, "app \(key) \(text) is more than the device's \(Engine.mb(d.device.memory)) of RAM")
            }
            d.spec.manifest.memory = v
        },
        AppKey("sounds") { p, node, _, d in d.spec.manifest.sounds = try p.sounds(node) },
        AppKey("notifications") { p, node, _, d in d.spec.notifications = try p.notificationAuthorization(node) },
        AppKey("on") { p, node, _, d in try p.handlers(node, into: &d) },
        AppKey("plugin") { p, node, _, d in try p.addPlugin(node, to: &d.spec, d.context, device: d.device) },
    ], declaredOrder: true, check: { _, m, _, d in d.written = m })

    func app(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> ScenarioApp.Spec {
        var reading = AppReading(spec: ScenarioApp.Spec(manifest: AppManifest(bundleIdentifier: ""), handlers: [:],
                                                        location: location(node)),
                                 context: context, device: device)
        try read(Self.appKeys, node, into: &reading)
        return reading.spec
    }

    /// `on:` — each handler's actions, with the actions that belong only in some handlers checked.
    func handlers(_ on: Node, into d: inout AppReading) throws {
        let hm = try mapping(on, "handlers", known: nil)
        for (name, listNode) in hm.ordered {
            let handler = try handlerName(name, node: hm.keyNodes[name]!)
            guard d.spec.handlers[handler] == nil else { throw err(hm.keyNodes[name]!, "handler '\(name)' is listed twice") }
            let list = try actions(listNode, d.context, device: d.device)
            for a in list {
                let taskOnly: String? = switch a.action {
                case .progress: "progress"
                case .updateTitle: "updateTitle"
                default: nil
                }
                if let taskOnly {
                    switch handler {
                    case .task, .expire: continue
                    default: throw ScenarioError(a.location, "'\(taskOnly)' belongs in a 'task ID' or 'expire ID' handler "
                                                 + "(a continued-processing task's), not in '\(handler)'")
                    }
                }
                guard case let .complete(completion) = a.action else { continue }
                switch (handler, completion) {
                case (.task, .task), (.expire, .task), (.performFetch, .fetch), (.backgroundTransfer, .task(true)),
                     (.silentPush, .fetch): break
                case (.backgroundTransfer, _):
                    throw ScenarioError(a.location, "in backgroundTransfer, 'complete: true' calls the "
                                        + "handleEventsForBackgroundURLSession completion handler")
                case (.silentPush, .task):
                    throw ScenarioError(a.location, "in silentPush, 'complete' takes newData, noData or failed")
                case (.performFetch, .task):
                    throw ScenarioError(a.location, "in performFetch, 'complete' takes newData, noData or failed")
                case (.task, .fetch), (.expire, .fetch):
                    throw ScenarioError(a.location, "in a task handler, 'complete' takes true or false")
                default:
                    throw ScenarioError(a.location, "'complete' belongs in a 'task ID', 'expire ID', "
                                        + "'performFetch', 'silentPush' or 'backgroundTransfer SESSION' handler, not in '\(handler)'")
                }
            }
            d.spec.handlers[handler] = list
            d.spec.handlerLocations[handler] = location(hm.keyNodes[name]!)
        }
    }
}
