import BGXCore
import BGXSimulation
import Foundation
import Testing

/// An app names its own Info.plist (`infoPlist:`), and `bgx check` reports a
/// plugin's typical Info.plist mistakes in the plugin's words.
@Suite("Plugins: the app's Info.plist, and bgx check in the plugin's words")
struct PluginCheckTests {
    static func plist(modes: [String], identifiers: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        \t<key>UIBackgroundModes</key>
        \t<array>
        \(modes.map { "\t\t<string>\($0)</string>" }.joined(separator: "\n"))
        \t</array>
        \t<key>BGTaskSchedulerPermittedIdentifiers</key>
        \t<array>
        \(identifiers.map { "\t\t<string>\($0)</string>" }.joined(separator: "\n"))
        \t</array>
        </dict>
        </plist>

        """
    }

    /// Writes `ios/Runner/Info.plist` and a scenario naming it; returns the scenario.
    static func scenario(plist: String, plugin: String) throws -> Scenario {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-plugin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("ios/Runner"), withIntermediateDirectories: true)
        try plist.write(to: dir.appendingPathComponent("ios/Runner/Info.plist"), atomically: true, encoding: .utf8)
        let yaml = """
            apps:
              - bundle: com.example.app
                infoPlist: ios/Runner/Info.plist
                plugin:
            \(plugin)
            """
        let path = dir.appendingPathComponent("app.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try ScenarioParser.parse(contentsOf: path)
    }

    static func findings(_ s: Scenario) -> [String] { ScenarioCheck.findings(s).findings.map(\.description) }

    static let fetch = """
              name: react-native-background-fetch
              configure: {minimumFetchInterval: 15}
              scheduleTask: [{taskId: com.transistorsoft.nightly, delay: 0, requiresCharging: true}]
        """

    @Test("the Info.plist gives the modes and identifiers; the scenario's bundle names the app")
    func readsInfoPlist() throws {
        let s = try Self.scenario(plist: Self.plist(modes: ["fetch", "processing"],
                                                    identifiers: ["com.transistorsoft.fetch", "com.transistorsoft.nightly"]),
                                  plugin: Self.fetch)
        let m = s.apps[0].manifest
        #expect(m.bundleIdentifier == "com.example.app")
        #expect(m.backgroundModes == [.fetch, .processing])
        #expect(m.permittedTaskIdentifiers == ["com.transistorsoft.fetch", "com.transistorsoft.nightly"])
        #expect(Self.findings(s).isEmpty, "\(Self.findings(s))")
    }

    @Test("modes written beside infoPlist, or a missing file, are errors at their place")
    func infoPlistErrors() throws {
        #expect(throws: ScenarioError.self) {
            _ = try ScenarioParser(file: "/nonexistent/app.yaml").parse("apps:\n  - bundle: a\n    infoPlist: ios/Runner/Info.plist\n")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-plugin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Self.plist(modes: ["fetch"], identifiers: []).write(to: dir.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("app.yaml").path
        try "apps:\n  - bundle: a\n    infoPlist: Info.plist\n    backgroundModes: [fetch]\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ScenarioParser.parse(contentsOf: path)
            Issue.record("no error")
        } catch let e as ScenarioError {
            #expect(e.location.line == 4 && e.message.contains("read from the app's Info.plist"))
        }
    }

    @Test("react-native-background-fetch: the fetch identifier and the modes missing, in the plugin's words, at the plist's key")
    func fetchMistakes() throws {
        let s = try Self.scenario(plist: Self.plist(modes: ["audio"], identifiers: ["com.transistorsoft.nightly"]), plugin: Self.fetch)
        let f = Self.findings(s)
        #expect(f.contains { $0.hasPrefix("error: ") && $0.contains("Info.plist:10:")
            && $0.contains("react-native-background-fetch: 'com.transistorsoft.fetch' is missing from BGTaskSchedulerPermittedIdentifiers") })
        #expect(f.contains { $0.contains("Info.plist:6:") && $0.contains("lacks 'fetch'") && $0.contains("Background fetch") })
        #expect(f.contains { $0.contains("lacks 'processing'") && $0.contains("scheduleTask") })
    }

    @Test("a scheduleTask taskId outside the com.transistorsoft naming rule is reported at the taskId")
    func namingRule() throws {
        let s = try Self.scenario(plist: Self.plist(modes: ["fetch", "processing"],
                                                    identifiers: ["com.transistorsoft.fetch", "com.example.sync"]), plugin: """
                  name: background_fetch
                  scheduleTask: [{taskId: com.example.sync, delay: 0}]
            """)
        let f = Self.findings(s)
        #expect(f.contains { $0.contains("app.yaml:6:") && $0.contains("background_fetch: scheduleTask's taskId 'com.example.sync' does not contain 'com.transistorsoft'")
            && $0.contains("'com.transistorsoft.sync'") })
    }

    @Test("stopOnTerminate: false is a warning: iOS has no such thing")
    func stopOnTerminate() throws {
        let s = try Self.scenario(plist: Self.plist(modes: ["fetch"], identifiers: ["com.transistorsoft.fetch"]), plugin: """
                  name: react-native-background-fetch
                  configure: {minimumFetchInterval: 15, stopOnTerminate: false}
            """)
        #expect(Self.findings(s).contains { $0.hasPrefix("warning: ") && $0.contains("stopOnTerminate has no effect on iOS") })
    }

    @Test("workmanager: uniqueName not permitted, not registered in AppDelegate, frequency not used on iOS")
    func workmanagerMistakes() throws {
        let s = try Self.scenario(plist: Self.plist(modes: ["fetch"], identifiers: ["com.example.refresh"]), plugin: """
                  name: workmanager
                  registerPeriodicTask: [{uniqueName: com.example.refresh, taskName: refresh, frequency: 15m}]
                  registerProcessingTask: [{uniqueName: com.example.cleanup, taskName: cleanup}]
            """)
        let f = Self.findings(s)
        #expect(f.contains { $0.contains("workmanager: 'com.example.cleanup' is missing from BGTaskSchedulerPermittedIdentifiers")
            && $0.contains("uniqueName is the BGTaskScheduler identifier") })
        #expect(f.contains { $0.contains("lacks 'processing'") && $0.contains("registerProcessingTask") })
        #expect(f.contains { $0.hasPrefix("warning: ") && $0.contains("'com.example.refresh' is not registered in AppDelegate.swift")
            && $0.contains("WorkmanagerPlugin.registerPeriodicTask(withIdentifier:frequency:)") })
        #expect(f.contains { $0.contains("frequency (15m) is not used on iOS") })
    }

    @Test("expo-background-task: what its config plugin would add is missing")
    func expoMistakes() throws {
        let s = try Self.scenario(plist: Self.plist(modes: ["fetch"], identifiers: []), plugin: """
                  name: expo-background-task
                  registerTaskAsync: [{taskName: sync, minimumInterval: 15}]
            """)
        let f = Self.findings(s)
        #expect(f.contains { $0.contains("expo-background-task: UIBackgroundModes lacks 'processing'") && $0.contains("npx expo prebuild") })
        #expect(f.contains { $0.contains("'com.expo.modules.backgroundtask.processing' is missing from BGTaskSchedulerPermittedIdentifiers") })
    }

    @Test("bgx init writes, for each plugin, a scenario that checks clean and runs with its expectations met", arguments:
            ["react-native-background-fetch", "background_fetch", "@transistorsoft/capacitor-background-fetch", "workmanager",
             "expo-background-task"])
    func initTemplates(name: String) throws {
        let cli = CommandLineTests()
        let written = try cli.bgx(["init", "--plugin", name])
        #expect(written.status == 0)
        let path = try cli.temporaryFile(written.stdout)
        let check = try cli.bgx(["check", path])
        #expect(check.stdout.contains("no problems found"), "\(check.stdout)")
        let run = try cli.bgx(["run", path, "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("  \(BackgroundPlugin.named[name]!.name):"))
        let plugin = try cli.bgx(["plugin", path])
        #expect(plugin.status == 0 && plugin.stdout.contains("com.example.app uses \(BackgroundPlugin.named[name]!.name)"))
        #expect(try cli.bgx(["init", "--plugin", "react-native-bg"]).status == 2)
        #expect(try cli.bgx(["init", "--plugin", name, "--output", path]).status == 2, "init overwrote a file")
    }
}
