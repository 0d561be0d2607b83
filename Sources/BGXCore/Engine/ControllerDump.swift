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
        if let continued = continuedProcessingSectionDump(of: app) { dumps.append(continued) }
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

/// A section for a concern whose controller does not yet keep its own dump
/// (continued processing, for now): its explanation in words, carried as
/// its data until its controller dumps its state itself.
public struct ExplainTextDump: ControllerDump, Equatable {
    public var concern: String
    public var heading: String
    public var text: [String]
    public func lines(when: (Nanoseconds) -> String) -> [String] { text }
    public func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection? {
        ExplainSection(heading: heading, lines: text)
    }

    /// Reads an explanation written as a heading line and lines indented by two spaces; nil for "".
    init?(concern: String, explanation: String) {
        var lines = explanation.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard let heading = lines.first else { return nil }
        self.concern = concern
        self.heading = heading
        self.text = lines.dropFirst().map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }
    }
}

extension Engine {
    func continuedProcessingSectionDump(of app: AppID) -> ExplainTextDump? {
        ExplainTextDump(concern: "continued processing", explanation: explainContinuedProcessing(app: app))
    }
}
