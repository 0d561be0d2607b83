import BGXCore

/// transistorsoft's TSBackgroundFetch, the native library behind
/// react-native-background-fetch, Flutter's background_fetch and
/// @transistorsoft/capacitor-background-fetch (docs/plugins/). Read from
/// its Objective-C source (TSBackgroundFetch.m, TSBGTask.m) and the wrappers'
/// bridges; the wrappers differ only in how the script reaches it.
enum TSBackgroundFetchPreset {
    static let fetchIdentifier = "com.transistorsoft.fetch"
    /// TSBackgroundFetch registers only permitted identifiers containing this (since 4.2.2).
    static let prefix = "com.transistorsoft"
    static let source = "react-native-background-fetch 4.4.2, background_fetch (Flutter) 1.6.2 and "
        + "@transistorsoft/capacitor-background-fetch 7.1.0, all on TSBackgroundFetch 4.1.1"

    static func expand(_ calls: TSBackgroundFetchCalls, use: PluginUse, manifest: AppManifest,
                       profile: PolicyProfile) -> PluginExpansion {
        var e = PluginExpansion(plugin: use.plugin, source: source)
        let script = use.script
        // iOS 12 and earlier have no BGTaskScheduler: the library falls back to the legacy fetch.
        guard !["ios12", "ios6"].contains(profile.name) else { return legacy(calls, use: use, into: e) }
        let fetchInterval = calls.minimumFetchInterval.map { Time.minutes($0) }
        var launch: [ScenarioApp.Action] = []
        var registeredProcessing: [String] = []
        for id in manifest.permittedTaskIdentifiers {
            if id == fetchIdentifier {
                launch.append(.register(id))
            } else if id.contains(prefix) {
                launch.append(.register(id))
                registeredProcessing.append(id)
            } else {
                e.notes.append("'\(id)' is permitted but TSBackgroundFetch registers only identifiers containing "
                               + "'\(prefix)' (since 4.2.2): it never gets a launch handler from the plugin")
            }
        }
        launch.append(.wait(script.startup))
        if let fetchInterval {
            launch.append(.submit(ScenarioApp.Submit(identifier: fetchIdentifier, kind: .appRefresh, earliestBegin: fetchInterval)))
        }
        for t in calls.scheduledTasks {
            // TSBGTask.schedule refuses unless some processing identifier was registered at launch.
            if registeredProcessing.isEmpty {
                e.notes.append("scheduleTask('\(t.taskId)') fails with \"Background procssing task was not registered in "
                               + "AppDelegate didFinishLaunchingWithOptions\": no permitted identifier contains '\(prefix)', "
                               + "so the library registered no processing task and submits nothing")
                continue
            }
            launch.append(.submit(request(t, use.plugin)))
        }
        e.handlers.append(.init(handler: .didFinishLaunching, actions: launch,
                                why: "TSBackgroundFetch registers its handlers as the app finishes launching (it observes "
                                    + "UIApplicationDidFinishLaunchingNotification); the script then calls configure and scheduleTask"))
        let fetchRegistered = manifest.permittedTaskIdentifiers.contains(fetchIdentifier)
        if calls.minimumFetchInterval != nil || fetchRegistered {
            // handleBGAppRefreshTask resubmits first, then hands the event to the script.
            e.handlers.append(.init(handler: .task(fetchIdentifier),
                                    actions: [ScenarioApp.Action.submit(ScenarioApp.Submit(identifier: fetchIdentifier, kind: .appRefresh,
                                                                         earliestBegin: fetchInterval ?? 0)),
                                             ] + script.work + [.complete(.task(success: true))],
                                    why: "the fetch event: the library submits the next request at once, the script's "
                                        + "callback works, BackgroundFetch.finish(taskId) completes the task with success"))
            e.handlers.append(.init(handler: .expire(fetchIdentifier),
                                    actions: script.finishesOnTimeout ? [.complete(.task(success: true))] : [],
                                    why: script.finishesOnTimeout
                                        ? "the timeout callback calls BackgroundFetch.finish(taskId): setTaskCompleted(success: true)"
                                        : "the timeout callback does not call finish: nothing completes the task"))
            e.tasks.append(PluginTask(identifier: fetchIdentifier, role: "fetch", kind: .appRefresh,
                                      registeredAtLaunch: fetchRegistered, earliestBegin: fetchInterval,
                                      resubmits: "at the start of each fetch event, and once in each process when "
                                        + "configure runs (a pending request is replaced)",
                                      onExpiry: script.finishesOnTimeout
                                        ? "the script's onTimeout gets {taskId, timeout: true} and calls finish: setTaskCompleted(success: true)"
                                        : "the script's onTimeout does not call finish: the task is never completed"))
        }
        for t in calls.scheduledTasks {
            // With no processing task registered, scheduleTask submits nothing: the task is listed, never run.
            let submitted = !registeredProcessing.isEmpty
            let registered = registeredProcessing.contains(t.taskId)
            var actions: [ScenarioApp.Action] = []
            // TSBGTask.execute schedules a periodic task again before the callback runs.
            if t.periodic { actions.append(.submit(request(t, use.plugin))) }
            actions += script.work + [.complete(.task(success: true))]
            if registered {
                e.handlers.append(.init(handler: .task(t.taskId), actions: actions,
                                        why: "the scheduleTask event" + (t.periodic ? ": periodic, so submitted again first" : "")
                                            + "; BackgroundFetch.finish(taskId) completes it with success"))
                e.handlers.append(.init(handler: .expire(t.taskId),
                                        actions: script.finishesOnTimeout ? [.complete(.task(success: true))] : [],
                                        why: "the timeout callback" + (script.finishesOnTimeout ? " calls finish" : " does not call finish")))
            }
            e.tasks.append(PluginTask(identifier: t.taskId, role: "scheduleTask", kind: .processing,
                                      registeredAtLaunch: registered, earliestBegin: delay(t, use.plugin),
                                      requiresNetworkConnectivity: t.requiresNetworkConnectivity,
                                      requiresExternalPower: t.requiresCharging,
                                      resubmits: !submitted ? "never: scheduleTask fails, as no processing task was registered"
                                        : t.periodic ? "at the start of each run (periodic: true), with the same delay"
                                        : "only when the script calls scheduleTask again (periodic: false)",
                                      onExpiry: script.finishesOnTimeout
                                        ? "the script's callback gets {taskId, timeout: true} and calls finish: setTaskCompleted(success: true)"
                                        : "the script does not call finish: the task is never completed"))
        }
        e.handlers.append(.init(handler: .performFetch, actions: script.work + [.complete(.fetch(.newData))],
                                why: "the AppDelegate's performFetchWithCompletionHandler, used only after the fallback below"))
        e.notes.append("fallback: when submitting the fetch request fails with BGTaskSchedulerErrorUnavailable (1) — "
                       + "the iOS Simulator — the library calls setMinimumBackgroundFetchInterval instead and the fetch comes "
                       + "through performFetch; on a device (and in bgx) the request is accepted")
        e.notes.append("a launch made for a scheduleTask task: the script's scheduleTask call runs the waiting callback "
                       + "instead of submitting again; bgx's script submits at every start, so such a launch leaves a new request")
        return e
    }

    /// The React Native and Flutter bridges divide the milliseconds by 1000 as
    /// integers (whole seconds); Capacitor's divides as a Double.
    static func delay(_ t: TSBackgroundFetchCalls.ScheduledTask, _ plugin: BackgroundPlugin) -> Nanoseconds {
        if plugin == .tsBackgroundFetch(.capacitor) { return t.delayMilliseconds * 1_000_000 }
        return Time.seconds(Int(t.delayMilliseconds / 1000))
    }

    static func request(_ t: TSBackgroundFetchCalls.ScheduledTask, _ plugin: BackgroundPlugin) -> ScenarioApp.Submit {
        var s = ScenarioApp.Submit(identifier: t.taskId, kind: .processing, earliestBegin: delay(t, plugin))
        s.requiresNetworkConnectivity = t.requiresNetworkConnectivity
        s.requiresExternalPower = t.requiresCharging
        return s
    }

    /// iOS 12 and earlier: configure sets the minimum background fetch
    /// interval, and the fetch comes through performFetch; scheduleTask fails.
    static func legacy(_ calls: TSBackgroundFetchCalls, use: PluginUse, into expansion: PluginExpansion) -> PluginExpansion {
        var e = expansion
        var launch: [ScenarioApp.Action] = [.wait(use.script.startup)]
        if let minutes = calls.minimumFetchInterval { launch.append(.setMinimumBackgroundFetchInterval(Time.minutes(minutes))) }
        e.handlers.append(.init(handler: .didFinishLaunching, actions: launch,
                                why: "no BGTaskScheduler before iOS 13: configure calls setMinimumBackgroundFetchInterval"))
        e.handlers.append(.init(handler: .performFetch, actions: use.script.work + [.complete(.fetch(.newData))],
                                why: "the fetch event comes through performFetchWithCompletionHandler; finish calls it with newData"))
        for t in calls.scheduledTasks {
            e.notes.append("scheduleTask('\(t.taskId)') fails: \"Background procssing tasks are only available with iOS 13+\"")
        }
        return e
    }
}
