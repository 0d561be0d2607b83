/// One controller's state for one app, as data and in words (AOSP's
/// `dumpControllerStateLocked`). `bgx explain` and the live host's `status`
/// are assembled from these: every controller says what it holds for the
/// app and why it decides what it decides, in one shape.
public protocol ControllerDump: Sendable, Encodable {
    /// The concern the controller owns, as a heading: "push", "notifications", …
    var concern: String { get }
    /// The state and its reasons in words, one line each; times are read by `when`.
    func lines(when: (Nanoseconds) -> String) -> [String]
    /// The controller's section of `bgx explain --app`: a heading line and
    /// the lines under it; nil when it has nothing to say of the app. The
    /// default is "CONCERN of APP at TIME" over `lines`.
    func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection?
}

/// A controller's section of `bgx explain --app`.
public struct ExplainSection: Sendable, Equatable {
    public var heading: String
    /// The lines under the heading; a line's own leading spaces nest it further.
    public var lines: [String]
    public init(heading: String, lines: [String]) {
        self.heading = heading
        self.lines = lines
    }
    /// The heading, then each line indented by two spaces.
    public var text: String { heading + "\n" + lines.map { "  " + $0 + "\n" }.joined() }
}

/// A controller's dump in a `--json` output (`bgx explain --app`, the live
/// host's `status`): its concern, its lines of words and its state as data,
/// each written by `encode` (Foundation's encoder with sorted keys, as they
/// always were; BGXCore has no Foundation, so the caller brings it).
public struct ControllerDumpJSON: Encodable {
    public let concern: JSONFragment
    public let lines: JSONFragment
    public let state: JSONFragment

    public init(_ dump: any ControllerDump, when clockText: (Nanoseconds) -> String,
                encode: (any Encodable) throws -> String) rethrows {
        concern = JSONFragment(try encode(dump.concern))
        lines = JSONFragment(try encode(dump.lines(when: clockText)))
        state = JSONFragment(try encode(dump))
    }
}

extension ControllerDump {
    public func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection? {
        let lines = lines(when: when)
        return lines.isEmpty ? nil : ExplainSection(heading: "\(concern) of \(app) at \(at)", lines: lines)
    }
}

extension Engine {
    /// The dumps of the controllers that hold something for the app, in a
    /// fixed order (the order `bgx explain --app` shows them in).
    public func controllerDumps(of app: AppID) -> [any ControllerDump] {
        var dumps: [any ControllerDump] = []
        if let transfers = transferControllerDump(of: app) { dumps.append(transfers) }
        dumps.append(pushControllerDump(of: app))
        let backgroundTasks = backgroundTasksDump(of: app)
        if !backgroundTasks.open.isEmpty { dumps.append(backgroundTasks) }
        let memory = memoryControllerDump(of: app)
        if memory.jettison != nil || !memory.locks.isEmpty || !memory.sockets.isEmpty { dumps.append(memory) }
        let notifications = notificationControllerDump(of: app)
        if !notifications.isEmpty { dumps.append(notifications) }
        let services = servicesControllerDump(of: app)
        if !services.isEmpty { dumps.append(services) }
        let scheduler = schedulerControllerDump(of: app)
        if scheduler.holdsSomething { dumps.append(scheduler) }
        let tasks = taskSchedulerDump(of: app)
        if tasks.holdsSomething { dumps.append(tasks) }
        let continued = continuedProcessingDump(of: app)
        if !continued.tasks.isEmpty { dumps.append(continued) }
        let launches = launchControllerDump(of: app)
        if !launches.recent.isEmpty { dumps.append(launches) }
        return dumps
    }

    /// `bgx explain --app`'s sections after the tasks': each controller's, in `controllerDumps`' order.
    public func explainSections(of app: AppID) -> [ExplainSection] {
        let at = Time.wallClock(wall(now), seconds: true)
        return controllerDumps(of: app).compactMap {
            $0.explainSection(app: bundleIdentifier(app), at: at) { Time.wallClock(wall($0), seconds: true) }
        }
    }
}
