/// `bgx init --plugin NAME`: a starting scenario for an app that uses the
/// plugin — its Info.plist keys, the calls its script makes, a person who
/// opens it three times a day, and nights on the charger.
public enum PluginTemplate {
    public static func scenario(for name: String) -> String? {
        guard let plugin = BackgroundPlugin.named[name] else { return nil }
        // YAML reserves a leading '@': the scoped npm name is written quoted.
        let yamlName = name.hasPrefix("@") ? "\"\(name)\"" : name
        let head = """
            # A starting scenario for an app that uses \(name) (docs/plugins/).
            # Run it: bgx run THIS_FILE   See the native calls: bgx plugin THIS_FILE
            # Why a task waits: bgx explain THIS_FILE --app com.example.app --at "1d 12:00"
            seed: 1
            duration: 3d
            apps:
              - bundle: com.example.app          # your app's bundle identifier
                # Instead of the two keys below, name your Info.plist (relative to this file):
                # infoPlist: ios/\(plugin.language == "Dart" ? "Runner" : "YourApp")/Info.plist

            """
        let body: String
        switch plugin {
        case .tsBackgroundFetch:
            body = """
                    backgroundModes: [fetch, processing]
                    permittedTaskIdentifiers: [com.transistorsoft.fetch, com.transistorsoft.sync]
                    plugin:
                      name: \(yamlName)
                      # BackgroundFetch.configure({minimumFetchInterval: 15, stopOnTerminate: false, enableHeadless: true}, onEvent, onTimeout)
                      configure: {minimumFetchInterval: 15}
                      # BackgroundFetch.scheduleTask({taskId: 'com.transistorsoft.sync', delay: 3600000, periodic: true, requiresCharging: true})
                      scheduleTask:
                        - {taskId: com.transistorsoft.sync, delay: 3600000, periodic: true, requiresCharging: true}
                      takes: 5s          # how long your callback works before BackgroundFetch.finish(taskId)
                      onTimeout: finish  # your onTimeout callback calls BackgroundFetch.finish(taskId)

                """
        case .workmanager:
            body = """
                    backgroundModes: [fetch, processing]
                    permittedTaskIdentifiers: [com.example.app.refresh, com.example.app.cleanup]
                    plugin:
                      name: workmanager
                      # What ios/Runner/AppDelegate.swift registers before didFinishLaunching returns:
                      appDelegate:
                        registerPeriodicTask: [{identifier: com.example.app.refresh, frequency: 20m}]
                        registerBGProcessingTask: [com.example.app.cleanup]
                      # Workmanager().registerPeriodicTask("com.example.app.refresh", "refresh", frequency: Duration(minutes: 20))
                      registerPeriodicTask:
                        - {uniqueName: com.example.app.refresh, taskName: refresh, frequency: 20m}
                      # Workmanager().registerProcessingTask("com.example.app.cleanup", "cleanup",
                      #     constraints: Constraints(networkType: NetworkType.connected, requiresCharging: true))
                      registerProcessingTask:
                        - {uniqueName: com.example.app.cleanup, taskName: cleanup, constraints: {networkType: connected, requiresCharging: true}}
                      takes: 5s          # how long your Dart task runs before it returns
                      returns: true      # what it returns

                """
        case .expoBackgroundTask:
            body = """
                    backgroundModes: [processing]          # the config plugin adds these two (npx expo prebuild)
                    permittedTaskIdentifiers: [com.expo.modules.backgroundtask.processing]
                    plugin:
                      name: expo-background-task
                      # BackgroundTask.registerTaskAsync('sync', {minimumInterval: 15})  (minutes)
                      registerTaskAsync:
                        - {taskName: sync, minimumInterval: 15}
                      takes: 5s          # how long your task's async function runs

                """
        }
        let tail = """
            usage:
              - {app: com.example.app, daily: ["08:00 5m", "12:30 3m", "20:00 10m"]}
            timeline:
              - {every: day, at: "23:00", user: lock}
              - {every: day, at: "23:00", device: {charging: true}}
              - {every: day, at: "07:00", device: {charging: false}}
            expect:
              - {kind: task.reject, count: 0}
              - {kind: terminate, app: com.example.app, count: 0}

            """
        return head + body + tail
    }
}
