import BGXCore
import Foundation

/// A place in a scenario file, for `error: FILE:LINE:COLUMN: message`.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// Line 0 is the file as a whole (`no such file`).
    public var description: String { line == 0 ? file : "\(file):\(line):\(column)" }
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// Bad input, reported the way compilers do (exit code 2).
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }
    public var description: String { "error: \(location): \(message)" }
}

/// A scenario file (docs/scenarios.md), parsed and checked.
public struct Scenario: Sendable {
    public var file: String
    public var profile: PolicyProfile = .modern
    public var seed: UInt64 = 0
    /// Wall clock at t = 0 (UTC).
    public var start: Date = Date(timeIntervalSince1970: 1_767_571_200)
    public var duration: Nanoseconds = Time.days(1)
    public var device = DeviceState()
    public var apps: [ScenarioApp.Spec] = []
    public var usage: [Usage] = []
    public var timeline: [TimelineEntry] = []
    public var expectations: [Expectation] = []
    /// `population:` — what each device of a fleet is sampled from (`bgx fleet`).
    public var population: Population?
    /// `loadtest:` — each cause's HTTP request, for `bgx fleet loadtest`.
    public var loadTest: LoadTest?

    public struct Usage: Sendable {
        public var app: String
        /// Seconds after midnight, and how long the person stays.
        public var sessions: [(timeOfDay: Nanoseconds, length: Nanoseconds)]
        public var location: SourceLocation
    }

    public struct TimelineEntry: Sendable {
        public var at: Nanoseconds
        public var event: Event
        public var location: SourceLocation
        public enum Event: Sendable {
            case user(UserCommand)
            case device([DeviceChange])
            /// A debugger command; the app is found from its permitted identifiers when not named.
            case debug(DebugCommand, app: String?)
            /// rules §4: the device moves; an accessory or peripheral sends an app data.
            case location(meters: Int64)
            case accessory(String, AccessoryTransport)
            /// `push: {app, type, priority}` (rules §7, §4).
            case push(String, Push)
            /// `voipSocket: {app}`: traffic on the app's VoIP socket (rules §4).
            case voipSocket(String)
        }
    }

    public enum DebugCommand: Sendable, Equatable {
        case simulateLaunch(String)
        case simulateExpiration(String)
        public var identifier: String {
            switch self {
            case let .simulateLaunch(id), let .simulateExpiration(id): id
            }
        }
    }

    public enum UserCommand: Sendable, Equatable {
        case launch(String), home, lock, unlock, switchTo(String), forceQuit(String)
        /// Opens the newest notification with this id in Notification Center (rules §9).
        case tapNotification(String)
        /// Cancels a continued-processing task from its Live Activity (rules §13).
        case cancelTask(String)
        /// The app's notifications (rules §9): the answer when it asks, or its switch in Settings.
        case allowNotifications(String), denyNotifications(String)
    }
}

/// An `expect:` entry: trace events of a kind, optionally of one app, with
/// given field values, in a window of time; at least one, or exactly `count`.
public struct Expectation: Sendable {
    public var kind: String
    public var app: String?
    public var fields: [(name: String, value: String)]
    public var between: (Nanoseconds, Nanoseconds)?
    public var count: Int?
    public var location: SourceLocation
    public var text: String
}
