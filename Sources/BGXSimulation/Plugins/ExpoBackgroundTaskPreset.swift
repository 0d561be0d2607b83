import BGXCore

/// expo-background-task on iOS (docs/plugins/expo-background-task.md): one
/// processing request carries every JavaScript task. Read from its
/// BackgroundTaskAppDelegate, BackgroundTaskScheduler and config plugin.
enum ExpoBackgroundTaskPreset {
    static let identifier = "com.expo.modules.backgroundtask.processing"
    /// BackgroundTaskScheduler's interval when no task gives `minimumInterval`.
    static let defaultInterval = Time.hours(12)
    static let source = "expo-background-task in the expo/expo repository (ios/BackgroundTaskScheduler.swift with "
        + "its SchedulerState, BackgroundTaskAppDelegate.swift, plugin/src/withBackgroundTask.ts; Expo SDK 54–55)"

    static func expand(_ calls: ExpoBackgroundTaskCalls, use: PluginUse) -> PluginExpansion {
        var e = PluginExpansion(plugin: use.plugin, source: source)
        let script = use.script
        // The first registered task schedules the worker, with the interval the
        // registrations have set by then — the first one's, in practice.
        let interval = calls.tasks.first?.minimumInterval.map { Time.minutes($0) } ?? defaultInterval
        var request = ScenarioApp.Submit(identifier: identifier, kind: .processing, earliestBegin: interval)
        request.requiresNetworkConnectivity = true
        let schedule: [ScenarioApp.Action] = [.cancel(identifier), .submit(request)]
        var launch: [ScenarioApp.Action] = [.register(identifier), .wait(script.startup)]
        if !calls.tasks.isEmpty { launch += schedule }
        e.handlers.append(.init(handler: .didFinishLaunching, actions: launch,
                                why: "the AppDelegate subscriber registers the worker; when the script registers its tasks "
                                    + "(at every start, TaskManager restores them) the first one cancels and submits the worker"))
        e.handlers.append(.init(handler: .task(identifier), actions: script.work + [.complete(.task(success: true))] + schedule,
                                why: "runs every registered JavaScript task, completes with success, then reschedules the worker"))
        e.handlers.append(.init(handler: .expire(identifier), actions: [.complete(.task(success: false))] + schedule,
                                why: "the expiration handler completes with failure and reschedules the worker"))
        let names = calls.tasks.map(\.taskName)
        e.tasks.append(PluginTask(identifier: identifier,
                                  role: "worker" + (names.isEmpty ? "" : " (running \(names.joined(separator: ", ")))"),
                                  kind: .processing, registeredAtLaunch: true, earliestBegin: interval,
                                  requiresNetworkConnectivity: true, requiresExternalPower: false,
                                  resubmits: "after each run and each expiry, and at every app start (cancelled, then "
                                    + "submitted again: opening the app moves the earliest begin \(Time.describe(interval)) on)",
                                  onExpiry: "setTaskCompleted(success: false), then the worker is scheduled again"))
        if calls.tasks.count > 1 {
            e.notes.append("several tasks share the one worker: it runs them all at once, at the first task's interval")
        }
        e.notes.append("the Simulator: registerTaskAsync refuses (background tasks are not supported there); bgx runs the device's scheduler")
        return e
    }
}
