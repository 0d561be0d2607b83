/// A piece of text interned by the engine, so trace events stay plain
/// values: no reference counting on the hot path.
public struct TextID: Hashable, Sendable, Codable {
    public let index: Int32
    @inlinable public init(index: Int32) { self.index = index }
}

/// Resolves the interned names a trace event refers to.
public struct TraceNames: Sendable {
    public var apps: [String]
    public var notifications: [String]
    public var texts: [String]
    /// For a text that is a score-decided scheduling decision: dasd's
    /// `CurrentScore`, `ThresholdScore` and `DecisionToRun`, keyed by text index.
    public var scores: [Int32: (current: Double, threshold: Double, run: Bool)] = [:]
    public init(apps: [String], notifications: [String], texts: [String]) {
        self.apps = apps
        self.notifications = notifications
        self.texts = texts
    }

    /// The decision's scores as trace fields (none when no score decided it).
    func scoreFields(_ reason: TextID) -> [(String, TraceField)] {
        guard let s = scores[reason.index] else { return [] }
        func six(_ v: Double) -> Double { (v * 1_000_000).rounded() / 1_000_000 }
        return [("currentScore", .number(six(s.current))), ("thresholdScore", .number(six(s.threshold))),
                ("decisionToRun", .number(s.run ? 1 : 0))]
    }
    @inlinable public func app(_ id: AppID) -> String { apps[Int(id.index)] }
    @inlinable public func notification(_ id: NotificationID) -> String { notifications[Int(id.index)] }
    @inlinable public func text(_ id: TextID) -> String { texts[Int(id.index)] }
}

/// One line of the trace (docs/scenarios.md, "The trace"). Events are small
/// value types; names are resolved only when a line is rendered.
public struct TraceEvent: Sendable, Equatable, Codable {
    public var time: Nanoseconds
    public var app: AppID?
    public var kind: Kind

    public init(time: Nanoseconds, app: AppID?, kind: Kind) {
        self.time = time
        self.app = app
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable, Codable {
        case state(from: ProcessState, to: ProcessState, reason: StateReason)
        case launch(cause: LaunchCause)
        case callback(Callback)
        /// A callback run on the app's background serial queue (a launch
        /// handler registered with `using: nil`, an expiring activity's block).
        case callbackOnQueue(Callback)
        /// rules §13: `performExpiringActivity` took its assertion; its block runs.
        case activityBegin(id: Int, name: TextID)
        /// The time runs out: the block is called again with `expired == true`.
        case activityExpire(id: Int, name: TextID, reason: TextID)
        /// The assertion is given back (the block returned, or its expired call did).
        case activityEnd(id: Int, name: TextID, reason: TextID)
        /// No assertion could be taken: the block runs once, with `expired == true`.
        case activityRefuse(name: TextID, reason: TextID)
        case user(UserActionName)
        case bgtaskBegin(id: Int, name: TextID)
        case bgtaskEnd(id: Int)
        /// Names its task, as `bgtask.begin` did, so the line reads alone.
        case bgtaskExpire(id: Int, name: TextID)
        /// `beginBackgroundTask` answered `.invalid`.
        case bgtaskInvalid(name: TextID, reason: TextID)
        case terminate(reason: TerminationReason, detail: TextID)
        /// What iOS writes to the console on API misuse or risk (rules §2).
        case log(TextID)
        case device(property: TextID, value: TextID)
        case notificationSchedule(id: NotificationID, fireIn: Nanoseconds, replaced: Bool)
        /// To the app in front, or to the user with what they see, hear and
        /// the badge; `reason` when the sound asked for cannot play.
        case notificationDeliver(id: NotificationID, toApp: Bool, alert: TextID?, sound: TextID?, badge: Int32?,
                                 reason: TextID?)
        case notificationDrop(id: NotificationID, reason: TextID)
        case notificationCancel(id: NotificationID)
        /// `reason` when the tap found nothing to open.
        case notificationTap(id: NotificationID, reason: TextID?)
        case taskRegister(identifier: TextID)
        case taskSubmit(identifier: TextID, kind: BGTaskKind, replaced: Bool)
        case taskReject(identifier: TextID, error: BGTaskSchedulerError, reason: TextID)
        case taskCancel(identifier: TextID)
        case taskDefer(identifier: TextID, reason: TextID)
        case taskStart(identifier: TextID, reason: TextID)
        case taskExpire(identifier: TextID)
        /// A `task.expire` line with its reason: a continued-processing task
        /// the person cancelled or resource pressure ended (rules §13).
        case taskExpireWithReason(identifier: TextID, reason: TextID)
        /// A continued-processing task's progress (rules §13).
        case taskProgress(identifier: TextID, completed: Int64, total: Int64)
        case taskComplete(identifier: TextID, success: Bool)
        case fetchDefer(reason: TextID)
        case fetchStart
        case fetchComplete(result: BackgroundFetchResult)
        /// A push reached the app (`toApp`) or, shown as an alert, the user (rules §7).
        case pushDeliver(type: PushType, priority: UInt8, toApp: Bool)
        /// A push was not delivered: dropped, or `held` (only the newest) for later.
        case pushDrop(type: PushType, priority: UInt8, reason: TextID, held: Bool)
        /// A silent push's completion handler was called.
        case pushComplete(result: BackgroundFetchResult)
        /// The app reported an incoming call to CallKit (rules §4).
        case callReport
        /// The system woke a VoIP app for its socket or keep-alive handler (rules §4).
        case voipWake(trigger: VoIPTrigger)
        case voipDrop(trigger: VoIPTrigger, reason: TextID)
        /// rules §10: low memory; the app will hear `didReceiveMemoryWarning`.
        case memoryWarning(footprint: Int64, free: Int64)
        /// rules §10: a jetsam kill — a `terminate` line with reason
        /// `memoryPressure` and the band and footprint it was killed with.
        case memoryKill(JetsamKill)
        /// rules §10: the app-switcher snapshot, taken when `didEnterBackground` returns.
        case snapshot(sensitiveContentVisible: Bool)
        /// rules §10: a listening socket, Bonjour service or connection the system closed.
        case socketClose(name: TextID, kind: SocketKind, reason: TextID)
        /// The app saved the person's unsaved changes (`saveChanges`).
        case changesSave
        /// The process ended with unsaved changes: the person's work is lost.
        case changesLost(reason: TerminationReason)
        // rules §4: the long-running services.
        case audioStart(category: AudioCategory, duration: Nanoseconds?)
        case audioStop(reason: TextID)
        case audioRefuse(reason: TextID)
        case locationStart(service: LocationService)
        case locationStop(service: LocationService)
        /// A fix (region nil) or a region's enter/exit event handed to the app.
        case locationDeliver(service: LocationService, region: TextID?, entered: Bool)
        case locationDrop(service: LocationService, reason: TextID)
        case locationDefer(service: LocationService, reason: TextID)
        case accessoryConnect(transport: AccessoryTransport)
        case accessoryDisconnect(transport: AccessoryTransport, reason: TextID)
        case accessoryDeliver(transport: AccessoryTransport)
        case accessoryDrop(transport: AccessoryTransport, reason: TextID)
        /// rules §8: the app handed a transfer to the daemon.
        case transferCreate(session: TextID, task: Int32, kind: TransferKind, bytes: Int64)
        /// The transfer moves (again), with the bytes it still has to move.
        case transferStart(session: TextID, task: Int32, bytesLeft: Int64)
        /// The transfer waits (earliest begin, network, Wi-Fi, power).
        case transferDefer(session: TextID, task: Int32, reason: TextID)
        /// A request timed out for lack of connectivity; the daemon retries it.
        case transferRetry(session: TextID, task: Int32, reason: TextID)
        case transferComplete(session: TextID, task: Int32)
        case transferFail(session: TextID, task: Int32, result: TransferResult, reason: TextID)
        case transferCancel(session: TextID, reason: TextID)
        /// A session's results wait for the app (rate limiter, force-quit, session not recreated …).
        case transferHold(session: TextID, reason: TextID)
        /// rules §13: a file written or read with its protection class; `ok`
        /// false when the class key was not available (the device locked).
        case fileWrite(path: TextID, protection: FileProtection, ok: Bool, reason: TextID)
        case fileRead(path: TextID, protection: FileProtection?, ok: Bool, reason: TextID)
    }

    /// The reason of a `terminate` line (a jetsam kill is one too).
    public var terminationReason: TerminationReason? {
        switch kind {
        case let .terminate(reason, _): reason
        case .memoryKill: .memoryPressure
        default: nil
        }
    }

    /// The event's kind as the trace names it (`task.start`).
    public var traceKind: TraceKind {
        switch kind {
        case .state: .state
        case .launch: .launch
        case .callback, .callbackOnQueue: .callback
        case .activityBegin: .activityBegin
        case .activityExpire: .activityExpire
        case .activityEnd: .activityEnd
        case .activityRefuse: .activityRefuse
        case .user: .user
        case .bgtaskBegin: .bgtaskBegin
        case .bgtaskEnd: .bgtaskEnd
        case .bgtaskExpire: .bgtaskExpire
        case .bgtaskInvalid: .bgtaskInvalid
        case .terminate: .terminate
        case .log: .log
        case .device: .device
        case .notificationSchedule: .notificationSchedule
        case .notificationDeliver: .notificationDeliver
        case .notificationDrop: .notificationDrop
        case .notificationCancel: .notificationCancel
        case .notificationTap: .notificationTap
        case .taskRegister: .taskRegister
        case .taskSubmit: .taskSubmit
        case .taskReject: .taskReject
        case .taskCancel: .taskCancel
        case .taskDefer: .taskDefer
        case .taskStart: .taskStart
        case .taskExpire, .taskExpireWithReason: .taskExpire
        case .taskProgress: .taskProgress
        case .taskComplete: .taskComplete
        case .fetchDefer: .fetchDefer
        case .fetchStart: .fetchStart
        case .fetchComplete: .fetchComplete
        case .memoryWarning: .memoryWarning
        case .memoryKill: .terminate
        case .snapshot: .snapshot
        case .socketClose: .socketClose
        case .changesSave: .changesSave
        case .changesLost: .changesLost
        case .audioStart: .audioStart
        case .audioStop: .audioStop
        case .audioRefuse: .audioRefuse
        case .locationStart: .locationStart
        case .locationStop: .locationStop
        case .locationDeliver: .locationDeliver
        case .locationDrop: .locationDrop
        case .locationDefer: .locationDefer
        case .accessoryConnect: .accessoryConnect
        case .accessoryDisconnect: .accessoryDisconnect
        case .accessoryDeliver: .accessoryDeliver
        case .accessoryDrop: .accessoryDrop
        case .transferCreate: .transferCreate
        case .transferStart: .transferStart
        case .transferDefer: .transferDefer
        case .transferRetry: .transferRetry
        case .transferComplete: .transferComplete
        case .transferFail: .transferFail
        case .transferCancel: .transferCancel
        case .transferHold: .transferHold
        case .fileWrite: .fileWrite
        case .fileRead: .fileRead
        case .pushDeliver: .pushDeliver
        case .pushDrop: .pushDrop
        case .pushComplete: .pushComplete
        case .callReport: .callReport
        case .voipWake: .voipWake
        case .voipDrop: .voipDrop
        }
    }

    public var kindName: String { traceKind.rawValue }
}

public enum UserActionName: String, Sendable, Codable {
    case launch, home, lock, unlock, switchTo, forceQuit, tapNotification, cancelTask, allowNotifications,
         denyNotifications
}

/// Why a process changed state. Fixed phrases, so they cost nothing to record.
public enum StateReason: UInt8, Sendable, CustomStringConvertible, Codable {
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

    /// The value as the trace writes it, unquoted: a whole number without a
    /// fraction (below 10^15), any other as Swift prints a Double.
    public var text: String {
        switch self {
        case let .string(s): s
        case let .number(n): Self.numberText(n)
        case let .bool(b): b ? "true" : "false"
        }
    }

    public static func numberText(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
    }
}

extension TraceEvent {
    /// The event's fields beyond `t`, `app` and `kind`, in output order.
    public func fields(_ names: TraceNames) -> [(String, TraceField)] {
        let notifications = names.notification, text = names.text
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
            case let .localNotification(n), let .notificationResponse(n): f.append(("id", .string(notifications(n))))
            case let .bgTask(id), let .bgTaskExpired(id): f.append(("identifier", .string(text(id))))
            case let .didUpdateLocations(service): f.append(("service", .string(service.description)))
            case let .didEnterRegion(id), let .didExitRegion(id): f.append(("region", .string(text(id))))
            case let .handleEventsForBackgroundURLSession(s), let .urlSessionDidFinishEvents(s):
                f.append(("session", .string(text(s))))
            case let .urlSessionTaskDidComplete(s, task, _, result):
                f.append(("session", .string(text(s))))
                f.append(("task", .number(Double(task))))
                f.append(("result", .string(result.description)))
                if let code = result.errorCode { f.append(("code", .number(Double(code)))) }
            case let .remoteNotification(_, type): f.append(("type", .string(type.description)))
            case let .expiringActivity(id, expired):
                f.append(("id", .number(Double(id))))
                f.append(("expired", .bool(expired)))
            default: break
            }
            return f
        case let .callbackOnQueue(cb):
            return TraceEvent(time: time, app: app, kind: .callback(cb)).fields(names) + [("queue", .string("background"))]
        case let .activityBegin(id, name):
            return [("id", .number(Double(id))), ("name", .string(text(name)))]
        case let .activityExpire(id, name, reason), let .activityEnd(id, name, reason):
            return [("id", .number(Double(id))), ("name", .string(text(name))), ("reason", .string(text(reason)))]
        case let .activityRefuse(name, reason):
            return [("name", .string(text(name))), ("reason", .string(text(reason)))]
        case let .user(action):
            return [("action", .string(action.rawValue))]
        case let .bgtaskBegin(id, name):
            return [("id", .number(Double(id))), ("name", .string(text(name)))]
        case let .bgtaskEnd(id):
            return [("id", .number(Double(id)))]
        case let .bgtaskExpire(id, name):
            return [("id", .number(Double(id))), ("name", .string(text(name)))]
        case let .bgtaskInvalid(name, reason):
            return [("name", .string(text(name))), ("reason", .string(text(reason)))]
        case let .terminate(reason, detail):
            var f: [(String, TraceField)] = [("reason", .string(reason.description))]
            if let code = reason.code { f.append(("code", .string(code))) }
            f.append(("detail", .string(text(detail))))
            return f
        case let .log(message):
            return [("message", .string(text(message)))]
        case let .device(property, value):
            return [("property", .string(text(property))), ("value", .string(text(value)))]
        case let .notificationSchedule(id, fireIn, replaced):
            var f: [(String, TraceField)] = [("id", .string(notifications(id))), ("fireIn", .number(Time.toSeconds(fireIn)))]
            if replaced { f.append(("replaced", .bool(true))) }
            return f
        case let .notificationDeliver(id, toApp, alert, sound, badge, reason):
            var f: [(String, TraceField)] = [("id", .string(notifications(id))), ("to", .string(toApp ? "app" : "user"))]
            if let alert { f.append(("alert", .string(text(alert)))) }
            if let sound { f.append(("sound", .string(text(sound)))) }
            if let badge { f.append(("badge", .number(Double(badge)))) }
            if let reason { f.append(("reason", .string(text(reason)))) }
            return f
        case let .notificationDrop(id, reason):
            return [("id", .string(notifications(id))), ("reason", .string(text(reason)))]
        case let .notificationCancel(id):
            return [("id", .string(notifications(id)))]
        case let .notificationTap(id, reason):
            var f: [(String, TraceField)] = [("id", .string(notifications(id)))]
            if let reason { f.append(("reason", .string(text(reason)))) }
            return f
        case let .taskRegister(id), let .taskCancel(id), let .taskExpire(id):
            return [("identifier", .string(text(id)))]
        case let .taskExpireWithReason(id, reason):
            return [("identifier", .string(text(id))), ("reason", .string(text(reason)))]
        case let .taskProgress(id, completed, total):
            return [("identifier", .string(text(id))), ("completed", .number(Double(completed))),
                    ("total", .number(Double(total)))]
        case let .taskStart(id, reason):
            return [("identifier", .string(text(id))), ("reason", .string(text(reason)))] + names.scoreFields(reason)
        case let .taskSubmit(id, kind, replaced):
            return [("identifier", .string(text(id))), ("type", .string(kind.description)), ("replaced", .bool(replaced))]
        case let .taskReject(id, error, reason):
            return [("identifier", .string(text(id))), ("error", .string(error.description)),
                    ("code", .number(Double(error.rawValue))), ("reason", .string(text(reason)))]
        case let .taskDefer(id, reason):
            return [("identifier", .string(text(id))), ("reason", .string(text(reason)))] + names.scoreFields(reason)
        case let .taskComplete(id, success):
            return [("identifier", .string(text(id))), ("success", .bool(success))]
        case let .fetchDefer(reason):
            return [("reason", .string(text(reason)))]
        case .fetchStart:
            return []
        case let .fetchComplete(result), let .pushComplete(result):
            return [("result", .string(result.description))]
        case let .memoryWarning(footprint, free):
            return [("footprintMB", .number(Double(footprint) / Engine.megabyte)),
                    ("freeMB", .number(Double(free) / Engine.megabyte))]
        case let .memoryKill(kill):
            return [("reason", .string(TerminationReason.memoryPressure.description)),
                    ("band", .number(Double(kill.band.rawValue))), ("bandName", .string(kill.band.description)),
                    ("footprintMB", .number(Double(kill.footprint) / Engine.megabyte)),
                    ("cause", .string(kill.cause.description)), ("detail", .string(kill.detail))]
        case let .snapshot(visible):
            return [("sensitiveContentVisible", .bool(visible))]
        case let .socketClose(name, kind, reason):
            return [("name", .string(text(name))), ("type", .string(kind.rawValue)), ("reason", .string(text(reason)))]
        case .changesSave:
            return []
        case let .changesLost(reason):
            return [("reason", .string(reason.description))]
        case let .audioStart(category, duration):
            var f: [(String, TraceField)] = [("category", .string(category.description))]
            if let duration { f.append(("for", .number(Time.toSeconds(duration)))) }
            return f
        case let .audioStop(reason), let .audioRefuse(reason):
            return [("reason", .string(text(reason)))]
        case let .locationStart(service), let .locationStop(service):
            return [("service", .string(service.description))]
        case let .locationDeliver(service, region, entered):
            var f: [(String, TraceField)] = [("service", .string(service.description))]
            if let region {
                f.append(("event", .string(entered ? "enter" : "exit")))
                f.append(("region", .string(text(region))))
            } else {
                f.append(("event", .string("update")))
            }
            return f
        case let .locationDrop(service, reason), let .locationDefer(service, reason):
            return [("service", .string(service.description)), ("reason", .string(text(reason)))]
        case let .accessoryConnect(transport), let .accessoryDeliver(transport):
            return [("transport", .string(transport.description))]
        case let .accessoryDisconnect(transport, reason), let .accessoryDrop(transport, reason):
            return [("transport", .string(transport.description)), ("reason", .string(text(reason)))]
        case let .transferCreate(session, task, kind, bytes):
            return [("session", .string(text(session))), ("task", .number(Double(task))),
                    ("type", .string(kind.description)), ("bytes", .number(Double(bytes)))]
        case let .transferStart(session, task, bytesLeft):
            return [("session", .string(text(session))), ("task", .number(Double(task))),
                    ("bytesLeft", .number(Double(bytesLeft)))]
        case let .transferDefer(session, task, reason), let .transferRetry(session, task, reason):
            return [("session", .string(text(session))), ("task", .number(Double(task))),
                    ("reason", .string(text(reason)))]
        case let .transferComplete(session, task):
            return [("session", .string(text(session))), ("task", .number(Double(task)))]
        case let .transferFail(session, task, result, reason):
            return [("session", .string(text(session))), ("task", .number(Double(task))),
                    ("error", .string(result.description)), ("code", .number(Double(result.errorCode ?? 0))),
                    ("reason", .string(text(reason)))]
        case let .transferCancel(session, reason), let .transferHold(session, reason):
            return [("session", .string(text(session))), ("reason", .string(text(reason)))]
        case let .pushDeliver(type, priority, toApp):
            return [("type", .string(type.description)), ("priority", .number(Double(priority))),
                    ("to", .string(toApp ? "app" : "user"))]
        case let .pushDrop(type, priority, reason, held):
            return [("type", .string(type.description)), ("priority", .number(Double(priority))),
                    ("reason", .string(text(reason))), ("held", .bool(held))]
        case .callReport:
            return []
        case let .voipWake(trigger):
            return [("trigger", .string(trigger.description))]
        case let .voipDrop(trigger, reason):
            return [("trigger", .string(trigger.description)), ("reason", .string(text(reason)))]
        case let .fileWrite(path, protection, ok, reason):
            return [("path", .string(text(path))), ("protection", .string(protection.description)), ("ok", .bool(ok)),
                    ("reason", .string(text(reason)))]
        case let .fileRead(path, protection, ok, reason):
            var f: [(String, TraceField)] = [("path", .string(text(path)))]
            if let protection { f.append(("protection", .string(protection.description))) }
            f += [("ok", .bool(ok)), ("reason", .string(text(reason)))]
            return f
        }
    }
}
