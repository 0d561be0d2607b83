import BGXCore
import BGXSimulation
import Foundation
import Testing

/// What the plugins' native behaviour leads to on the simulated device:
/// expiry handled or not, a force quit, the worker moved by each start, and
/// `explain` and the summary in the plugin's words.
@Suite("Plugin presets, run: what their native calls lead to")
struct PluginRunTests {
    static func run(_ yaml: String) throws -> ScenarioRun {
        let run = try ScenarioRun(try ScenarioParser(file: "plugin.yaml").parse(yaml))
        run.run()
        return run
    }

    static func fetchApp(takes: String, onTimeout: String) -> String {
        """
        seed: 1
        duration: 2d
        apps:
          - bundle: com.example.news
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.transistorsoft.fetch]
            plugin: {name: react-native-background-fetch, configure: {minimumFetchInterval: 15}, takes: \(takes), onTimeout: \(onTimeout)}
        usage:
          - {app: com.example.news, daily: ["08:00 5m", "20:00 5m"]}
        """
    }

    @Test("a fetch callback slower than iOS allows: onTimeout's finish saves the app; without it iOS ends the app")
    func fetchExpiry() throws {
        let finishing = try Self.run(Self.fetchApp(takes: "2m", onTimeout: "finish")).device.traceLines
        #expect(finishing.contains { $0.contains("\"task.expire\"") && $0.contains("com.transistorsoft.fetch") })
        #expect(!finishing.contains { $0.contains("\"taskNotCompleted\"") })
        let ignoring = try Self.run(Self.fetchApp(takes: "2m", onTimeout: "ignore")).device.traceLines
        #expect(ignoring.contains { $0.contains("\"terminate\"") && $0.contains("\"taskNotCompleted\"") })
        let quick = try Self.run(Self.fetchApp(takes: "5s", onTimeout: "ignore")).device.traceLines
        #expect(!quick.contains { $0.contains("\"task.expire\"") })
        #expect(quick.contains { $0.contains("\"task.complete\"") && $0.contains("\"success\": true") })
    }

    static let notes = """
        seed: 1
        duration: 2d
        device: {charging: true}
        apps:
          - bundle: com.example.notes
            backgroundModes: [fetch, processing]
            permittedTaskIdentifiers: [com.example.refresh, com.example.cleanup]
            plugin:
              name: workmanager
              appDelegate: {registerPeriodicTask: [{identifier: com.example.refresh, frequency: 20m}], registerBGProcessingTask: [com.example.cleanup]}
              registerPeriodicTask: [{uniqueName: com.example.refresh, taskName: refresh}]
              registerProcessingTask: [{uniqueName: com.example.cleanup, taskName: cleanup}]
              takes: 30m
        usage:
          - {app: com.example.notes, daily: ["08:00 5m", "20:00 5m"]}
        timeline:
          - {every: day, at: "23:00", user: lock}
        """

    @Test("workmanager: an expired periodic task ends the app (its handler only logs); an expired processing task completes false")
    func workmanagerExpiry() throws {
        let lines = try Self.run(Self.notes).device.traceLines
        #expect(lines.contains { $0.contains("\"terminate\"") && $0.contains("taskNotCompleted") && $0.contains("com.example.refresh") })
        #expect(!lines.contains { $0.contains("\"terminate\"") && $0.contains("com.example.cleanup") })
        #expect(lines.contains { $0.contains("\"task.complete\"") && $0.contains("com.example.cleanup") && $0.contains("\"success\": false") })
    }

    @Test("expo-background-task: each start of the process cancels the worker's request and submits it again")
    func expoEveryStart() throws {
        let lines = try Self.run("""
            seed: 1
            duration: 1d
            apps:
              - bundle: com.example.expo
                backgroundModes: [processing]
                permittedTaskIdentifiers: [com.expo.modules.backgroundtask.processing]
                plugin: {name: expo-background-task, registerTaskAsync: [{taskName: sync, minimumInterval: 60}]}
            timeline:
              - {at: "08:00", user: launch com.example.expo}
              - {at: "08:05", user: forceQuit com.example.expo}
              - {at: "09:00", user: launch com.example.expo}
            """).device.traceLines
        let submits = lines.filter { $0.contains("\"task.submit\"") && $0.contains("com.expo.modules.backgroundtask.processing") }
        #expect(submits.count == 2)
        #expect(lines.contains { $0.contains("\"task.cancel\"") && $0.contains("com.expo.modules.backgroundtask.processing") })
    }

    @Test("explain names the plugin's task in its words, iOS's reason beneath; the summary counts its runs")
    func pluginWords() throws {
        let scenario = try ScenarioParser(file: "plugin.yaml").parse(Self.fetchApp(takes: "5s", onTimeout: "finish")
            + "\ntimeline:\n  - {at: 0d 20:06, user: forceQuit com.example.news}\n")
        let run = try ScenarioRun(scenario)
        let app = try #require(run.device.app("com.example.news"))
        let explained = run.explain(app: app, identifiers: ["com.transistorsoft.fetch"], at: Time.hours(30))
        let expansion = try #require(scenario.apps[0].pluginExpansion)
        #expect(expansion.headline(explained.tasks[0])
                == "react-native-background-fetch's fetch (`com.transistorsoft.fetch`) waits for the person to open the app (they force-quit it); iOS:")
        let summary = expansion.summaryLines(events: run.device.events(of: app), names: run.device.renderer)
        #expect(summary.first == "  react-native-background-fetch:")
        #expect(summary.count == 2 && summary[1].hasPrefix("    fetch (`com.transistorsoft.fetch`) ran "))
    }
}
