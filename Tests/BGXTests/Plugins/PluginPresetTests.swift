import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Each plugin's preset expands into the native calls the plugin makes on
/// iOS (docs/plugins/): the identifiers it registers at launch, the requests
/// it submits with their dates, when it submits again, what it does on expiry.
@Suite("Plugin presets: the native calls each plugin makes")
struct PluginPresetTests {
    static func app(_ plist: String, _ plugin: String, profile: String = "modern") -> String {
        """
        profile: \(profile)
        apps:
          - bundle: com.example.app
        \(plist)
            plugin:
        \(plugin)
        """
    }

    static func expansion(_ yaml: String) throws -> PluginExpansion {
        let scenario = try ScenarioParser(file: "plugin.yaml").parse(yaml)
        return try #require(scenario.apps.first?.pluginExpansion)
    }

    static func lines(_ e: PluginExpansion, _ handler: String) -> [String] {
        (e.handlers.first { $0.handler.description == handler }?.actions ?? []).map(PluginExpansion.yaml)
    }

    static let fetchPlist = """
            backgroundModes: [fetch, processing]
            permittedTaskIdentifiers: [com.transistorsoft.fetch, com.transistorsoft.nightly, com.example.other]
        """

    @Test("react-native-background-fetch: fetch and scheduleTask registered at launch, submitted by the script, resubmitted by the handler")
    func reactNativeFetch() throws {
        let e = try Self.expansion(Self.app(Self.fetchPlist, """
                  name: react-native-background-fetch
                  configure: {minimumFetchInterval: 30, stopOnTerminate: false, enableHeadless: true}
                  scheduleTask:
                    - {taskId: com.transistorsoft.nightly, delay: 3600000, periodic: true, requiresCharging: true, forceAlarmManager: true}
                  takes: 8s
            """))
        // Only identifiers containing com.transistorsoft are registered: com.example.other is not.
        #expect(Self.lines(e, "didFinishLaunching") == [
            "register: com.transistorsoft.fetch", "register: com.transistorsoft.nightly", "wait: 1s",
            "submit: {identifier: com.transistorsoft.fetch, type: appRefresh, earliestBegin: 30m}",
            "submit: {identifier: com.transistorsoft.nightly, type: processing, earliestBegin: 1h, requiresExternalPower: true}",
        ])
        #expect(Self.lines(e, "task com.transistorsoft.fetch") == [
            "submit: {identifier: com.transistorsoft.fetch, type: appRefresh, earliestBegin: 30m}", "wait: 8s", "complete: true",
        ])
        #expect(Self.lines(e, "expire com.transistorsoft.fetch") == ["complete: true"])
        // periodic: true submits again at the start of each run.
        #expect(Self.lines(e, "task com.transistorsoft.nightly") == [
            "submit: {identifier: com.transistorsoft.nightly, type: processing, earliestBegin: 1h, requiresExternalPower: true}",
            "wait: 8s", "complete: true",
        ])
        #expect(Self.lines(e, "performFetch") == ["wait: 8s", "complete: newData"])
        let fetch = try #require(e.task("com.transistorsoft.fetch"))
        #expect(fetch.kind == .appRefresh && fetch.registeredAtLaunch && fetch.earliestBegin == Time.minutes(30))
        let nightly = try #require(e.task("com.transistorsoft.nightly"))
        #expect(nightly.kind == .processing && nightly.requiresExternalPower && !nightly.requiresNetworkConnectivity)
        #expect(e.name(of: "com.transistorsoft.fetch") == "react-native-background-fetch's fetch (`com.transistorsoft.fetch`)")
        #expect(e.notes.contains { $0.contains("'com.example.other'") && $0.contains("never gets a launch handler") })
        #expect(e.notes.contains { $0.contains("stopOnTerminate") && $0.hasPrefix("ignored on iOS") })
        #expect(e.notes.contains { $0.contains("forceAlarmManager") })
        #expect(e.notes.contains { $0.contains("setMinimumBackgroundFetchInterval") && $0.contains("(1)") })
    }

    @Test("a one-shot scheduleTask is not submitted again, and onTimeout: ignore leaves the task uncompleted")
    func oneShotAndIgnoredTimeout() throws {
        let e = try Self.expansion(Self.app(Self.fetchPlist, """
                  name: react-native-background-fetch
                  configure: {}
                  scheduleTask: [{taskId: com.transistorsoft.nightly, delay: 60000}]
                  onTimeout: ignore
            """))
        #expect(Self.lines(e, "task com.transistorsoft.nightly") == ["wait: 5s", "complete: true"])
        #expect(Self.lines(e, "expire com.transistorsoft.fetch").isEmpty)
        #expect(Self.lines(e, "expire com.transistorsoft.nightly").isEmpty)
        // configure without minimumFetchInterval: the library's 15 minutes.
        #expect(e.task("com.transistorsoft.fetch")?.earliestBegin == Time.minutes(15))
    }

    @Test("Flutter's and React Native's bridges cut the delay to whole seconds; Capacitor's keeps the milliseconds")
    func delayUnits() throws {
        for (name, expected) in [("background_fetch", "1s"), ("react-native-background-fetch", "1s"),
                                 ("\"@transistorsoft/capacitor-background-fetch\"", "1.5s")] {
            let e = try Self.expansion(Self.app(Self.fetchPlist, """
                      name: \(name)
                      scheduleTask: [{taskId: com.transistorsoft.nightly, delay: 1500}]
                """))
            #expect(Self.lines(e, "didFinishLaunching").last == "submit: {identifier: com.transistorsoft.nightly, type: processing, earliestBegin: \(expected)}", "\(name)")
        }
    }

    @Test("a scheduleTask with no com.transistorsoft identifier permitted is refused by the library: nothing submitted")
    func scheduleTaskWithoutRegisteredProcessing() throws {
        let e = try Self.expansion(Self.app("""
                backgroundModes: [fetch, processing]
                permittedTaskIdentifiers: [com.transistorsoft.fetch, com.example.sync]
            """, """
                  name: react-native-background-fetch
                  scheduleTask: [{taskId: com.example.sync, delay: 0}]
            """))
        #expect(Self.lines(e, "didFinishLaunching") == ["register: com.transistorsoft.fetch", "wait: 1s"])
        #expect(e.notes.contains { $0.contains("scheduleTask('com.example.sync') fails") })
        let sync = try #require(e.task("com.example.sync"))
        #expect(!sync.registeredAtLaunch && sync.resubmits.hasPrefix("never"))
        #expect(Self.lines(e, "task com.example.sync").isEmpty)
    }

    @Test("iOS 12: no BGTaskScheduler — configure sets the minimum background fetch interval, the fetch comes through performFetch")
    func legacyFetch() throws {
        let e = try Self.expansion(Self.app(Self.fetchPlist, """
                  name: react-native-background-fetch
                  configure: {minimumFetchInterval: 15}
                  scheduleTask: [{taskId: com.transistorsoft.nightly, delay: 0}]
            """, profile: "ios12"))
        #expect(Self.lines(e, "didFinishLaunching") == ["wait: 1s", "setMinimumBackgroundFetchInterval: 15m"])
        #expect(Self.lines(e, "performFetch") == ["wait: 5s", "complete: newData"])
        #expect(e.tasks.isEmpty)
        #expect(e.notes.contains { $0.contains("only available with iOS 13+") })
    }

    static let workmanagerPlist = """
            backgroundModes: [fetch, processing]
            permittedTaskIdentifiers: [com.example.refresh, com.example.cleanup]
        """

    @Test("workmanager: periodic is an app refresh resubmitted with AppDelegate's frequency; processing completes false on expiry")
    func workmanager() throws {
        let e = try Self.expansion(Self.app(Self.workmanagerPlist, """
                  name: workmanager
                  appDelegate:
                    registerPeriodicTask: [{identifier: com.example.refresh, frequency: 20m}]
                    registerBGProcessingTask: [com.example.cleanup]
                  registerPeriodicTask:
                    - {uniqueName: com.example.refresh, taskName: refresh, frequency: 15m, initialDelay: 5m}
                  registerProcessingTask:
                    - {uniqueName: com.example.cleanup, taskName: cleanup, initialDelay: 2h, constraints: {networkType: connected, requiresCharging: true}}
                  registerOneOffTask:
                    - {uniqueName: upload, taskName: upload, initialDelay: 10s}
                  takes: 6s
                  returns: false
            """))
        #expect(Self.lines(e, "didFinishLaunching") == [
            "register: com.example.refresh", "register: com.example.cleanup", "wait: 1s",
            "submit: {identifier: com.example.refresh, type: appRefresh, earliestBegin: 5m}",
            "submit: {identifier: com.example.cleanup, type: processing, earliestBegin: 2h, requiresNetworkConnectivity: true, requiresExternalPower: true}",
            "beginBackgroundTask: upload", "wait: 10s", "wait: 6s", "endBackgroundTask: upload",
        ])
        // The handler resubmits with the delay the AppDelegate registered, not the Dart frequency.
        #expect(Self.lines(e, "task com.example.refresh") == [
            "submit: {identifier: com.example.refresh, type: appRefresh, earliestBegin: 20m}", "wait: 6s", "complete: false",
        ])
        #expect(Self.lines(e, "expire com.example.refresh").isEmpty)
        #expect(Self.lines(e, "task com.example.cleanup") == ["wait: 6s", "complete: false"])
        #expect(Self.lines(e, "expire com.example.cleanup") == ["complete: false"])
        #expect(Self.lines(e, "backgroundTaskExpired upload") == ["endBackgroundTask: upload"])
        #expect(e.notes.contains { $0.contains("frequency") && $0.hasPrefix("ignored on iOS") })
        let cleanup = try #require(e.task("com.example.cleanup"))
        #expect(cleanup.requiresNetworkConnectivity && cleanup.requiresExternalPower && cleanup.earliestBegin == Time.hours(2))
    }

    @Test("workmanager without AppDelegate registration: resubmits with its initialDelay (none: no earliest begin)")
    func workmanagerWithoutAppDelegate() throws {
        let e = try Self.expansion(Self.app(Self.workmanagerPlist, """
                  name: workmanager
                  registerPeriodicTask: [{uniqueName: com.example.refresh, taskName: refresh}]
            """))
        #expect(Self.lines(e, "task com.example.refresh").first == "submit: {identifier: com.example.refresh, type: appRefresh}")
    }

    @Test("workmanager's health-research task is refused, not pretended")
    func healthResearchRefused() {
        #expect(throws: ScenarioError.self) {
            _ = try Self.expansion(Self.app(Self.workmanagerPlist, """
                      name: workmanager
                      registerHealthResearchTask: [{uniqueName: com.example.study, taskName: study}]
                """))
        }
    }

    @Test("expo-background-task: one processing worker, cancelled and submitted at every start, after each run and expiry")
    func expo() throws {
        let e = try Self.expansion(Self.app("""
                backgroundModes: [processing]
                permittedTaskIdentifiers: [com.expo.modules.backgroundtask.processing]
            """, """
                  name: expo-background-task
                  registerTaskAsync: [{taskName: sync, minimumInterval: 15}, {taskName: other, minimumInterval: 60}]
                  takes: 3s
            """))
        let submit = "submit: {identifier: com.expo.modules.backgroundtask.processing, type: processing, earliestBegin: 15m, requiresNetworkConnectivity: true}"
        let cancel = "cancel: com.expo.modules.backgroundtask.processing"
        #expect(Self.lines(e, "didFinishLaunching") == ["register: com.expo.modules.backgroundtask.processing", "wait: 1s", cancel, submit])
        #expect(Self.lines(e, "task com.expo.modules.backgroundtask.processing") == ["wait: 3s", "complete: true", cancel, submit])
        #expect(Self.lines(e, "expire com.expo.modules.backgroundtask.processing") == ["complete: false", cancel, submit])
        #expect(e.tasks.count == 1 && e.tasks[0].role == "worker (running sync, other)")
        let plain = try Self.expansion(Self.app("", """
                  name: expo-background-task
                  registerTaskAsync: [{taskName: sync}]
            """))
        #expect(plain.task("com.expo.modules.backgroundtask.processing")?.earliestBegin == Time.hours(12))
    }

    @Test("the app's own didFinishLaunching runs with the plugin's registrations; a handler the plugin owns is refused in on:")
    func ownHandlers() throws {
        let scenario = try ScenarioParser(file: "plugin.yaml").parse("""
            apps:
              - bundle: com.example.app
                backgroundModes: [processing]
                permittedTaskIdentifiers: [com.expo.modules.backgroundtask.processing]
                plugin: {name: expo-background-task, registerTaskAsync: [{taskName: sync}]}
                on:
                  didFinishLaunching: [{work: 1s}]
            """)
        let launch = scenario.apps[0].handlers[.didFinishLaunching]!.map { PluginExpansion.yaml($0.action) }
        #expect(launch.prefix(3) == ["register: com.expo.modules.backgroundtask.processing", "work: 1s", "wait: 1s"])
        #expect(throws: ScenarioError.self) {
            _ = try ScenarioParser(file: "plugin.yaml").parse("""
                apps:
                  - bundle: com.example.app
                    plugin: {name: expo-background-task}
                    on:
                      task com.expo.modules.backgroundtask.processing: [{complete: true}]
                """)
        }
    }

    @Test("callback: the script's callback as scenario actions, in place of waiting 'takes'; it may not complete the task itself")
    func callbackActions() throws {
        let e = try Self.expansion(Self.app(Self.fetchPlist, """
                  name: react-native-background-fetch
                  configure: {minimumFetchInterval: 15}
                  callback:
                    - wait: 3s
                    - notify: {id: headlines, body: New headlines}
            """))
        #expect(Self.lines(e, "task com.transistorsoft.fetch") == [
            "submit: {identifier: com.transistorsoft.fetch, type: appRefresh, earliestBegin: 15m}", "wait: 3s",
            "notify: {id: headlines}", "complete: true",
        ])
        #expect(throws: ScenarioError.self) {
            _ = try Self.expansion(Self.app(Self.fetchPlist, """
                      name: react-native-background-fetch
                      callback: [{complete: true}]
                """))
        }
        #expect(throws: ScenarioError.self) {
            _ = try Self.expansion(Self.app(Self.fetchPlist, """
                      name: react-native-background-fetch
                      takes: 5s
                      callback: [{wait: 5s}]
                """))
        }
    }

    @Test("calls bgx does not expand yet are refused by name, not pretended")
    func notYetSupportedCalls() {
        for (plugin, key) in [("react-native-background-fetch", "stop"), ("workmanager", "cancelByUniqueName"),
                              ("workmanager", "registerContinuedProcessingTask"), ("expo-background-task", "unregisterTaskAsync")] {
            do {
                _ = try ScenarioParser(file: "p.yaml").parse("apps:\n  - bundle: a\n    plugin: {name: \(plugin), \(key): []}\n")
                Issue.record("\(key) accepted")
            } catch let e as ScenarioError {
                #expect(e.message.hasPrefix("not yet supported: ") && e.location.line == 3, "\(e)")
            } catch { Issue.record("\(error)") }
        }
    }

    @Test("an unknown plugin or option is an error at its place, with a guess")
    func badInput() {
        do {
            _ = try ScenarioParser(file: "p.yaml").parse("apps:\n  - bundle: a\n    plugin: {name: react-native-backgroundfetch}\n")
            Issue.record("no error")
        } catch let e as ScenarioError {
            #expect(e.description.contains("p.yaml:3:") && e.description.contains("did you mean 'react-native-background-fetch'"))
        } catch { Issue.record("\(error)") }
        #expect(throws: ScenarioError.self) {
            _ = try ScenarioParser(file: "p.yaml").parse("apps:\n  - bundle: a\n    plugin: {name: workmanager, configure: {}}\n")
        }
    }
}
