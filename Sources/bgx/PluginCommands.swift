import ArgumentParser
import BGXCore
import BGXSimulation
import Foundation

struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Show the native calls each app's background plugin makes on iOS (react-native-background-fetch, "
            + "background_fetch, workmanager, expo-background-task, …): its tasks, requests and handlers.")
    @Argument(help: "The scenario file (YAML), or '-' for standard input.") var scenario: String
    @Option(help: "Only this app (its bundle identifier).") var app: String?

    func run() throws {
        let s = try loadScenario(scenario)
        let apps = s.apps.filter { $0.pluginExpansion != nil && (app == nil || $0.manifest.bundleIdentifier == app) }
        if let app, !s.apps.contains(where: { $0.manifest.bundleIdentifier == app }) {
            throw fail("error: no app '\(app)'")
        }
        guard !apps.isEmpty else {
            throw fail("error: " + (app.map { "'\($0)' names no background plugin" } ?? "no app of \(scenario) names a background plugin")
                       + " (an app's 'plugin:' key; known: \(BackgroundPlugin.named.keys.sorted().joined(separator: ", ")))")
        }
        print(apps.map { $0.pluginExpansion!.text(bundle: $0.manifest.bundleIdentifier) }.joined(separator: "\n"), terminator: "")
    }
}

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a starting scenario for an app that uses a background plugin.")
    @Option(help: ArgumentHelp("The plugin: \(BackgroundPlugin.named.keys.sorted().joined(separator: ", ")).", valueName: "name"))
    var plugin: String
    @Option(help: "Write it to FILE (which must not exist yet) instead of standard output.") var output: String?

    func run() throws {
        guard let text = PluginTemplate.scenario(for: plugin) else {
            throw fail("error: unknown plugin '\(plugin)' (known: \(BackgroundPlugin.named.keys.sorted().joined(separator: ", ")))")
        }
        guard let output else { print(text, terminator: ""); return }
        guard !FileManager.default.fileExists(atPath: output) else {
            throw fail("error: \(output) already exists; bgx init does not overwrite a file")
        }
        guard FileManager.default.createFile(atPath: output, contents: Data(text.utf8)) else {
            throw fail("error: \(output): cannot write the file")
        }
        print("wrote \(output): run it with bgx run \(output)")
    }
}
