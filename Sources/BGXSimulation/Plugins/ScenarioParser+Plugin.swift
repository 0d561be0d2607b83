import BGXCore
import Foundation
import Yams

/// An app's `plugin:` key (docs/plugins/): the plugin's name, the options its
/// script passes, and how the script behaves.
extension ScenarioParser {
    static let pluginCommonKeys = ["name", "startup", "takes", "callback"]
    /// Calls the plugins offer that bgx does not expand yet: recognised, and refused by name.
    static let pluginCallsNotYetSupported: [String: String] = [
        "stop": "BackgroundFetch.stop(taskId) (cancelling requests from the script)",
        "cancelByUniqueName": "workmanager's cancelByUniqueName (cancelling requests from the Dart code)",
        "cancelAll": "workmanager's cancelAll (cancelling every request from the Dart code)",
        "registerContinuedProcessingTask": "workmanager's registerContinuedProcessingTask (an iOS 26 BGContinuedProcessingTaskRequest "
            + "started from the foreground)",
        "unregisterTaskAsync": "BackgroundTask.unregisterTaskAsync (the last task stopping the worker)",
    ]
    static let pluginKeys: [String: [String]] = [
        "tsBackgroundFetch": ["configure", "scheduleTask", "onTimeout"],
        "workmanager": ["appDelegate", "registerPeriodicTask", "registerProcessingTask", "registerOneOffTask",
                        "registerHealthResearchTask", "returns"],
        "expoBackgroundTask": ["registerTaskAsync"],
    ]
    /// Options TSBackgroundFetch's `configure` reads on Android only.
    static let fetchConfigureAndroidOnly: [String: String] = [
        "stopOnTerminate": "iOS never launches an app the person force-quit, and after any other termination it "
            + "launches the app for the next fetch anyway: there is no stopOnTerminate on iOS",
        "enableHeadless": "Android's Headless JS; iOS launches the whole app",
        "startOnBoot": "Android only; on iOS a pending request survives a reboot",
        "forceAlarmManager": "Android's AlarmManager",
        "requiredNetworkType": "Android's JobScheduler constraint; an app-refresh request takes no constraints",
        "requiresBatteryNotLow": "Android's JobScheduler constraint; an app-refresh request takes no constraints",
        "requiresCharging": "Android's JobScheduler constraint for the fetch; an app-refresh request takes no constraints",
        "requiresDeviceIdle": "Android's JobScheduler constraint; an app-refresh request takes no constraints",
        "requiresStorageNotLow": "Android's JobScheduler constraint; an app-refresh request takes no constraints",
    ]
    static let scheduleTaskKeys = ["taskId", "delay", "periodic", "requiresCharging", "requiresNetworkConnectivity"]
    static let scheduleTaskAndroidOnly: [String: String] = [
        "forceAlarmManager": "Android's AlarmManager", "stopOnTerminate": "no such thing on iOS",
        "enableHeadless": "Android's Headless JS", "startOnBoot": "Android only",
        "requiredNetworkType": "Android only; iOS reads requiresNetworkConnectivity",
        "requiresBatteryNotLow": "Android only", "requiresDeviceIdle": "Android only; a processing task waits for an idle device anyway",
        "requiresStorageNotLow": "Android only", "type": "not used by TSBackgroundFetch's iOS scheduling",
    ]
    static let workmanagerAndroidOnly: [String: String] = [
        "frequency": "not used on iOS: each run resubmits with the delay it was registered with",
        "flexInterval": "Android only", "existingWorkPolicy": "Android only", "backoffPolicy": "Android only",
        "backoffPolicyDelay": "Android only", "tag": "Android only", "outOfQuotaPolicy": "Android only",
        "inputData": "passed to the Dart task; no effect on scheduling",
    ]

    func pluginUse(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> PluginUse {
        let m = try mapping(node, "plugin", known: nil)
        guard let nameNode = m["name"] else { throw err(node, "'plugin:' needs a 'name:' (react-native-background-fetch, workmanager, …)") }
        let name = try scalar(nameNode, "name")
        guard let plugin = BackgroundPlugin.named[name] else {
            throw unknown(nameNode, "plugin", name, BackgroundPlugin.named.keys.sorted())
        }
        let family: String = switch plugin {
        case .tsBackgroundFetch: "tsBackgroundFetch"
        case .workmanager: "workmanager"
        case .expoBackgroundTask: "expoBackgroundTask"
        }
        let known = Self.pluginCommonKeys + Self.pluginKeys[family]!
        for (key, _) in m.ordered where !known.contains(key) {
            if let call = Self.pluginCallsNotYetSupported[key] {
                throw err(m.keyNodes[key]!, "not yet supported: \(call) — bgx's \(name) preset does not expand it yet")
            }
            throw unknown(m.keyNodes[key]!, "key of \(name)'s plugin:", key, known)
        }
        var use = PluginUse(plugin: plugin, writtenName: name, calls: .expoBackgroundTask(.init()), location: location(node))
        if let n = m["startup"] { use.script.startup = try duration(n, "startup") }
        if let n = m["takes"] { use.script.takes = try duration(n, "takes") }
        if let n = m["callback"] {
            if m["takes"] != nil { throw err(n, "write 'takes' or 'callback', not both: a callback's own wait and work say how long it takes") }
            let list = try actions(n, context, device: device)
            for a in list {
                switch a.action {
                case .complete, .register, .progress, .updateTitle, .submitContinued:
                    throw ScenarioError(a.location, "a plugin's callback cannot '\(PluginExpansion.yaml(a.action).split(separator: ":").first ?? "")': "
                                        + "\(name) registers and completes its tasks itself when your callback finishes")
                default: break
                }
            }
            use.script.callback = list.map(\.action)
        }
        switch plugin {
        case .tsBackgroundFetch:
            use.calls = .tsBackgroundFetch(try fetchCalls(m, &use))
            if let n = m["onTimeout"] {
                switch try scalar(n, "onTimeout") {
                case "finish": use.script.finishesOnTimeout = true
                case "ignore": use.script.finishesOnTimeout = false
                case let other: throw unknown(n, "onTimeout", other, ["finish", "ignore"])
                }
            }
        case .workmanager:
            if let n = m["registerHealthResearchTask"] {
                throw err(n, "not yet supported: workmanager's registerHealthResearchTask submits a BGHealthResearchTaskRequest "
                          + "(iOS 17), which bgx does not simulate yet")
            }
            use.calls = .workmanager(try workmanagerCalls(m, &use))
            if let n = m["returns"] { use.script.succeeds = try bool(n, "returns") }
        case .expoBackgroundTask:
            var calls = ExpoBackgroundTaskCalls()
            for t in try m["registerTaskAsync"].map({ try sequence($0, "registerTaskAsync") }) ?? [] {
                let tm = try mapping(t, "registerTaskAsync", known: ["taskName", "minimumInterval"])
                guard let n = tm["taskName"] else { throw err(t, "registerTaskAsync needs a taskName") }
                var task = ExpoBackgroundTaskCalls.Task(taskName: try scalar(n, "taskName"))
                if let i = tm["minimumInterval"] { task.minimumInterval = try wholeNumber(i, "minimumInterval (minutes)") }
                calls.tasks.append(task)
            }
            use.calls = .expoBackgroundTask(calls)
        }
        return use
    }

    func fetchCalls(_ m: Mapping, _ use: inout PluginUse) throws -> TSBackgroundFetchCalls {
        var calls = TSBackgroundFetchCalls()
        if let c = m["configure"] {
            let cm = try mapping(c, "configure", known: ["minimumFetchInterval"] + Self.fetchConfigureAndroidOnly.keys.sorted())
            // The library's default, as the bridges pass it when the script gives none.
            calls.minimumFetchInterval = try cm["minimumFetchInterval"].map { try wholeNumber($0, "minimumFetchInterval (minutes)") } ?? 15
            for (key, _) in cm.ordered where key != "minimumFetchInterval" {
                use.ignored.append(("configure's \(key)", Self.fetchConfigureAndroidOnly[key]!))
            }
        }
        for t in try m["scheduleTask"].map({ try sequence($0, "scheduleTask") }) ?? [] {
            let tm = try mapping(t, "scheduleTask", known: Self.scheduleTaskKeys + Self.scheduleTaskAndroidOnly.keys.sorted())
            guard let idNode = tm["taskId"] else { throw err(t, "scheduleTask needs a taskId") }
            var task = TSBackgroundFetchCalls.ScheduledTask(taskId: try scalar(idNode, "taskId"))
            use.identifierLocations[task.taskId] = location(idNode)
            if let n = tm["delay"] { task.delayMilliseconds = try Int64(wholeNumber(n, "delay (milliseconds)")) }
            if let n = tm["periodic"] { task.periodic = try bool(n, "periodic") }
            if let n = tm["requiresCharging"] { task.requiresCharging = try bool(n, "requiresCharging") }
            if let n = tm["requiresNetworkConnectivity"] { task.requiresNetworkConnectivity = try bool(n, "requiresNetworkConnectivity") }
            for (key, _) in tm.ordered where Self.scheduleTaskAndroidOnly[key] != nil {
                use.ignored.append(("scheduleTask's \(key)", Self.scheduleTaskAndroidOnly[key]!))
            }
            calls.scheduledTasks.append(task)
        }
        return calls
    }

    func workmanagerCalls(_ m: Mapping, _ use: inout PluginUse) throws -> WorkmanagerCalls {
        var calls = WorkmanagerCalls()
        if let a = m["appDelegate"] {
            let am = try mapping(a, "appDelegate", known: ["registerPeriodicTask", "registerBGProcessingTask"])
            for p in try am["registerPeriodicTask"].map({ try sequence($0, "registerPeriodicTask") }) ?? [] {
                let pm = try mapping(p, "registerPeriodicTask", known: ["identifier", "frequency"])
                guard let id = pm["identifier"] else { throw err(p, "registerPeriodicTask needs an identifier") }
                calls.appDelegatePeriodic.append(.init(identifier: try scalar(id, "identifier"),
                                                       frequency: try pm["frequency"].map { try duration($0, "frequency") }))
            }
            for p in try am["registerBGProcessingTask"].map({ try sequence($0, "registerBGProcessingTask") }) ?? [] {
                calls.appDelegateProcessing.append(try scalar(p, "an identifier"))
            }
        }
        func names(_ node: Node, _ what: String, _ extra: [String]) throws -> (Mapping, String, String) {
            let tm = try mapping(node, what, known: ["uniqueName", "taskName", "initialDelay", "constraints"] + extra
                                 + Self.workmanagerAndroidOnly.keys.sorted())
            guard let u = tm["uniqueName"], let t = tm["taskName"] else { throw err(node, "\(what) needs a uniqueName and a taskName") }
            let unique = try scalar(u, "uniqueName")
            use.identifierLocations[unique] = location(u)
            for (key, _) in tm.ordered where Self.workmanagerAndroidOnly[key] != nil {
                use.ignored.append(("\(what)'s \(key)", Self.workmanagerAndroidOnly[key]!))
            }
            return (tm, unique, try scalar(t, "taskName"))
        }
        for p in try m["registerPeriodicTask"].map({ try sequence($0, "registerPeriodicTask") }) ?? [] {
            let (tm, unique, task) = try names(p, "registerPeriodicTask", [])
            if tm["constraints"] != nil {
                use.ignored.append(("registerPeriodicTask's constraints", "an app-refresh request takes no constraints"))
            }
            calls.periodic.append(.init(uniqueName: unique, taskName: task,
                                        frequency: try tm["frequency"].map { try duration($0, "frequency") },
                                        initialDelay: try tm["initialDelay"].map { try duration($0, "initialDelay") }))
        }
        for p in try m["registerProcessingTask"].map({ try sequence($0, "registerProcessingTask") }) ?? [] {
            let (tm, unique, task) = try names(p, "registerProcessingTask", [])
            var processing = WorkmanagerCalls.Processing(uniqueName: unique, taskName: task,
                                                         initialDelay: try tm["initialDelay"].map { try duration($0, "initialDelay") })
            if let c = tm["constraints"] {
                let cm = try mapping(c, "constraints", known: ["networkType", "requiresCharging", "requiresBatteryNotLow",
                                                               "requiresDeviceIdle", "requiresStorageNotLow"])
                if let n = cm["networkType"] {
                    let type = try scalar(n, "networkType")
                    let types = ["connected", "metered", "notRequired", "notRoaming", "unmetered", "temporarilyUnmetered"]
                    guard types.contains(type) else { throw unknown(n, "networkType", type, types) }
                    processing.requiresNetwork = type == "connected" || type == "metered"
                }
                if let n = cm["requiresCharging"] { processing.requiresCharging = try bool(n, "requiresCharging") }
                for key in ["requiresBatteryNotLow", "requiresDeviceIdle", "requiresStorageNotLow"] where cm[key] != nil {
                    use.ignored.append(("registerProcessingTask's \(key)", "Android only"))
                }
            }
            calls.processing.append(processing)
        }
        for p in try m["registerOneOffTask"].map({ try sequence($0, "registerOneOffTask") }) ?? [] {
            let (tm, unique, task) = try names(p, "registerOneOffTask", [])
            if tm["constraints"] != nil {
                use.ignored.append(("registerOneOffTask's constraints", "a one-off task on iOS is a background task, which takes no constraints"))
            }
            calls.oneOff.append(.init(uniqueName: unique, taskName: task,
                                      initialDelay: try tm["initialDelay"].map { try duration($0, "initialDelay") }))
        }
        return calls
    }

    func wholeNumber(_ node: Node, _ what: String) throws -> Int {
        let text = try scalar(node, what)
        guard let n = Int(text), n >= 0, n <= 10_000_000_000 else { throw err(node, "\(what) must be a whole number ≥ 0, got '\(text)'") }
        return n
    }
}

extension ScenarioParser {
    /// `infoPlist: PATH`: the app's own Info.plist, relative to the scenario's
    /// folder — its modes, task identifiers and UIApplicationExitsOnSuspend.
    func appInfoPlist(_ node: Node, bundle: String) throws -> (AppManifest, String) {
        let written = try scalar(node, "infoPlist")
        guard !written.isEmpty else { throw err(node, "infoPlist needs a path, like ios/Runner/Info.plist") }
        let folder = (file as NSString).deletingLastPathComponent
        let path = written.hasPrefix("/") || file == "<stdin>" || folder.isEmpty ? written : folder + "/" + written
        guard FileManager.default.fileExists(atPath: path) else {
            throw err(node, "infoPlist: no such file '\(written)' (read relative to the scenario's folder)")
        }
        var notYetSupported: [ScenarioError] = []
        var manifest = try InfoPlist.read(path, notYetSupported: &notYetSupported)
        if let first = notYetSupported.first { throw first }
        // Flutter's and React Native's templates write $(PRODUCT_BUNDLE_IDENTIFIER): the scenario's bundle names the app.
        manifest.bundleIdentifier = bundle
        return (manifest, path)
    }

    /// `plugin:`: the native calls the plugin makes become the app's handlers;
    /// `didFinishLaunching` runs the plugin's part first, then the app's own.
    func addPlugin(_ node: Node, to spec: inout ScenarioApp.Spec, _ context: MomentContext, device: DeviceState) throws {
        let use = try pluginUse(node, context, device: device)
        let expansion = PluginExpansion.expand(use, manifest: spec.manifest, profile: context.profile)
        for entry in expansion.handlers {
            let actions = entry.actions.map { ScenarioApp.LocatedAction(action: $0, location: use.location) }
            if let own = spec.handlers[entry.handler] {
                guard entry.handler == .didFinishLaunching else {
                    throw ScenarioError(spec.handlerLocations[entry.handler] ?? use.location,
                                        "the '\(entry.handler)' handler is \(use.plugin.name)'s (its native code handles it); "
                                        + "leave it out of 'on:' — `bgx plugin FILE` shows what it does")
                }
                // The app's own launch code runs with the plugin's native registrations, before the script starts.
                let native = actions.prefix { Self.isRegistration($0.action) }
                spec.handlers[entry.handler] = Array(native) + own + actions.dropFirst(native.count)
            } else {
                spec.handlers[entry.handler] = actions
                spec.handlerLocations[entry.handler] = use.location
            }
        }
        spec.plugin = use
        spec.pluginExpansion = expansion
    }

    static func isRegistration(_ action: ScenarioApp.Action) -> Bool {
        if case .register = action { return true }
        return false
    }
}
