import BGXCore

/// A background plugin a React Native, Flutter, Expo or Capacitor app uses,
/// and the options its JavaScript or Dart code passes (docs/plugins/): the
/// scenario names it under an app's `plugin:` key, and `PluginExpansion`
/// turns it into the native calls the plugin makes on iOS.
public struct PluginUse: Sendable {
    public var plugin: BackgroundPlugin
    /// The name as the scenario wrote it (`flutter_background_fetch`, …).
    public var writtenName: String
    public var calls: Calls
    /// How long the script takes to start after a launch, and how its task callback behaves.
    public var script = Script()
    /// Options the scenario gave that the plugin reads only on Android, with why.
    public var ignored: [(option: String, why: String)] = []
    public var location: SourceLocation
    /// Where each task identifier the script names is written, for `bgx check`.
    public var identifierLocations: [String: SourceLocation] = [:]

    public struct Script: Sendable, Equatable {
        /// From the launch to the moment the JavaScript or Dart code runs its calls.
        public var startup: Nanoseconds = Time.seconds(1)
        /// How long the task callback works (asynchronously, off the main thread) before it finishes.
        public var takes: Nanoseconds = Time.seconds(5)
        /// What the callback does, as scenario actions (`callback:`), in place of waiting `takes`.
        public var callback: [ScenarioApp.Action]?
        /// The callback's actions: the scenario's, or a wait of `takes`.
        public var work: [ScenarioApp.Action] { callback ?? [.wait(takes)] }
        /// Whether the timeout callback calls `finish(taskId)` (TSBackgroundFetch plugins).
        public var finishesOnTimeout = true
        /// What the Dart task returns (workmanager): `true` completes with success.
        public var succeeds = true
    }

    public enum Calls: Sendable {
        case tsBackgroundFetch(TSBackgroundFetchCalls)
        case workmanager(WorkmanagerCalls)
        case expoBackgroundTask(ExpoBackgroundTaskCalls)
    }
}

public enum BackgroundPlugin: Sendable, Equatable {
    /// transistorsoft's TSBackgroundFetch behind one of its wrappers.
    case tsBackgroundFetch(TSBackgroundFetchWrapper)
    case workmanager
    case expoBackgroundTask

    /// Every name a scenario may give, as the package managers spell them.
    public static let named: [String: BackgroundPlugin] = [
        "react-native-background-fetch": .tsBackgroundFetch(.reactNative),
        "background_fetch": .tsBackgroundFetch(.flutter),
        "flutter_background_fetch": .tsBackgroundFetch(.flutter),
        "@transistorsoft/capacitor-background-fetch": .tsBackgroundFetch(.capacitor),
        "capacitor-background-fetch": .tsBackgroundFetch(.capacitor),
        "workmanager": .workmanager,
        "expo-background-task": .expoBackgroundTask,
    ]

    /// The package's own name, for messages.
    public var name: String {
        switch self {
        case let .tsBackgroundFetch(wrapper): wrapper.rawValue
        case .workmanager: "workmanager"
        case .expoBackgroundTask: "expo-background-task"
        }
    }

    /// The language its users write (`bgx init`'s comments, the docs).
    public var language: String {
        switch self {
        case .tsBackgroundFetch(.flutter), .workmanager: "Dart"
        default: "JavaScript"
        }
    }
}

public enum TSBackgroundFetchWrapper: String, Sendable, Equatable {
    case reactNative = "react-native-background-fetch"
    case flutter = "background_fetch"
    case capacitor = "@transistorsoft/capacitor-background-fetch"
}

/// What the script passes to `BackgroundFetch.configure` and `BackgroundFetch.scheduleTask`.
public struct TSBackgroundFetchCalls: Sendable, Equatable {
    /// `configure({minimumFetchInterval})`, in minutes; nil when the script never calls `configure`.
    public var minimumFetchInterval: Int?
    public var scheduledTasks: [ScheduledTask] = []

    public struct ScheduledTask: Sendable, Equatable {
        public var taskId: String
        /// `delay`, as the script passes it: milliseconds.
        public var delayMilliseconds: Int64 = 0
        public var periodic = false
        public var requiresCharging = false
        public var requiresNetworkConnectivity = false
    }
}

/// What the Dart code registers, and what the app's AppDelegate.swift registers.
public struct WorkmanagerCalls: Sendable, Equatable {
    /// `WorkmanagerPlugin.registerPeriodicTask(withIdentifier:frequency:)` in AppDelegate.
    public var appDelegatePeriodic: [AppDelegatePeriodic] = []
    /// `WorkmanagerPlugin.registerBGProcessingTask(withIdentifier:)` in AppDelegate.
    public var appDelegateProcessing: [String] = []
    public var periodic: [Periodic] = []
    public var processing: [Processing] = []
    public var oneOff: [OneOff] = []

    public struct AppDelegatePeriodic: Sendable, Equatable {
        public var identifier: String
        public var frequency: Nanoseconds?
    }
    public struct Periodic: Sendable, Equatable {
        public var uniqueName: String
        public var taskName: String
        /// Read by Android only: iOS submits with `initialDelay` and resubmits with the registration's delay.
        public var frequency: Nanoseconds?
        public var initialDelay: Nanoseconds?
    }
    public struct Processing: Sendable, Equatable {
        public var uniqueName: String
        public var taskName: String
        public var initialDelay: Nanoseconds?
        /// `constraints: Constraints(networkType: connected | metered)`.
        public var requiresNetwork = false
        public var requiresCharging = false
    }
    public struct OneOff: Sendable, Equatable {
        public var uniqueName: String
        public var taskName: String
        public var initialDelay: Nanoseconds?
    }
}

/// What the script registers with `BackgroundTask.registerTaskAsync(name, {minimumInterval})`.
public struct ExpoBackgroundTaskCalls: Sendable, Equatable {
    public var tasks: [Task] = []
    public struct Task: Sendable, Equatable {
        public var taskName: String
        /// Minutes; nil leaves the native default (12 hours).
        public var minimumInterval: Int?
    }
}
