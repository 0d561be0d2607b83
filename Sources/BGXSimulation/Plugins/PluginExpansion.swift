import BGXCore

/// What a plugin does natively on iOS for the options a scenario gives: the
/// handlers it amounts to, in the scenario language's own actions (so the
/// engine runs them like any app's code), each task in the plugin's words,
/// and notes on what iOS ignores. `bgx plugin FILE` prints it.
public struct PluginExpansion: Sendable {
    public var plugin: BackgroundPlugin
    /// The versions the behaviour was read from (docs/plugins/ cites the same).
    public var source: String
    public var tasks: [PluginTask] = []
    /// In the order the app's code would meet them; each with why the plugin does it.
    public var handlers: [Entry] = []
    public var notes: [String] = []

    public struct Entry: Sendable {
        public var handler: ScenarioApp.Handler
        public var actions: [ScenarioApp.Action]
        public var why: String
    }

    /// The actions of one handler (empty when the plugin adds none).
    public func actions(of handler: ScenarioApp.Handler) -> [ScenarioApp.Action] {
        handlers.first { $0.handler == handler }?.actions ?? []
    }

    /// The plugin's task for an identifier, if it has one.
    public func task(_ identifier: String) -> PluginTask? { tasks.first { $0.identifier == identifier } }

    /// `react-native-background-fetch's fetch (`com.transistorsoft.fetch`)`.
    public func name(of identifier: String) -> String? {
        task(identifier).map { "\(plugin.name)'s \($0.role) (`\(identifier)`)" }
    }

    static func expand(_ use: PluginUse, manifest: AppManifest, profile: PolicyProfile) -> PluginExpansion {
        var expansion: PluginExpansion
        switch use.calls {
        case let .tsBackgroundFetch(calls):
            expansion = TSBackgroundFetchPreset.expand(calls, use: use, manifest: manifest, profile: profile)
        case let .workmanager(calls):
            expansion = WorkmanagerPreset.expand(calls, use: use)
        case let .expoBackgroundTask(calls):
            expansion = ExpoBackgroundTaskPreset.expand(calls, use: use)
        }
        expansion.notes += use.ignored.map { "ignored on iOS: \($0.option) — \($0.why)" }
        return expansion
    }
}

/// One BGTaskScheduler task of a plugin, in its words and iOS's.
public struct PluginTask: Sendable, Equatable {
    public var identifier: String
    /// The plugin's word for it: `fetch`, `scheduleTask`, `periodic task`, …
    public var role: String
    public var kind: BGTaskKind
    /// Whether the plugin registers its launch handler before didFinishLaunching returns.
    public var registeredAtLaunch: Bool
    /// The request's `earliestBeginDate`, from the moment it is submitted (nil: none set).
    public var earliestBegin: Nanoseconds?
    public var requiresNetworkConnectivity = false
    public var requiresExternalPower = false
    /// When the plugin submits it again, in words.
    public var resubmits: String
    /// What the plugin does when iOS expires it, in words.
    public var onExpiry: String
}
