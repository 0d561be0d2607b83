import BGXCore
import Foundation

/// `bgx check`'s findings about a plugin's typical Info.plist mistakes, in the
/// plugin's own words (docs/plugins/): the identifier it needs, the mode its
/// setup adds, a task identifier its naming rule refuses.
enum PluginCheck {
    static func findings(_ scenario: Scenario) -> [ManifestFinding] {
        scenario.apps.flatMap { app -> [ManifestFinding] in
            guard let use = app.plugin else { return [] }
            return findings(app, use)
        }
    }

    static func findings(_ app: ScenarioApp.Spec, _ use: PluginUse) -> [ManifestFinding] {
        let manifest = app.manifest
        let name = use.plugin.name
        let plist = PlistPlace(app)
        var out: [ManifestFinding] = []
        func error(_ message: String, at place: String?) { out.append(.init(severity: .error, message: message, location: place)) }
        func warning(_ message: String, at place: String?) { out.append(.init(severity: .warning, message: message, location: place)) }
        func missingMode(_ mode: BackgroundMode, _ capability: String, _ consequence: String) {
            guard !manifest.backgroundModes.contains(mode) else { return }
            error("\(name): UIBackgroundModes lacks '\(mode.rawValue)' (Xcode: Signing & Capabilities → Background Modes → "
                  + "\(capability)): \(consequence)", at: plist.place(ofKey: "UIBackgroundModes"))
        }
        func notPermitted(_ id: String, _ consequence: String) {
            guard !manifest.permittedTaskIdentifiers.contains(id) else { return }
            error("\(name): '\(id)' is missing from BGTaskSchedulerPermittedIdentifiers: \(consequence)",
                  at: plist.place(ofKey: "BGTaskSchedulerPermittedIdentifiers"))
        }
        switch use.calls {
        case let .tsBackgroundFetch(calls):
            if calls.minimumFetchInterval != nil {
                missingMode(.fetch, "Background fetch", "BackgroundFetch.configure's fetch request is refused")
                notPermitted(TSBackgroundFetchPreset.fetchIdentifier,
                             "the plugin registers its fetch task only when it is listed, and iOS refuses "
                             + "BackgroundFetch.configure's request (notPermitted, 3) — the fetch never runs")
            }
            if !calls.scheduledTasks.isEmpty {
                missingMode(.processing, "Background processing", "BackgroundFetch.scheduleTask's requests are refused")
            }
            for t in calls.scheduledTasks {
                let at = use.identifierLocations[t.taskId]?.description
                if !t.taskId.contains(TSBackgroundFetchPreset.prefix) {
                    error("\(name): scheduleTask's taskId '\(t.taskId)' does not contain '\(TSBackgroundFetchPreset.prefix)': "
                          + "TSBackgroundFetch registers only such identifiers (since 4.2.2), so iOS has no launch handler "
                          + "for it and the task never runs — name it like 'com.transistorsoft.\(t.taskId.split(separator: ".").last ?? "task")'",
                          at: at)
                }
                notPermitted(t.taskId, "iOS refuses BackgroundFetch.scheduleTask('\(t.taskId)') (notPermitted, 3)")
            }
            if use.ignored.contains(where: { $0.option == "configure's stopOnTerminate" }) {
                warning("\(name): stopOnTerminate has no effect on iOS — after the person force-quits the app iOS launches "
                        + "nothing for it (no fetch) until they open it again", at: use.location.description)
            }
        case let .workmanager(calls):
            if !calls.periodic.isEmpty {
                missingMode(.fetch, "Background fetch", "registerPeriodicTask's app-refresh requests are refused")
            }
            if !calls.processing.isEmpty {
                missingMode(.processing, "Background processing", "registerProcessingTask's requests are refused")
            }
            let inAppDelegate = Set(calls.appDelegatePeriodic.map(\.identifier) + calls.appDelegateProcessing)
            let scheduled = calls.periodic.map { ($0.uniqueName, "registerPeriodicTask") }
                + calls.processing.map { ($0.uniqueName, "registerProcessingTask") }
            for (id, call) in scheduled {
                notPermitted(id, "on iOS the uniqueName is the BGTaskScheduler identifier, and iOS refuses \(call)('\(id)') "
                             + "(notPermitted, 3)")
                if !inAppDelegate.contains(id) {
                    let swift = call == "registerPeriodicTask" ? "WorkmanagerPlugin.registerPeriodicTask(withIdentifier:frequency:)"
                        : "WorkmanagerPlugin.registerBGProcessingTask(withIdentifier:)"
                    warning("\(name): '\(id)' is not registered in AppDelegate.swift (\(swift)): on the first launch after "
                            + "install the plugin registers it only when the Dart \(call) call runs, after launch, and iOS "
                            + "ends the app ('All launch handlers must be registered before application finishes launching')",
                            at: use.identifierLocations[id]?.description)
                }
            }
            for p in calls.periodic {
                let registered = calls.appDelegatePeriodic.first { $0.identifier == p.uniqueName }
                if let frequency = p.frequency, registered?.frequency != frequency {
                    warning("\(name): registerPeriodicTask('\(p.uniqueName)')'s frequency (\(Time.describe(frequency))) is not "
                            + "used on iOS: each run asks for the next no earlier than "
                            + (registered.map { $0.frequency.map(Time.describe) ?? "at once" } ?? (p.initialDelay.map(Time.describe) ?? "at once"))
                            + " later (the AppDelegate's frequency, else the initialDelay), and iOS decides when",
                            at: use.identifierLocations[p.uniqueName]?.description)
                }
            }
        case let .expoBackgroundTask(calls):
            guard !calls.tasks.isEmpty else { break }
            let prebuild = "expo-background-task's config plugin adds it when you run `npx expo prebuild` (the plugin listed in app.json)"
            if !manifest.backgroundModes.contains(.processing) {
                error("\(name): UIBackgroundModes lacks 'processing' — \(prebuild); without it registerTaskAsync throws "
                      + "BackgroundTasksNotConfigured", at: plist.place(ofKey: "UIBackgroundModes"))
            }
            notPermitted(ExpoBackgroundTaskPreset.identifier, "\(prebuild); without it iOS refuses the worker's request "
                         + "(notPermitted, 3) and no task ever runs")
        }
        return out
    }

    /// Where in the app's Info.plist a key is written, or the app's entry when the scenario writes the keys itself.
    struct PlistPlace {
        var path: String?
        var text = ""
        var fallback: String
        init(_ app: ScenarioApp.Spec) {
            path = app.infoPlist
            fallback = app.location.description
            if let path, let data = FileManager.default.contents(atPath: path) { text = String(decoding: data, as: UTF8.self) }
        }
        func place(ofKey key: String) -> String {
            guard let path else { return fallback }
            return (InfoPlist.location(ofKey: key, string: nil, in: text, file: path)
                ?? SourceLocation(file: path, line: 1, column: 1)).description
        }
    }
}
