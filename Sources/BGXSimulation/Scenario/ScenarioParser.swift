import BGXCore
import Foundation
import Yams

/// Reads a scenario file (docs/scenarios.md) into a `Scenario`.
/// Every value is read as the raw text YAML gave it — `22:30` stays a time,
/// not YAML 1.1's base-60 number, and `on:` stays a key, not `true`.
/// Every mistake is a `ScenarioError` pointing at the offending node.
public struct ScenarioParser {
    let file: String
    let limits: ScenarioLimits

    public init(file: String, limits: ScenarioLimits = .standard) {
        self.file = file
        self.limits = limits
    }

    public static func parse(contentsOf path: String, limits: ScenarioLimits = .standard) throws -> Scenario {
        let data = try limits.contents(of: path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "the file is not UTF-8 text")
        }
        return try ScenarioParser(file: path, limits: limits).parse(text)
    }

    // MARK: Vocabulary

    static let topKeys = ["profile", "seed", "start", "duration", "device", "apps", "usage", "timeline", "expect",
                          "population", "loadtest"]
    static let deviceKeys = ["battery", "charging", "network", "bandwidth", "lowPowerMode", "backgroundAppRefresh",
                             "passcode", "memory", "multitasking", "thermal", "timeZone", "cpuLoad", "memoryPressure",
                             "cameraActive", "backgroundGPU"]
    static let appKeys = ["bundle", "infoPlist", "backgroundModes", "permittedTaskIdentifiers", "exitsOnSuspend", "memory",
                          "backgroundAppRefresh", "extensionOf", "sounds", "notifications", "plugin", "on"]
    static let lifecycleHandlers: [String: ScenarioApp.Handler] = [
        "didFinishLaunching": .didFinishLaunching, "didBecomeActive": .didBecomeActive,
        "willResignActive": .willResignActive, "didEnterBackground": .didEnterBackground,
        "willEnterForeground": .willEnterForeground, "willTerminate": .willTerminate,
        "localNotification": .localNotification, "memoryWarning": .memoryWarning,
        "location": .location, "accessory": .accessory, "bluetooth": .bluetooth,
        "silentPush": .silentPush, "voipPush": .voipPush, "voipSocket": .voipSocket, "keepAlive": .keepAlive,
    ]
    /// Handlers written `NAME ARGUMENT` (`task ID`, `backgroundTransfer SESSION`, …), and `performFetch`.
    static let argumentHandlers = ["task", "expire", "backgroundTaskExpired", "backgroundTransfer"]
    static let otherHandlers = ["performFetch"]
    /// Handlers of later issues: recognised, not yet simulated.
    static let futureHandlers: [String: (feature: String, mode: BackgroundMode?, takesArgument: Bool)] = [:]
    static let actionNames = ["work", "wait", "beginBackgroundTask", "endBackgroundTask", "notify",
                              "cancelNotification", "exit", "register", "submit", "cancel", "complete",
                              "setMinimumBackgroundFetchInterval", "allocate", "useGPU", "holdLock", "releaseLock",
                              "showSensitiveContent", "hideSensitiveContent", "requestSceneSessionRefresh",
                              "makeUnsavedChanges", "saveChanges", "playAudio", "stopAudio", "startLocation",
                              "stopLocation", "download", "createSession", "reportCall", "setKeepAliveTimeout",
                              "writeFile", "readFile", "progress", "updateTitle", "performExpiringActivity",
                              "requestAuthorization"]
    static let futureActions: [String: String] = [:]
    static let timelineKeys = ["at", "every", "from", "for", "user", "device", "push", "voipSocket", "location",
                               "accessory", "bluetooth", "network", "debug"]
    static let futureTimeline: [String: String] = [:]
    static let userCommands = ["launch", "home", "lock", "unlock", "switchTo", "forceQuit", "tapNotification",
                               "cancelTask", "allowNotifications", "denyNotifications"]
    /// Trace kinds an `expect:` may name, with the fields each carries.
    static let traceKinds: [String: [String]] = [
        "state": ["from", "to", "reason"], "launch": ["cause"], "callback": ["name", "launchOptions", "id",
                                                                    "identifier", "service", "region", "session", "task", "result", "code",
                                                                    "type", "expired", "queue"],
        "user": ["action"], "bgtask.begin": ["id", "name"],
        "activity.begin": ["id", "name"], "activity.expire": ["id", "name", "reason"],
        "activity.end": ["id", "name", "reason"], "activity.refuse": ["name", "reason"], "bgtask.end": ["id"], "bgtask.expire": ["id", "name"],
        "bgtask.invalid": ["name", "reason"], "log": ["message"],
        "terminate": ["reason", "code", "detail", "band", "bandName", "footprintMB", "cause"],
        "device": ["property", "value"], "notification.schedule": ["id", "fireIn", "replaced"],
        "notification.deliver": ["id", "to", "alert", "sound", "badge", "reason"], "notification.drop": ["id", "reason"],
        "notification.cancel": ["id"], "notification.tap": ["id", "reason"],
        "task.register": ["identifier"], "task.submit": ["identifier", "type", "replaced"],
        "task.reject": ["identifier", "error", "code", "reason"], "task.cancel": ["identifier"],
        "task.defer": ["identifier", "reason", "currentScore", "thresholdScore", "decisionToRun"],
        "task.start": ["identifier", "reason", "currentScore", "thresholdScore", "decisionToRun"],
        "task.expire": ["identifier", "reason"], "task.progress": ["identifier", "completed", "total"],
        "task.complete": ["identifier", "success"], "fetch.defer": ["reason"], "fetch.start": [],
        "fetch.complete": ["result"],
        "memory.warning": ["footprintMB", "freeMB"], "snapshot": ["sensitiveContentVisible"],
        "socket.close": ["name", "type", "reason"], "changes.save": [], "changes.lost": ["reason"],
        "audio.start": ["category", "for"], "audio.stop": ["reason"], "audio.refuse": ["reason"],
        "location.start": ["service"], "location.stop": ["service"],
        "location.deliver": ["service", "event", "region"], "location.drop": ["service", "reason"],
        "location.defer": ["service", "reason"], "accessory.connect": ["transport"],
        "accessory.disconnect": ["transport", "reason"], "accessory.deliver": ["transport"],
        "accessory.drop": ["transport", "reason"],
        "transfer.create": ["session", "task", "type", "bytes"], "transfer.start": ["session", "task", "bytesLeft"],
        "transfer.defer": ["session", "task", "reason"], "transfer.retry": ["session", "task", "reason"],
        "transfer.complete": ["session", "task"], "transfer.fail": ["session", "task", "error", "code", "reason"],
        "transfer.cancel": ["session", "reason"], "transfer.hold": ["session", "reason"],
        "push.deliver": ["type", "priority", "to"], "push.drop": ["type", "priority", "reason", "held"],
        "push.complete": ["result"], "call.report": [], "voip.wake": ["trigger"], "voip.drop": ["trigger", "reason"],
        "file.write": ["path", "protection", "ok", "reason"], "file.read": ["path", "protection", "ok", "reason"],
    ]
    static let futureTraceKinds: [String: String] = [:]
    /// Background modes of newer iOS, recognised and not yet simulated: what
    /// each is and what bgx would need to build it. Apple's list:
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/uibackgroundmodes
    public static let futureModes: [String: String] = [
        "push-to-talk": "the 'push-to-talk' background mode (iOS 16 PushToTalk: the system keeps a "
            + "PTChannelManager's channel, a push of type pushtotalk launches or wakes the app to play audio, and the "
            + "system activates its audio session) — bgx would need that push type, the channel manager and its audio session",
        "nearby-interaction": "the 'nearby-interaction' background mode (iOS 16 Nearby Interaction: an NISession "
            + "ranging with a paired Bluetooth LE accessory keeps running in the background and wakes the app with "
            + "updates) — bgx would need NISession, accessory ranging and its wakes",
    ]
    /// Task request types of newer iOS, recognised and not yet simulated.
    static let futureTaskTypes: [String: String] = [
        "healthResearch": "BGHealthResearchTaskRequest (iOS 17: a processing request for a health research study "
            + "that runs only while the data it needs is readable — protectionTypeOfRequiredData: with complete "
            + "protection only while the device is unlocked, otherwise after the first unlock since boot) — bgx "
            + "would need the device's protected-data state as a scheduling condition",
    ]
    /// The keys of the smaller mappings: a device change only the timeline
    /// makes, an expectation, `usage:`, `submit`, `notify`, `sounds`, `push`, `debug`.
    static let timelineOnlyDeviceKeys = ["reboot"]
    static let expectationKeys = ["kind", "app", "between", "count"]
    static let usageKeys = ["app", "daily"]
    static let submitKeys = ["identifier", "type", "earliestBegin", "requiresNetworkConnectivity", "requiresExternalPower",
                             "title", "subtitle", "strategy", "requiredResources"]
    static let notifyKeys = ["id", "after", "at", "repeat", "body", "sound", "badge", "timeZone"]
    static let soundKeys = ["file", "format", "length"]
    static let pushKeys = ["app", "type", "priority"]
    static let debugKeys = ["simulateLaunch", "simulateExpiration", "app"]
    static let expiringActivityKeys = ["reason", "work"]
    static let notificationsKeys = ["authorization", "allowed", "answer"]
    static let authorizationStatuses = ["notDetermined", "denied", "authorized"]
    static let presentationNames: [String: NotificationPresentation] = ["alert": .alert, "sound": .sound, "badge": .badge]

    // MARK: Entry

    /// Parses a scenario. Features of later issues are kept as `unsupported`
    /// entries in `unsupported`; `bgx run` refuses them, `bgx check` reads past.
    public func parse(_ text: String) throws -> Scenario {
        let root: Node
        do {
            // Every value is read as its raw text, so YAML's tag resolution
            // (a regular expression per scalar) is left out: `.basic`.
            guard let node = try Yams.compose(yaml: text, .basic) else {
                throw ScenarioError(loc(line: 1, column: 1), "the scenario is empty")
            }
            root = node
        } catch let error as YamlError {
            // libyaml's words for a tab ("found character that cannot start any token") hide the fix.
            if let tab = Self.indentingTab(in: text) {
                throw ScenarioError(loc(line: tab.line, column: tab.column),
                                    "a tab in the indentation; indent with spaces (YAML does not allow tabs there)")
            }
            throw yamlError(error)
        }
        try checkNesting(root)
        var scenario = Scenario(file: file)
        var startOffset: Nanoseconds = 0
        let top = try mapping(root, "the scenario", known: Self.topKeys)
        if let n = top["profile"] {
            let name = try scalar(n, "profile")
            guard let p = PolicyProfile.named(name) else {
                throw unknown(n, "profile", name, PolicyProfile.all.map(\.name))
            }
            scenario.profile = p
        }
        if let n = top["seed"] {
            guard let s = UInt64(try scalar(n, "seed")) else { throw err(n, "seed must be a non-negative integer") }
            scenario.seed = s
        }
        if let n = top["start"] {
            let s = try scalar(n, "start")
            guard let date = Self.parseStart(s) else {
                throw err(n, "start must be a date and time like 2026-01-05T00:00:00, got '\(s)'")
            }
            scenario.start = date
        }
        startOffset = Units.timeOfDay(of: scenario.start)
        if let n = top["duration"] {
            let d = try duration(n, "duration")
            guard d > 0 else { throw err(n, "duration must be longer than 0") }
            scenario.duration = d
        }
        var context = MomentContext(startOffset: startOffset, duration: scenario.duration, start: scenario.start,
                                    profile: scenario.profile)
        if let n = top["device"] {
            scenario.device = try deviceSettings(n, into: scenario.device, allowReboot: false, context).0
        }
        guard let appsNode = top["apps"] else { throw err(root, "the scenario has no 'apps:' list") }
        var listed: Set<String> = []
        let appNodes = try sequence(appsNode, "apps")
        if appNodes.count > limits.apps {
            throw err(appNodes[limits.apps], "too many apps: bgx runs at most \(limits.apps) in one scenario")
        }
        for appNode in appNodes {
            let spec = try app(appNode, context, device: scenario.device)
            guard listed.insert(spec.manifest.bundleIdentifier).inserted else {
                throw err(appNode, "app '\(spec.manifest.bundleIdentifier)' is listed twice")
            }
            scenario.apps.append(spec)
        }
        let bundles = KnownApps(names: scenario.apps.map(\.manifest.bundleIdentifier))
        context.notificationIDs = Set(scenario.apps.flatMap { $0.handlers.values.flatMap { $0 } }.compactMap {
            if case let .notify(n) = $0.action { n.id } else { nil }
        })
        for (spec, node) in zip(scenario.apps, try sequence(appsNode, "apps")) {
            guard let host = spec.manifest.extensionOf else { continue }
            let at = (try? mapping(node, "an app", known: nil))?.keyNodes["extensionOf"] ?? node
            guard bundles.contains(host), host != spec.manifest.bundleIdentifier else {
                throw unknown(at, "containing app", host, bundles.names.filter { $0 != spec.manifest.bundleIdentifier })
            }
        }
        if let n = top["usage"] {
            let entries = try sequence(n, "usage")
            if entries.count > limits.timelineEntries {
                throw err(entries[limits.timelineEntries],
                          "too many usage entries: bgx reads at most \(limits.timelineEntries)")
            }
            for entry in entries { scenario.usage.append(try usage(entry, bundles: bundles)) }
        }
        if let n = top["timeline"] {
            let entries = try sequence(n, "timeline")
            if entries.count > limits.timelineEntries {
                throw err(entries[limits.timelineEntries],
                          "too many timeline entries: bgx reads at most \(limits.timelineEntries)")
            }
            for entry in entries {
                try timelineEntries(entry, bundles: bundles, context, into: &scenario.timeline)
            }
        }
        if let n = top["population"] { scenario.population = try population(n) }
        if let n = top["loadtest"] { scenario.loadTest = try loadTest(n, bundles: bundles) }
        if let n = top["expect"] {
            let entries = try sequence(n, "expect")
            if entries.count > limits.timelineEntries {
                throw err(entries[limits.timelineEntries],
                          "too many expectations: bgx reads at most \(limits.timelineEntries)")
            }
            for entry in entries {
                scenario.expectations.append(try expectation(entry, bundles: bundles, context))
            }
        }
        return scenario
    }

    /// The scenario's apps by name: every timeline entry and expectation
    /// names one, so finding it must not be a pass over all of them.
    struct KnownApps {
        let names: [String]
        let set: Set<String>
        init(names: [String]) {
            self.names = names
            set = Set(names)
        }
        func contains(_ name: String) -> Bool { set.contains(name) }
    }

    struct MomentContext {
        var startOffset: Nanoseconds
        var duration: Nanoseconds
        var start = Date(timeIntervalSince1970: 0)
        var profile = PolicyProfile.modern
        /// Every id a `notify` action names (what `tapNotification` may name).
        var notificationIDs: Set<String> = []
    }

    static func parseStart(_ s: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let d = formatter.date(from: s) { return d }
        }
        return nil
    }

    // MARK: Sections

    func deviceSettings(_ node: Node, into device: DeviceState, allowReboot: Bool,
                        _ context: MomentContext) throws -> (DeviceState, [DeviceChange]) {
        var d = device
        var changes: [DeviceChange] = []
        let keys = Self.deviceKeys + (allowReboot ? Self.timelineOnlyDeviceKeys : [])
        let m = try mapping(node, "device", known: keys)
        for (key, value) in m.ordered {
            let text = try scalar(value, key)
            switch key {
            case "battery":
                guard let v = Units.percent(text) else { throw err(value, "battery must be a percentage 0–100%, got '\(text)'") }
                d.battery = v; changes.append(.battery(v))
            case "charging": d.charging = try bool(value, key); changes.append(.charging(d.charging))
            case "network":
                guard let v = DeviceState.Network(rawValue: text) else {
                    throw unknown(value, "network", text, DeviceState.Network.allCases.map(\.rawValue))
                }
                d.network = v; changes.append(.network(v))
            case "bandwidth":
                guard let v = Units.bandwidth(text), v > 0 else {
                    throw err(value, "bandwidth must be a rate like 2MB/s, got '\(text)'")
                }
                d.bandwidth = v; changes.append(.bandwidth(v))
            case "lowPowerMode": d.lowPowerMode = try bool(value, key); changes.append(.lowPowerMode(d.lowPowerMode))
            case "backgroundAppRefresh":
                d.backgroundAppRefresh = try bool(value, key); changes.append(.backgroundAppRefresh(d.backgroundAppRefresh))
            case "passcode": d.passcode = try bool(value, key); changes.append(.passcode(d.passcode))
            case "memory":
                guard let v = Units.size(text), v >= 256 * 1024 * 1024, v <= 64 * 1024 * 1024 * 1024 else {
                    throw err(value, "device memory must be a size between 256MB and 64GB, got '\(text)'")
                }
                d.memory = v; changes.append(.memory(v))
            case "multitasking": d.multitasking = try bool(value, key); changes.append(.multitasking(d.multitasking))
            case "backgroundGPU":
                d.backgroundGPU = try bool(value, key); changes.append(.backgroundGPU(d.backgroundGPU))
            case "thermal":
                guard let v = DeviceState.Thermal(rawValue: text) else {
                    throw unknown(value, "thermal state", text, DeviceState.Thermal.allCases.map(\.rawValue))
                }
                d.thermal = v; changes.append(.thermal(v))
            case "cpuLoad":
                guard let v = Units.percent(text) else { throw err(value, "cpuLoad must be a percentage 0–100%, got '\(text)'") }
                d.cpuLoad = v; changes.append(.cpuLoad(v))
            case "memoryPressure":
                guard let v = DeviceState.MemoryPressure(rawValue: text) else {
                    throw unknown(value, "memory pressure", text, DeviceState.MemoryPressure.allCases.map(\.rawValue))
                }
                d.memoryPressure = v; changes.append(.memoryPressure(v))
            case "cameraActive": d.cameraActive = try bool(value, key); changes.append(.cameraActive(d.cameraActive))
            case "timeZone":
                let v = try timeZone(value, context)
                d.timeZone = v; changes.append(.timeZone(v))
            case "reboot":
                guard try bool(value, key) else { throw err(value, "reboot can only be true") }
                changes.append(.reboot)
            default: break
            }
        }
        return (d, changes)
    }

    func app(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> ScenarioApp.Spec {
        let m = try mapping(node, "an app", known: Self.appKeys)
        guard let bundleNode = m["bundle"] else { throw err(node, "an app needs a 'bundle:' identifier") }
        let bundle = try scalar(bundleNode, "bundle")
        guard !bundle.isEmpty, !bundle.contains(where: { $0.isWhitespace }) else {
            throw err(bundleNode, "a bundle identifier cannot be empty or contain spaces")
        }
        var manifest = AppManifest(bundleIdentifier: bundle)
        var infoPlist: String?
        if let n = m["infoPlist"] {
            (manifest, infoPlist) = try appInfoPlist(n, bundle: bundle)
            for key in ["backgroundModes", "permittedTaskIdentifiers", "exitsOnSuspend"] where m[key] != nil {
                throw err(m.keyNodes[key]!, "'\(key)' is read from the app's Info.plist (\(infoPlist!)); write it in one place")
            }
        }
        if let n = m["backgroundModes"] {
            for modeNode in try sequence(n, "backgroundModes") {
                let name = try scalar(modeNode, "a background mode")
                if let feature = Self.futureModes[name] { throw err(modeNode, "not yet supported: \(feature)") }
                guard let mode = BackgroundMode(rawValue: name) else {
                    throw unknown(modeNode, "background mode", name, BackgroundMode.allCases.map(\.rawValue))
                }
                manifest.backgroundModes.insert(mode)
            }
        }
        if let n = m["permittedTaskIdentifiers"] {
            manifest.permittedTaskIdentifiers = try sequence(n, "permittedTaskIdentifiers").map {
                try scalar($0, "a task identifier")
            }
        }
        if let n = m["exitsOnSuspend"] { manifest.exitsOnSuspend = try bool(n, "exitsOnSuspend") }
        if let n = m["backgroundAppRefresh"] { manifest.backgroundAppRefresh = try bool(n, "backgroundAppRefresh") }
        if let n = m["extensionOf"] { manifest.extensionOf = try scalar(n, "extensionOf") }
        if let n = m["memory"] {
            let text = try scalar(n, "memory")
            if text.hasPrefix("-") { throw err(n, "app memory cannot be negative, got '\(text)'") }
            guard let v = Units.size(text), v > 0 else {
                throw err(n, "app memory must be a size like 150MB, got '\(text)'")
            }
            guard v <= device.memory else {
                throw err(n, "app memory \(text) is more than the device's \(Engine.mb(device.memory)) of RAM")
            }
            manifest.memory = v
        }
        if let n = m["sounds"] { manifest.sounds = try sounds(n) }
        let notifications = try m["notifications"].map { try notificationAuthorization($0) }
        var handlers: [ScenarioApp.Handler: [ScenarioApp.LocatedAction]] = [:]
        var handlerLocations: [ScenarioApp.Handler: SourceLocation] = [:]
        if let on = m["on"] {
            let hm = try mapping(on, "handlers", known: nil)
            for (name, listNode) in hm.ordered {
                let handler = try handlerName(name, node: hm.keyNodes[name]!)
                guard handlers[handler] == nil else { throw err(hm.keyNodes[name]!, "handler '\(name)' is listed twice") }
                let list = try actions(listNode, context, device: device)
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
                handlers[handler] = list
                handlerLocations[handler] = location(hm.keyNodes[name]!)
            }
        }
        var spec = ScenarioApp.Spec(manifest: manifest, handlers: handlers, location: location(node),
                                    handlerLocations: handlerLocations)
        spec.infoPlist = infoPlist
        spec.notifications = notifications
        if let n = m["plugin"] { try addPlugin(n, to: &spec, context, device: device) }
        return spec
    }

    /// `notifications: {authorization, allowed, answer}` (rules §9): what the person
    /// has answered, or will answer, when the app asks to show notifications.
    func notificationAuthorization(_ node: Node) throws -> NotificationAuthorization {
        let m = try mapping(node, "notifications", known: Self.notificationsKeys)
        var status = NotificationAuthorizationStatus.notDetermined
        if let n = m["authorization"] {
            let text = try scalar(n, "authorization")
            guard let i = Self.authorizationStatuses.firstIndex(of: text) else {
                throw unknown(n, "authorization", text, Self.authorizationStatuses)
            }
            status = [.notDetermined, .denied, .authorized][i]
        }
        var allowed: NotificationPresentation = status == .authorized ? [.alert, .sound, .badge] : []
        if let n = m["allowed"] {
            guard status == .authorized else {
                throw err(m.keyNodes["allowed"]!, "'allowed' is what the person let an app show once it asked; "
                          + "it needs 'authorization: authorized'")
            }
            allowed = try presentation(n, "allowed")
        }
        var answer = true
        if let n = m["answer"] {
            guard status == .notDetermined else {
                throw err(m.keyNodes["answer"]!, "'answer' is what the person says when the app first asks; "
                          + "with 'authorization: \(status)' it has asked already")
            }
            let text = try scalar(n, "answer")
            guard text == "allow" || text == "deny" else { throw unknown(n, "answer", text, ["allow", "deny"]) }
            answer = text == "allow"
        }
        return NotificationAuthorization(status: status, allowed: allowed, answer: answer)
    }

    /// A list of `alert`, `sound`, `badge`.
    func presentation(_ node: Node, _ what: String) throws -> NotificationPresentation {
        var options: NotificationPresentation = []
        for item in try sequence(node, what) {
            let name = try scalar(item, what)
            guard let option = Self.presentationNames[name] else {
                throw unknown(item, "notification option", name, ["alert", "sound", "badge"])
            }
            options.insert(option)
        }
        return options
    }

    func handlerName(_ name: String, node: Node) throws -> ScenarioApp.Handler {
        if let h = Self.lifecycleHandlers[name] { return h }
        let words = name.split(separator: " ", maxSplits: 1).map(String.init)
        if words.first == "task" || words.first == "expire" {
            guard words.count == 2 else { throw err(node, "'\(words[0])' needs a task identifier: '\(words[0]) IDENTIFIER'") }
            return words[0] == "task" ? .task(words[1]) : .expire(words[1])
        }
        if name == "performFetch" { return .performFetch }
        if words.first == "backgroundTransfer" {
            guard words.count == 2 else {
                throw err(node, "'backgroundTransfer' needs a session identifier: 'backgroundTransfer SESSION'")
            }
            return .backgroundTransfer(words[1])
        }
        if words.first == "backgroundTaskExpired" {
            guard words.count == 2 else { throw err(node, "'backgroundTaskExpired' needs a task name: 'backgroundTaskExpired NAME'") }
            return .backgroundTaskExpired(words[1])
        }
        if let first = words.first, let future = Self.futureHandlers[first] {
            if future.takesArgument && words.count != 2 { throw err(node, "'\(first)' needs an argument: '\(first) NAME'") }
            if !future.takesArgument && words.count != 1 { throw err(node, "'\(first)' takes no argument") }
            return .unsupported(name)
        }
        let known = Array(Self.lifecycleHandlers.keys) + Self.argumentHandlers + Self.otherHandlers
            + Array(Self.futureHandlers.keys)
        throw unknown(node, "handler", words.first ?? name, known.sorted())
    }

    func actions(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> [ScenarioApp.LocatedAction] {
        try sequence(node, "a handler's actions").map { try action($0, context, device: device) }
    }

    func action(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> ScenarioApp.LocatedAction {
        let name: String
        let argument: Node?
        let nameNode: Node
        switch node {
        case .scalar:
            name = try scalar(node, "an action"); argument = nil; nameNode = node
        case let .mapping(m):
            guard m.count == 1, let (k, v) = m.first else {
                throw err(node, "an action is one 'name: argument' pair; start another '-' item for the next one")
            }
            name = try scalar(k, "an action name"); argument = v; nameNode = k
        default:
            throw err(node, "an action is a name or a 'name: argument' pair")
        }
        // `- stopAudio` and `- stopAudio: true` mean the same.
        func arg(_ what: String) throws -> Node {
            guard let a = argument else { throw err(nameNode, "'\(name)' needs \(what)") }
            return a
        }
        func noArgument() throws {
            if let a = argument, (try? scalar(a, name)) != "true" { throw err(a, "'\(name)' takes no argument") }
        }
        let action: ScenarioApp.Action
        switch name {
        case "work": action = .work(try duration(try arg("a duration"), "work"))
        case "wait": action = .wait(try duration(try arg("a duration"), "wait"))
        case "beginBackgroundTask": action = .beginBackgroundTask(try scalar(try arg("a task name"), name))
        case "endBackgroundTask": action = .endBackgroundTask(try scalar(try arg("a task name"), name))
        case "cancelNotification": action = .cancelNotification(try scalar(try arg("a notification id"), name))
        case "notify": action = .notify(try notify(try arg("{id, body, after | at, repeat}"), context))
        case "exit": try noArgument(); action = .exit
        case "requestAuthorization":
            // `- requestAuthorization` asks for all three; `- requestAuthorization: [alert, sound]` for those.
            let options = try argument.map { try presentation($0, name) } ?? [.alert, .sound, .badge]
            action = .requestAuthorization(options)
        case "allocate": action = .allocate(try allocation(try arg("a size like 50MB (or -50MB to free)"), device))
        case "useGPU": try noArgument(); action = .useGPU
        case "holdLock", "releaseLock":
            // `- holdLock` takes the app's one lock; `- holdLock: db.sqlite` names it.
            let lock = try argument.map { try scalar($0, name) }.flatMap { $0 == "true" ? nil : $0 } ?? "default"
            if lock == "false", let a = argument {
                throw err(a, "'\(name): false' \(name == "holdLock" ? "holds" : "releases") nothing; leave the action out, or name the lock")
            }
            action = name == "holdLock" ? .holdLock(lock) : .releaseLock(lock)
        case "showSensitiveContent": try noArgument(); action = .showSensitiveContent(true)
        case "hideSensitiveContent": try noArgument(); action = .showSensitiveContent(false)
        case "requestSceneSessionRefresh": try noArgument(); action = .requestSceneSessionRefresh
        case "makeUnsavedChanges": try noArgument(); action = .unsavedChanges(true)
        case "saveChanges": try noArgument(); action = .unsavedChanges(false)
        case "performExpiringActivity": action = try expiringActivity(try arg("{reason, work}"))
        case "reportCall": try noArgument(); action = .reportCall
        case "setKeepAliveTimeout": action = .setKeepAliveTimeout(try duration(try arg("a duration (at least 600s)"), name))
        case "register": action = .register(try scalar(try arg("a task identifier"), name))
        case "cancel": action = .cancel(try scalar(try arg("a task identifier"), name))
        case "submit": action = try submit(try arg("{identifier, type, earliestBegin, …}"))
        case "progress":
            let m = try mapping(try arg("{completed, total}"), name, known: ["completed", "total"])
            guard let c = m["completed"], let t = m["total"] else { throw err(nameNode, "'progress' needs {completed, total}") }
            guard let completed = Int64(try scalar(c, "completed")), let total = Int64(try scalar(t, "total")),
                  completed >= 0, total >= 0 else { throw err(c, "progress: completed and total are whole numbers ≥ 0") }
            action = .progress(completed: completed, total: total)
        case "updateTitle":
            let m = try mapping(try arg("{title, subtitle}"), name, known: ["title", "subtitle"])
            guard let t = m["title"], let st = m["subtitle"] else { throw err(nameNode, "'updateTitle' needs {title, subtitle}") }
            action = .updateTitle(title: try scalar(t, "title"), subtitle: try scalar(st, "subtitle"))
        case "download": action = .download(try download(try arg("{session, bytes, discretionary, …}")))
        case "createSession": action = .createSession(try scalar(try arg("a session identifier"), name))
        case "writeFile": action = try writeFile(try arg("{path, protection}"))
        case "readFile": action = .readFile(try scalar(try arg("a file path"), name))
        case "complete":
            let a = try arg("true, false, newData, noData or failed")
            let v = try scalar(a, name)
            switch v {
            case "true": action = .complete(.task(success: true))
            case "false": action = .complete(.task(success: false))
            default:
                guard let result = BackgroundFetchResult.allCases.first(where: { $0.description == v }) else {
                    throw unknown(a, "completion", v, ["true", "false", "newData", "noData", "failed"])
                }
                action = .complete(.fetch(result))
            }
        case "playAudio":
            if let a = argument, case .mapping = a {
                let m = try mapping(a, "playAudio", known: ["for"])
                guard let d = m["for"] else { throw err(a, "'playAudio' takes {for: DURATION}, or nothing to play until stopAudio") }
                let length = try duration(d, "for")
                guard length > 0 else { throw err(d, "for: audio plays for longer than 0") }
                action = .playAudio(length)
            } else {
                try noArgument()
                action = .playAudio(nil)
            }
        case "stopAudio": try noArgument(); action = .stopAudio
        case "startLocation", "stopLocation":
            let a = try arg("standard, significant or region")
            let word = try scalar(a, name)
            guard let service = LocationService(rawValue: word) else {
                throw unknown(a, "location service", word, LocationService.allCases.map(\.rawValue))
            }
            action = name == "startLocation" ? .startLocation(service) : .stopLocation(service)
        case "setMinimumBackgroundFetchInterval":
            let a = try arg("a duration, 'minimum' or 'never'")
            switch try scalar(a, name) {
            case "never": action = .setMinimumBackgroundFetchInterval(nil)
            case "minimum": action = .setMinimumBackgroundFetchInterval(0)
            default: action = .setMinimumBackgroundFetchInterval(try duration(a, name))
            }
        default:
            guard Self.futureActions[name] != nil else {
                throw unknown(nameNode, "action", name, Self.actionNames + Array(Self.futureActions.keys).sorted())
            }
            action = try futureAction(name, argument)
        }
        return ScenarioApp.LocatedAction(action: action, location: location(nameNode))
    }

    static let continuedKeys = ["title", "subtitle", "strategy", "requiredResources"]

    func submit(_ node: Node) throws -> ScenarioApp.Action {
        let m = try mapping(node, "submit", known: Self.submitKeys)
        guard let idNode = m["identifier"] else { throw err(node, "'submit' needs an identifier") }
        let type = try m["type"].map { try scalar($0, "type") } ?? "appRefresh"
        if type == "continuedProcessing" { return .submitContinued(try continuedSubmit(m, idNode, node)) }
        for key in Self.continuedKeys where m[key] != nil {
            throw err(m.keyNodes[key]!, "\(key) belongs to continuedProcessing requests")
        }
        if let feature = Self.futureTaskTypes[type] { throw err(m["type"]!, "not yet supported: \(feature)") }
        guard let kind = BGTaskKind.allCases.first(where: { $0.description == type }) else {
            throw unknown(m["type"]!, "task type", type, BGTaskKind.allCases.map(\.description))
        }
        var s = ScenarioApp.Submit(identifier: try scalar(idNode, "identifier"), kind: kind)
        if let e = m["earliestBegin"] { s.earliestBegin = try duration(e, "earliestBegin") }
        if let n = m["requiresNetworkConnectivity"] {
            guard kind == .processing else { throw err(n, "requiresNetworkConnectivity belongs to processing requests") }
            s.requiresNetworkConnectivity = try bool(n, "requiresNetworkConnectivity")
        }
        if let n = m["requiresExternalPower"] {
            guard kind == .processing else { throw err(n, "requiresExternalPower belongs to processing requests") }
            s.requiresExternalPower = try bool(n, "requiresExternalPower")
        }
        return .submit(s)
    }

    /// `submit: {identifier, type: continuedProcessing, title, subtitle, strategy, requiredResources}` (rules §13).
    func continuedSubmit(_ m: Mapping, _ idNode: Node, _ node: Node) throws -> ContinuedProcessingRequest {
        for key in ["earliestBegin", "requiresNetworkConnectivity", "requiresExternalPower"] where m[key] != nil {
            throw err(m.keyNodes[key]!, "\(key) does not belong to continuedProcessing requests (they start at once)")
        }
        guard let title = m["title"], let subtitle = m["subtitle"] else {
            throw err(node, "a continuedProcessing request needs a title and a subtitle (the person sees them)")
        }
        var r = ContinuedProcessingRequest(identifier: try scalar(idNode, "identifier"), title: try scalar(title, "title"),
                                           subtitle: try scalar(subtitle, "subtitle"))
        if let s = m["strategy"] {
            let word = try scalar(s, "strategy")
            guard let v = ContinuedProcessingStrategy(rawValue: word) else {
                throw unknown(s, "strategy", word, ContinuedProcessingStrategy.allCases.map(\.rawValue))
            }
            r.strategy = v
        }
        if let res = m["requiredResources"] {
            let word = try scalar(res, "requiredResources")
            guard word == "gpu" || word == "default" else { throw unknown(res, "required resource", word, ["default", "gpu"]) }
            r.requiresGPU = word == "gpu"
        }
        return r
    }

    /// `writeFile: {path, protection}` (rules §13); protection defaults to iOS's
    /// default for app files, `completeUntilFirstUserAuthentication`.
    func writeFile(_ node: Node) throws -> ScenarioApp.Action {
        let m = try mapping(node, "writeFile", known: ["path", "protection"])
        guard let pathNode = m["path"] else { throw err(node, "'writeFile' needs a path") }
        var protection = FileProtection.completeUntilFirstUserAuthentication
        if let p = m["protection"] {
            let word = try scalar(p, "protection")
            if word == "completeUnlessOpen" {
                throw err(p, "not yet supported: completeUnlessOpen protection (a file kept open across the lock)")
            }
            guard let v = FileProtection(rawValue: word) else {
                throw unknown(p, "protection class", word, FileProtection.allCases.map(\.rawValue))
            }
            protection = v
        }
        return .writeFile(path: try scalar(pathNode, "path"), protection: protection)
    }

    /// `performExpiringActivity: {reason: save, work: 10s}` (rules §13): the
    /// reason is the activity's name (iOS: not empty); `work` what the block
    /// does on the background queue before it returns (default: nothing).
    func expiringActivity(_ node: Node) throws -> ScenarioApp.Action {
        let m = try mapping(node, "performExpiringActivity", known: Self.expiringActivityKeys)
        guard let r = m["reason"] else { throw err(node, "'performExpiringActivity' needs a reason (its name, not empty)") }
        let reason = try scalar(r, "reason")
        guard !reason.isEmpty else { throw err(r, "reason: performExpiringActivity's reason must not be empty") }
        return .performExpiringActivity(reason: reason, work: try m["work"].map { try duration($0, "work") } ?? 0)
    }

    /// `allocate: 50MB` grows the footprint, `allocate: -50MB` frees.
    func allocation(_ node: Node, _ device: DeviceState) throws -> Int64 {
        let text = try scalar(node, "allocate")
        let negative = text.hasPrefix("-")
        guard let v = Units.size(negative ? String(text.dropFirst()) : text) else {
            throw err(node, "allocate: '\(text)' is not a size (write 50MB, or -50MB to free)")
        }
        guard v <= device.memory else {
            throw err(node, "allocate: \(text) is more than the device's \(Engine.mb(device.memory)) of RAM")
        }
        return negative ? -v : v
    }

    static let downloadKeys = ["session", "bytes", "discretionary", "earliestBegin", "upload", "newsstand",
                               "sessionSendsLaunchEvents", "timeoutIntervalForRequest", "timeoutIntervalForResource"]

    /// `download: {session, bytes, discretionary, earliestBegin, …}` (rules §8).
    func download(_ node: Node) throws -> ScenarioApp.Download {
        let m = try mapping(node, "download", known: Self.downloadKeys)
        guard let sessionNode = m["session"] else { throw err(node, "'download' needs a session identifier") }
        guard let bytesNode = m["bytes"] else { throw err(node, "'download' needs bytes (a size like 50MB)") }
        let text = try scalar(bytesNode, "bytes")
        guard let bytes = Units.size(text), bytes > 0, bytes <= 1024 * 1024 * 1024 * 1024 else {
            throw err(bytesNode, "bytes must be a size between 1B and 1TB like 50MB, got '\(text)'")
        }
        let session = try scalar(sessionNode, "session")
        guard !session.isEmpty, !session.contains(where: { $0.isWhitespace }) else {
            throw err(sessionNode, "a session identifier cannot be empty or contain spaces")
        }
        var d = ScenarioApp.Download(session: session, bytes: bytes)
        if let n = m["discretionary"] { d.discretionary = try bool(n, "discretionary") }
        if let n = m["upload"], try bool(n, "upload") { d.kind = .upload }
        if let n = m["newsstand"] { d.newsstand = try bool(n, "newsstand") }
        if let n = m["sessionSendsLaunchEvents"] { d.sessionSendsLaunchEvents = try bool(n, "sessionSendsLaunchEvents") }
        if let n = m["earliestBegin"] { d.earliestBegin = try duration(n, "earliestBegin") }
        for (key, path) in [("timeoutIntervalForRequest", \ScenarioApp.Download.timeoutIntervalForRequest),
                            ("timeoutIntervalForResource", \ScenarioApp.Download.timeoutIntervalForResource)] {
            guard let n = m[key] else { continue }
            let t = try duration(n, key)
            guard t > 0 else { throw err(n, "\(key) must be longer than 0") }
            d[keyPath: path] = t
        }
        return d
    }

    /// Later issues' actions, read enough for `bgx check` to know the modes
    /// they need.
    func futureAction(_ name: String, _ argument: Node?) throws -> ScenarioApp.Action {
        .unsupported(name: name, mode: nil, taskIdentifier: nil)
    }

    func notify(_ node: Node, _ context: MomentContext) throws -> ScenarioApp.Notify {
        let m = try mapping(node, "notify", known: Self.notifyKeys)
        guard let idNode = m["id"] else { throw err(node, "'notify' needs an id") }
        let id = try scalar(idNode, "id")
        guard !id.isEmpty, !id.contains(where: { $0.isWhitespace }) else {
            throw err(idNode, "a notification id cannot be empty or contain spaces")
        }
        let repeats = try m["repeat"].map { try bool($0, "repeat") } ?? false
        let zone = try m["timeZone"].map { try timeZone($0, context) }
        let when: ScenarioApp.Notify.When
        switch (m["after"], m["at"]) {
        case let (a?, nil):
            let d = try duration(a, "after")
            // What UNTimeIntervalNotificationTrigger raises NSInternalInconsistencyException for;
            // a request with no trigger is how iOS posts at once.
            guard d > 0 else {
                throw err(a, "after: time interval must be greater than 0 (UNTimeIntervalNotificationTrigger); "
                          + "to post at once, leave out 'after' and 'at' (a request with no trigger)")
            }
            if repeats, d < context.profile.notifications.minimumRepeatInterval {
                throw err(a, "after: a repeating notification's interval must be at least "
                          + "\(Time.describe(context.profile.notifications.minimumRepeatInterval)) (iOS raises "
                          + "'time interval must be at least 60 if repeating')")
            }
            if let z = m.keyNodes["timeZone"] { throw err(z, "timeZone belongs to 'at:' clock times, not to 'after:'") }
            when = .after(d)
        case let (nil, t?): when = try notifyMoment(t, repeats: repeats, hasZone: zone != nil, context)
        case (.some, .some): throw err(node, "'notify' takes either 'after' or 'at', not both")
        case (nil, nil):
            // `UNNotificationRequest(identifier:content:trigger: nil)`: delivered at once [D].
            if let r = m["repeat"], repeats { throw err(r, "repeat: a notification with no trigger is delivered once, at once") }
            if let z = m.keyNodes["timeZone"] { throw err(z, "timeZone belongs to 'at:' clock times; a notification with no trigger is delivered at once") }
            when = .now
        }
        var content = NotificationContent(body: try m["body"].map { try scalar($0, "body") } ?? "")
        if let n = m["sound"] {
            let name = try scalar(n, "sound")
            guard !name.isEmpty else { throw err(n, "sound is 'default' or a sound file's name") }
            content.sound = name == "default" ? .default : .named(name)
        }
        if let n = m["badge"] {
            guard let b = Int32(try scalar(n, "badge")), b >= 0 else {
                throw err(n, "badge must be a whole number from 0 to \(Int32.max)")
            }
            content.badge = Int(b)
        }
        return ScenarioApp.Notify(id: id, when: when, repeats: repeats, content: content, timeZone: zone)
    }

    static let weekdays = Units.weekdays

    /// `at:` of a notification: `HH:MM` (the next time the clock reads it;
    /// daily if it repeats), `Mon HH:MM` (weekly), `Nd HH:MM` (that date), or
    /// a duration from the start (a fixed moment).
    func notifyMoment(_ node: Node, repeats: Bool, hasZone: Bool, _ context: MomentContext) throws -> ScenarioApp.Notify.When {
        let text = try scalar(node, "at")
        let words = text.split(separator: " ").map(String.init)
        if let clock = words.last.flatMap(Units.timeOfDay), words.count <= 2 {
            guard words.count == 2 else { return .clock(day: nil, weekday: nil, timeOfDay: clock) }
            if let i = Self.weekdays.firstIndex(of: words[0]) { return .clock(day: nil, weekday: i + 1, timeOfDay: clock) }
            if words[0].hasSuffix("d"), let day = Int(words[0].dropLast()), day >= 0 {
                guard !repeats else {
                    throw err(node, "at: a date repeats never; write 'at: HH:MM' to repeat daily or 'at: Mon HH:MM' weekly")
                }
                // Calendar triggers are looked for four years ahead (DateMatch.next).
                guard day <= 4 * 366 else { throw err(node, "at: a date is at most 1464d (four years) after the start") }
                return .clock(day: day, weekday: nil, timeOfDay: clock)
            }
            if let guess = nearest(words[0], in: Self.weekdays) {
                throw err(node, "at: unknown day '\(words[0])'; did you mean '\(guess)'?")
            }
        } else if let d = Units.duration(text) {
            guard !repeats else {
                throw err(node, "at: a moment repeats never; write 'at: HH:MM' to repeat daily or 'at: Mon HH:MM' weekly")
            }
            guard !hasZone else { throw err(node, "at: a moment given as a duration is on no clock; timeZone has no meaning") }
            return .at(d)
        }
        throw err(node, "at: '\(text)' is not a time (write HH:MM, Mon HH:MM, Nd HH:MM, or a duration like 90s)")
    }

    /// An IANA time zone name, as a table of its offsets over the run.
    func timeZone(_ node: Node, _ context: MomentContext) throws -> TimeZoneRules {
        let name = try scalar(node, "timeZone")
        guard let zone = TimeZone(identifier: name) else {
            throw unknown(node, "time zone", name, TimeZone.knownTimeZoneIdentifiers + ["UTC"])
        }
        let end = context.start.addingTimeInterval(Time.toSeconds(context.duration) + 4 * 366 * 86_400)
        return TimeZoneRules(zone, from: context.start.addingTimeInterval(-2 * 86_400), through: end)
    }

    /// An app's `sounds: [{file, format, length}]`: the sound files in its bundle.
    func sounds(_ node: Node) throws -> [BundleSound] {
        try sequence(node, "sounds").map { item in
            let m = try mapping(item, "a sound", known: Self.soundKeys)
            guard let fileNode = m["file"] else { throw err(item, "a sound needs 'file:' (its name in the bundle)") }
            guard let formatNode = m["format"] else {
                throw err(item, "a sound needs 'format:' (\(AudioFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let formatName = try scalar(formatNode, "format")
            guard let format = AudioFormat(rawValue: formatName) else {
                throw unknown(formatNode, "audio format", formatName, AudioFormat.allCases.map(\.rawValue))
            }
            var sound = BundleSound(file: try scalar(fileNode, "file"), format: format)
            if let l = m["length"] {
                sound.length = try duration(l, "length")
                guard sound.length > 0 else { throw err(l, "length must be longer than 0") }
            }
            return sound
        }
    }

    func usage(_ node: Node, bundles: KnownApps) throws -> Scenario.Usage {
        let m = try mapping(node, "a usage entry", known: Self.usageKeys)
        guard let appNode = m["app"] else { throw err(node, "a usage entry needs 'app:'") }
        let app = try bundle(appNode, bundles)
        guard let dailyNode = m["daily"] else { throw err(node, "a usage entry needs 'daily:' sessions like \"08:00 5m\"") }
        var sessions: [(Nanoseconds, Nanoseconds)] = []
        for s in try sequence(dailyNode, "daily") {
            let text = try scalar(s, "a session")
            let parts = text.split(separator: " ")
            guard parts.count == 2, let tod = Units.timeOfDay(String(parts[0])), let length = Units.duration(String(parts[1])),
                  length > 0 else {
                throw err(s, "a daily session is \"HH:MM DURATION\" like \"08:00 5m\", got '\(text)'")
            }
            sessions.append((tod, length))
        }
        return Scenario.Usage(app: app, sessions: sessions, location: location(node))
    }

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
        let others = m.ordered.filter { !["at", "every", "from", "for"].contains($0.0) }
        guard others.count == 1, let (key, value) = others.first else {
            throw err(node, "a timeline entry has 'at:' (with 'every:', 'from:', 'for:' when it recurs) and exactly one "
                      + "of user:, device:, push:, voipSocket:, location:, accessory:, bluetooth:, network:, debug:")
        }
        if let feature = Self.futureTimeline[key] {
            throw err(m.keyNodes[key]!, "not yet supported: \(feature)")
        }
        let event: Scenario.TimelineEntry.Event
        if key == "debug" {
            event = try debugCommand(value, bundles: bundles)
        } else if key == "network" {
            event = .device([try networkSpeed(value)])
        } else if key == "location" {
            event = try locationMove(value)
        } else if key == "accessory" || key == "bluetooth" {
            let a = try mapping(value, key, known: ["app"])
            guard let appNode = a["app"] else { throw err(value, "'\(key)' needs {app: BUNDLE}") }
            event = .accessory(try bundle(appNode, bundles), key == "accessory" ? .accessory : .bluetooth)
        } else if key == "push" {
            event = try pushEntry(value, bundles: bundles)
        } else if key == "voipSocket" {
            let vm = try mapping(value, "voipSocket", known: ["app"])
            guard let appNode = vm["app"] else { throw err(value, "voipSocket needs 'app:'") }
            event = .voipSocket(try bundle(appNode, bundles))
        } else if key == "user" {
            event = .user(try userCommand(value, bundles: bundles, notificationIDs: context.notificationIDs))
        } else {
            event = .device(try deviceSettings(value, into: DeviceState(), allowReboot: true, context).1)
        }
        return event
    }

    /// `location: {moveMeters: N}`: the device moves N metres along its route (negative: back).
    func locationMove(_ node: Node) throws -> Scenario.TimelineEntry.Event {
        let m = try mapping(node, "location", known: ["moveMeters"])
        guard let n = m["moveMeters"] else { throw err(node, "'location' needs {moveMeters: N}") }
        let text = try scalar(n, "moveMeters")
        let digits = text.hasSuffix("m") ? String(text.dropLast()) : text
        guard let meters = Int64(digits), meters != 0, meters.magnitude <= 40_000_000 else {
            throw err(n, "moveMeters must be a whole number of metres other than 0 (negative: back), got '\(text)'")
        }
        return .location(meters: meters)
    }

    /// `network: {transferSpeed: 500KB/s}`: the speed transfers share (rules §8).
    func networkSpeed(_ node: Node) throws -> DeviceChange {
        let m = try mapping(node, "network", known: ["transferSpeed"])
        guard let n = m["transferSpeed"] else { throw err(node, "'network' needs transferSpeed: RATE (like 500KB/s)") }
        let text = try scalar(n, "transferSpeed")
        guard let v = Units.bandwidth(text), v > 0 else {
            throw err(n, "transferSpeed must be a rate like 2MB/s, got '\(text)'")
        }
        return .bandwidth(v)
    }

    /// `push: {app, type: background|alert|voip, priority: 5|10}`. Without a
    /// priority, APNs uses 10 — for a background push that is the classic
    /// mistake (rules §7), so it is not papered over here.
    func pushEntry(_ node: Node, bundles: KnownApps) throws -> Scenario.TimelineEntry.Event {
        let m = try mapping(node, "push", known: Self.pushKeys)
        guard let appNode = m["app"] else { throw err(node, "a push needs 'app:'") }
        let app = try bundle(appNode, bundles)
        var type = PushType.background
        if let t = m["type"] {
            let name = try scalar(t, "type")
            guard let v = PushType.allCases.first(where: { $0.description == name }) else {
                throw unknown(t, "push type", name, PushType.allCases.map(\.description))
            }
            type = v
        }
        var priority: UInt8 = 10
        if let p = m["priority"] {
            let v = try scalar(p, "priority")
            guard v == "5" || v == "10" else { throw err(p, "a push's priority is 5 or 10, got '\(v)'") }
            priority = UInt8(v)!
        }
        return .push(app, Push(type: type, priority: priority))
    }

    /// `debug: {simulateLaunch: ID}` / `{simulateExpiration: ID}`, optionally with `app:`.
    func debugCommand(_ node: Node, bundles: KnownApps) throws -> Scenario.TimelineEntry.Event {
        let m = try mapping(node, "debug", known: Self.debugKeys)
        let app = try m["app"].map { try bundle($0, bundles) }
        switch (m["simulateLaunch"], m["simulateExpiration"]) {
        case let (l?, nil): return .debug(.simulateLaunch(try scalar(l, "simulateLaunch")), app: app)
        case let (nil, e?): return .debug(.simulateExpiration(try scalar(e, "simulateExpiration")), app: app)
        default: throw err(node, "debug takes one of simulateLaunch: ID or simulateExpiration: ID")
        }
    }

    func userCommand(_ node: Node, bundles: KnownApps, notificationIDs: Set<String>) throws -> Scenario.UserCommand {
        let text = try scalar(node, "user")
        let words = text.split(separator: " ").map(String.init)
        guard let verb = words.first else { throw err(node, "an empty user action") }
        func target() throws -> String {
            guard words.count == 2 else { throw err(node, "'\(verb)' needs an app: '\(verb) BUNDLE'") }
            guard bundles.contains(words[1]) else { throw unknown(node, "app", words[1], bundles.names) }
            return words[1]
        }
        func alone() throws {
            guard words.count == 1 else { throw err(node, "'\(verb)' takes no argument") }
        }
        switch verb {
        case "launch": return .launch(try target())
        case "switchTo": return .switchTo(try target())
        case "forceQuit": return .forceQuit(try target())
        case "home": try alone(); return .home
        case "lock": try alone(); return .lock
        case "unlock": try alone(); return .unlock
        case "tapNotification":
            guard words.count == 2 else { throw err(node, "'tapNotification' needs a notification id: 'tapNotification ID'") }
            guard notificationIDs.contains(words[1]) else {
                throw unknown(node, "notification id (no 'notify' action schedules it)", words[1], notificationIDs.sorted())
            }
            return .tapNotification(words[1])
        case "allowNotifications": return .allowNotifications(try target())
        case "denyNotifications": return .denyNotifications(try target())
        case "cancelTask":
            guard words.count == 2 else {
                throw err(node, "'cancelTask' needs a continued-processing task identifier: 'cancelTask IDENTIFIER'")
            }
            return .cancelTask(words[1])
        default: throw unknown(node, "user action", verb, Self.userCommands)
        }
    }

    func expectation(_ node: Node, bundles: KnownApps, _ context: MomentContext) throws -> Expectation {
        let m = try mapping(node, "an expectation", known: nil)
        guard let kindNode = m["kind"] else { throw err(node, "an expectation needs 'kind:'") }
        let kind = try scalar(kindNode, "kind")
        if let feature = Self.futureTraceKinds[kind] {
            throw err(kindNode, "not yet supported: expectations on \(kind) (\(feature))")
        }
        guard let fieldNames = Self.traceKinds[kind] else {
            throw unknown(kindNode, "trace kind", kind, Array(Self.traceKinds.keys).sorted())
        }
        var e = Expectation(kind: kind, app: nil, fields: [], between: nil, count: nil,
                            location: location(node), text: "")
        var described = ["kind: \(kind)"]
        for (key, value) in m.ordered where key != "kind" {
            switch key {
            case "app":
                e.app = try bundle(value, bundles)
                described.append("app: \(e.app!)")
            case "between":
                let bounds = try sequence(value, "between")
                guard bounds.count == 2 else { throw err(value, "'between' is [FROM, TO]") }
                let from = try moment(bounds[0], "between", context), to = try moment(bounds[1], "between", context)
                guard from <= to else { throw err(value, "'between' must run forward in time") }
                e.between = (from, to)
                described.append("between: [\(try scalar(bounds[0], "")), \(try scalar(bounds[1], ""))]")
            case "count":
                guard let c = Int(try scalar(value, "count")), c >= 0 else { throw err(value, "count must be a whole number ≥ 0") }
                e.count = c
                described.append("count: \(c)")
            default:
                guard fieldNames.contains(key) else {
                    throw unknown(m.keyNodes[key]!, "field of \(kind) events", key,
                                  Self.expectationKeys.filter { $0 != "kind" } + fieldNames)
                }
                let v = try scalar(value, key)
                e.fields.append((key, v))
                described.append("\(key): \(v)")
            }
        }
        e.text = "{" + described.joined(separator: ", ") + "}"
        return e
    }

    // MARK: Node helpers

    struct Mapping {
        var ordered: [(String, Node)] = []
        var keyNodes: [String: Node] = [:]
        subscript(key: String) -> Node? { ordered.first { $0.0 == key }?.1 }
    }

    func mapping(_ node: Node, _ what: String, known: [String]?) throws -> Mapping {
        guard case let .mapping(m) = node else { throw err(node, "\(what) must be a mapping of 'key: value' pairs") }
        var result = Mapping()
        for (k, v) in m {
            let key = try scalar(k, "a key")
            if result.keyNodes[key] != nil { throw err(k, "'\(key)' is given twice") }
            if let known, !known.contains(key) { throw unknown(k, "key in \(what)", key, known) }
            result.ordered.append((key, v))
            result.keyNodes[key] = k
        }
        return result
    }

    func sequence(_ node: Node, _ what: String) throws -> [Node] {
        guard case let .sequence(s) = node else { throw err(node, "\(what) must be a list") }
        return Array(s)
    }

    func scalar(_ node: Node, _ what: String) throws -> String {
        guard case let .scalar(s) = node else { throw err(node, "\(what) must be a single value") }
        return s.string
    }

    func bool(_ node: Node, _ what: String) throws -> Bool {
        switch try scalar(node, what) {
        case "true": return true
        case "false": return false
        case let other: throw err(node, "\(what) must be true or false, got '\(other)'")
        }
    }

    func duration(_ node: Node, _ what: String) throws -> Nanoseconds {
        let text = try scalar(node, what)
        guard let d = Units.duration(text) else {
            if Units.isDurationOutOfRange(text) {
                throw err(node, "\(what): '\(text)' is out of range: a duration is at most "
                          + "\(Time.describe(ScenarioLimits.longestDuration))")
            }
            throw err(node, "\(what): '\(text)' is not a duration (write 500ms, 30s, 15m, 2h, 7d or 1h30m)")
        }
        return d
    }

    func moment(_ node: Node, _ what: String, _ context: MomentContext) throws -> Nanoseconds {
        let text = try scalar(node, what)
        guard let t = Units.moment(text, startOffset: context.startOffset, start: context.start) else {
            throw err(node, "\(what): '\(text)' is not a time (write HH:MM, Nd HH:MM, Mon HH:MM, or a duration like 90s)")
        }
        guard t >= 0 else { throw err(node, "\(what): \(text) is before the scenario starts") }
        return t
    }

    func bundle(_ node: Node, _ bundles: KnownApps) throws -> String {
        let name = try scalar(node, "app")
        guard bundles.contains(name) else { throw unknown(node, "app", name, bundles.names) }
        return name
    }

    func location(_ node: Node?) -> SourceLocation {
        let mark = node?.mark
        return loc(line: mark?.line ?? 1, column: mark?.column ?? 1)
    }
    func loc(line: Int, column: Int) -> SourceLocation { SourceLocation(file: file, line: line, column: column) }

    func err(_ node: Node?, _ message: String) -> ScenarioError { ScenarioError(location(node), message) }

    func unknown(_ node: Node, _ what: String, _ word: String, _ known: [String]) -> ScenarioError {
        var message = "unknown \(what) '\(word)'"
        if let guess = nearest(word, in: known) { message += "; did you mean '\(guess)'?" }
        else { message += " (known: \(known.joined(separator: ", ")))" }
        return err(node, message)
    }

    /// Collections nested deeper than `limits.nestingDepth` (a
    /// pass over the tree, without recursion).
    func checkNesting(_ root: Node) throws {
        var stack: [(Node, Int)] = [(root, 1)]
        while let (node, depth) = stack.popLast() {
            switch node {
            case .scalar, .alias: continue
            case let .mapping(m):
                if depth > limits.nestingDepth { throw tooDeep(node.mark) }
                for (k, v) in m { stack.append((k, depth + 1)); stack.append((v, depth + 1)) }
            case let .sequence(s):
                if depth > limits.nestingDepth { throw tooDeep(node.mark) }
                for v in s { stack.append((v, depth + 1)) }
            }
        }
    }

    func tooDeep(_ mark: Mark?) -> ScenarioError {
        ScenarioError(loc(line: mark?.line ?? 1, column: mark?.column ?? 1),
                      "the YAML nests deeper than \(limits.nestingDepth) levels (a scenario needs about 8)")
    }

    /// The first tab among a line's leading whitespace (1-based line and column).
    static func indentingTab(in text: String) -> (line: Int, column: Int)? {
        var line = 1
        for row in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var column = 1
            for c in row.utf8 {
                if c == UInt8(ascii: "\t") { return (line, column) }
                if c != UInt8(ascii: " ") { break }
                column += 1
            }
            line += 1
        }
        return nil
    }

    func yamlError(_ error: YamlError) -> ScenarioError {
        switch error {
        case let .scanner(_, problem, mark, _) where problem.contains("nesting level"),
             let .parser(_, problem, mark, _) where problem.contains("nesting level"):
            // libyaml's own words name its C API; ours name the limit.
            return tooDeep(mark)
        case let .duplicatedKeysInMapping(duplicates, context):
            return ScenarioError(loc(line: context.mark.line, column: context.mark.column),
                                 "'\(duplicates.first ?? "")' is given twice")
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            let what = context.map { "\(problem) \($0.text)" } ?? problem
            return ScenarioError(loc(line: mark.line, column: mark.column), "malformed YAML: \(what)")
        case let .composer(context, problem, mark, _):
            let what = context.map { "\(problem) \($0.text)" } ?? problem
            return ScenarioError(loc(line: mark.line, column: mark.column), "malformed YAML: \(what)")
        default:
            return ScenarioError(loc(line: 1, column: 1), "malformed YAML: \(error)")
        }
    }
}
