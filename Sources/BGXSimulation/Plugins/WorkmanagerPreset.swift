import BGXCore

/// Flutter's workmanager on iOS (docs/plugins/workmanager.md), read from
/// workmanager_apple's WorkmanagerPlugin.swift: periodic tasks are app
/// refreshes, processing tasks processing requests, one-off tasks a
/// background task and a delay rather than a BGTask.
enum WorkmanagerPreset {
    static let source = "workmanager 0.10.7 (its iOS side, workmanager_apple 0.9.10)"

    static func expand(_ calls: WorkmanagerCalls, use: PluginUse) -> PluginExpansion {
        var e = PluginExpansion(plugin: use.plugin, source: source)
        let script = use.script
        // The AppDelegate's registrations come first; the plugin's own
        // didFinishLaunching re-registers what earlier sessions scheduled
        // (saved in UserDefaults) — each identifier once per process.
        var registered: [String] = []
        var launch: [ScenarioApp.Action] = []
        /// The earliestBegin each periodic task's handler resubmits with: fixed by whoever registered it first.
        var resubmitDelay: [String: Nanoseconds?] = [:]
        for p in calls.appDelegatePeriodic where !registered.contains(p.identifier) {
            registered.append(p.identifier)
            resubmitDelay[p.identifier] = p.frequency
            launch.append(.register(p.identifier))
        }
        for id in calls.appDelegateProcessing where !registered.contains(id) {
            registered.append(id)
            launch.append(.register(id))
        }
        for p in calls.periodic where !registered.contains(p.uniqueName) {
            registered.append(p.uniqueName)
            resubmitDelay[p.uniqueName] = p.initialDelay
            launch.append(.register(p.uniqueName))
        }
        for p in calls.processing where !registered.contains(p.uniqueName) {
            registered.append(p.uniqueName)
            launch.append(.register(p.uniqueName))
        }
        launch.append(.wait(script.startup))
        for p in calls.periodic {
            launch.append(.submit(ScenarioApp.Submit(identifier: p.uniqueName, kind: .appRefresh, earliestBegin: p.initialDelay)))
        }
        for p in calls.processing { launch.append(.submit(request(p))) }
        // A one-off task: a background task begun now, the Dart task after the delay, then ended.
        for o in calls.oneOff {
            launch += [ScenarioApp.Action.beginBackgroundTask(o.uniqueName), .wait(o.initialDelay ?? 0)] + script.work
                + [.endBackgroundTask(o.uniqueName)]
        }
        e.handlers.append(.init(handler: .didFinishLaunching, actions: launch,
                                why: "AppDelegate's WorkmanagerPlugin.register… calls, then the plugin re-registering what "
                                    + "earlier sessions scheduled; the Dart code's register…Task calls once it runs"))
        for o in calls.oneOff {
            e.handlers.append(.init(handler: .backgroundTaskExpired(o.uniqueName), actions: [.endBackgroundTask(o.uniqueName)],
                                    why: "the one-off task's expiration handler ends the background task; the Dart task "
                                        + "waits until the app runs again"))
        }
        for p in calls.periodic {
            let delay = resubmitDelay[p.uniqueName] ?? p.initialDelay
            e.handlers.append(.init(handler: .task(p.uniqueName),
                                    actions: [ScenarioApp.Action.submit(ScenarioApp.Submit(identifier: p.uniqueName, kind: .appRefresh, earliestBegin: delay)),
                                             ] + script.work + [.complete(.task(success: script.succeeds))],
                                    why: "handlePeriodicTask: submits the next request first, runs the Dart task, completes "
                                        + "with success when it returned true"))
            e.handlers.append(.init(handler: .expire(p.uniqueName), actions: [],
                                    why: "the expiration handler only logs 'BGAppRefreshTask expired': it does not complete the task"))
            e.tasks.append(PluginTask(identifier: p.uniqueName, role: "periodic task '\(p.taskName)'", kind: .appRefresh,
                                      registeredAtLaunch: true, earliestBegin: p.initialDelay,
                                      resubmits: "at the start of each run, earliest "
                                        + (delay.map { Time.describe($0) + " later" } ?? "at once (no delay)")
                                        + " — frequency is not used on iOS",
                                      onExpiry: "logs only; the task is not completed"))
        }
        for p in calls.processing {
            e.handlers.append(.init(handler: .task(p.uniqueName), actions: script.work + [.complete(.task(success: script.succeeds))],
                                    why: "handleBGProcessingTask: runs the Dart task in an operation and completes with success "
                                        + "unless it was cancelled; not submitted again"))
            e.handlers.append(.init(handler: .expire(p.uniqueName), actions: [.complete(.task(success: false))],
                                    why: "the expiration handler cancels the operation, whose completion completes the task with failure"))
            e.tasks.append(PluginTask(identifier: p.uniqueName, role: "processing task '\(p.taskName)'", kind: .processing,
                                      registeredAtLaunch: true, earliestBegin: p.initialDelay ?? 0,
                                      requiresNetworkConnectivity: p.requiresNetwork, requiresExternalPower: p.requiresCharging,
                                      resubmits: "only when the Dart code calls registerProcessingTask again",
                                      onExpiry: "cancels the Dart task: setTaskCompleted(success: false)"))
        }
        e.notes.append("registration: the plugin registers an identifier at launch only if AppDelegate.swift registers it or "
                       + "an earlier session scheduled it; on the first launch after install, the Dart call registers it after "
                       + "launch, which iOS answers by ending the app (bgx check warns) — bgx runs the later launches")
        e.notes.append("the Simulator: submit fails with unavailable (1) and the plugin only logs 'Could not schedule "
                       + "BGAppRefreshTask' (or BGProcessingTask); nothing runs unless the debugger launches it — bgx plays a device")
        if !calls.oneOff.isEmpty {
            e.notes.append("one-off tasks run one after another in bgx's script; the plugin starts each on its own queue")
        }
        return e
    }

    static func request(_ p: WorkmanagerCalls.Processing) -> ScenarioApp.Submit {
        var s = ScenarioApp.Submit(identifier: p.uniqueName, kind: .processing, earliestBegin: p.initialDelay ?? 0)
        s.requiresNetworkConnectivity = p.requiresNetwork
        s.requiresExternalPower = p.requiresCharging
        return s
    }
}
