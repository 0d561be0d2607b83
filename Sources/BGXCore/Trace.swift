/// One line of the trace (DESIGN.md "Trace (JSON Lines)"). Events are small
/// value types; names are resolved only when a line is rendered.
public struct TraceEvent: Sendable, Equatable {
    public var time: Nanoseconds
    public var app: AppID?
    public var kind: Kind

    public init(time: Nanoseconds, app: AppID?, kind: Kind) {
        self.time = time
        self.app = app
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        case state(from: ProcessState, to: ProcessState, reason: StateReason)
        case launch(cause: LaunchCause)
        case callback(Callback)
        case user(UserActionName)
        case bgtaskBegin(id: Int, name: String)
        case bgtaskEnd(id: Int)
        case bgtaskExpire(id: Int)
        /// `beginBackgroundTask` answered `.invalid`.
        case bgtaskInvalid(name: String, reason: String)
        case terminate(reason: TerminationReason, detail: String)
        /// What iOS writes to the console on API misuse or risk (SPEC §2).
        case log(String)
        case device(property: String, value: String)
        case notificationSchedule(id: NotificationID, fireIn: Nanoseconds)
        case notificationDeliver(id: NotificationID, toApp: Bool)
        case notificationDrop(id: NotificationID, reason: String)
    }

    public var kindName: String {
        switch kind {
        case .state: "state"
        case .launch: "launch"
        case .callback: "callback"
        case .user: "user"
        case .bgtaskBegin: "bgtask.begin"
        case .bgtaskEnd: "bgtask.end"
        case .bgtaskExpire: "bgtask.expire"
        case .bgtaskInvalid: "bgtask.invalid"
        case .terminate: "terminate"
        case .log: "log"
        case .device: "device"
        case .notificationSchedule: "notification.schedule"
        case .notificationDeliver: "notification.deliver"
        case .notificationDrop: "notification.drop"
        }
    }
}

public enum UserActionName: String, Sendable {
    case launch, home, lock, unlock, switchTo, forceQuit
}

/// Why a process changed state. Fixed phrases, so they cost nothing to record.
public enum StateReason: UInt8, Sendable, CustomStringConvertible {
    case launch, launchedIntoBackground, becameActive, resignedActive, enteredBackground,
         enteringForeground, resumed, noAssertions, terminated

    public var description: String {
        switch self {
        case .launch: "launch"
        case .launchedIntoBackground: "launched into the background"
        case .becameActive: "became active"
        case .resignedActive: "resigned active"
        case .enteredBackground: "entered the background"
        case .enteringForeground: "entering the foreground"
        case .resumed: "resumed"
        case .noAssertions: "no assertions"
        case .terminated: "terminated"
        }
    }
}

/// The field a trace line exposes for matching (`expect:` entries, tests).
public enum TraceField: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
}

extension TraceEvent {
    /// The event's fields beyond `t`, `app` and `kind`, in output order.
    public func fields(names: (AppID) -> String, notifications: (NotificationID) -> String) -> [(String, TraceField)] {
        switch kind {
        case let .state(from, to, reason):
            return [("from", .string(from.description)), ("to", .string(to.description)),
                    ("reason", .string(reason.description))]
        case let .launch(cause):
            return [("cause", .string(cause.description))]
        case let .callback(cb):
            var f: [(String, TraceField)] = [("name", .string(cb.name))]
            switch cb {
            case let .didFinishLaunching(cause): f.append(("launchOptions", .string(cause.description)))
            case let .backgroundTaskExpired(id): f.append(("id", .number(Double(id))))
            case let .localNotification(n): f.append(("id", .string(notifications(n))))
            default: break
            }
            return f
        case let .user(action):
            return [("action", .string(action.rawValue))]
        case let .bgtaskBegin(id, name):
            return [("id", .number(Double(id))), ("name", .string(name))]
        case let .bgtaskEnd(id), let .bgtaskExpire(id):
            return [("id", .number(Double(id)))]
        case let .bgtaskInvalid(name, reason):
            return [("name", .string(name)), ("reason", .string(reason))]
        case let .terminate(reason, detail):
            var f: [(String, TraceField)] = [("reason", .string(reason.description))]
            if let code = reason.code { f.append(("code", .string(code))) }
            f.append(("detail", .string(detail)))
            return f
        case let .log(message):
            return [("message", .string(message))]
        case let .device(property, value):
            return [("property", .string(property)), ("value", .string(value))]
        case let .notificationSchedule(id, fireIn):
            return [("id", .string(notifications(id))), ("fireIn", .number(Time.toSeconds(fireIn)))]
        case let .notificationDeliver(id, toApp):
            return [("id", .string(notifications(id))), ("to", .string(toApp ? "app" : "user"))]
        case let .notificationDrop(id, reason):
            return [("id", .string(notifications(id))), ("reason", .string(reason))]
        }
    }
}
