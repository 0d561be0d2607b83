/// The transfer controller's state for one app, as data and in words (AOSP's
/// `dumpControllerStateLocked`): each session's transfers — what each is
/// doing, why it waits and since when, when a running one will finish —,
/// why results wait for the app, the events wake and the rate limiter.
public struct TransferControllerDump: ControllerDump, Equatable {
    public var concern: String { "transfers" }

    public struct Task: Sendable, Encodable, Equatable {
        public var id: Int32
        public var kind: String
        public var bytes: Int64
        /// "running", "waiting", "stalled" or "finished".
        public var state: String
        /// Running: bytes left now, the number of transfers sharing the
        /// bandwidth, and when it finishes if nothing changes (nil: never at this rate).
        public var bytesLeft: Int64?
        public var sharedBy: Int?
        public var bandwidth: Int64?
        public var finishesAt: Nanoseconds?
        /// Waiting or stalled: why, since when, and when `timeoutIntervalForResource` fails it.
        public var wait: String?
        public var waitingSince: Nanoseconds?
        public var failsAt: Nanoseconds?
        /// Finished, not yet delivered to the app.
        public var result: String?
    }
    public struct Session: Sendable, Encodable, Equatable {
        public var identifier: String
        public var newsstand: Bool
        /// Transfers not yet delivered to the app.
        public var tasks: [Task]
        /// Why finished results wait for the app, if they do.
        public var resultsWait: String?
    }
    public var sessions: [Session]
    /// The session whose events the app was woken for and has not finished handling.
    public var handlingEventsOf: String?
    /// Background wakes for session events since the app was last in front (the rate limiter's step).
    public var backgroundWakesSinceFront: Int

    /// Each session and its transfers in words, nested by two spaces.
    public func sessionLines(when: (Nanoseconds) -> String) -> [String] {
        var lines: [String] = []
        for session in sessions {
            lines.append("\(session.newsstand ? "Newsstand downloads" : "background session") '\(session.identifier)'")
            for task in session.tasks {
                var line = "  task \(task.id) (\(task.kind), \(task.bytes) bytes): "
                switch task.state {
                case "running":
                    line += "running, \(task.bytesLeft ?? 0) bytes left at a 1/\(task.sharedBy ?? 1) share of \(task.bandwidth ?? 0) B/s"
                    if (task.bandwidth ?? 0) > 0 {
                        line += task.finishesAt.map { "; finishes at \(when($0)) if nothing changes" } ?? "; never finishes at this rate"
                    }
                case "finished":
                    line += "finished (\(task.result ?? "success")), not yet delivered to the app"
                default:
                    line += task.state
                    if let wait = task.wait { line += ": " + wait }
                    if let since = task.waitingSince { line += " (since \(when(since)))" }
                    if let fails = task.failsAt { line += "; fails at \(when(fails)) (timeoutIntervalForResource)" }
                }
                lines.append(line)
            }
            if let hold = session.resultsWait { lines.append("  results wait: \(hold)") }
        }
        return lines
    }

    /// `bgx explain --app`'s section: the sessions and their transfers (the
    /// wake and the rate limiter are in the dump's lines, for a live status).
    public func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection? {
        sessions.isEmpty ? nil
            : ExplainSection(heading: "background transfers of \(app) at \(at)", lines: sessionLines(when: when))
    }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines = sessionLines(when: when)
        if let handlingEventsOf {
            lines.append("woken for session '\(handlingEventsOf)''s events; its completion handler has not been called")
        }
        if backgroundWakesSinceFront > 0 {
            lines.append("relaunch rate limiter: \(backgroundWakesSinceFront) background wake(s) since the app was last in front")
        }
        return lines
    }
}

extension TransferController {
    /// The controller's state for the app now (`view`: its process; `name`
    /// words a session's identifier); nil when the app has no session.
    func dump(of app: AppID, _ conditions: TransferConditions, _ view: TransferAppView,
              name: (TextID) -> String) -> TransferControllerDump? {
        let now = conditions.now, device = conditions.device
        let sessionIndices = self.sessions.indices.filter { self.sessions[$0].app == app }
        let state = apps[Int(app.index)]
        guard !sessionIndices.isEmpty || state.eventsWake != nil || state.backgroundWakes > 0 else { return nil }
        let running = runningCount
        let dumped = sessionIndices.map { s -> TransferControllerDump.Session in
            let session = self.sessions[s]
            let tasks = self.tasks.filter { $0.app == app && !$0.delivered && $0.session == session.identifier }
                .map { task -> TransferControllerDump.Task in
                    var d = TransferControllerDump.Task(id: task.id, kind: "\(task.kind)", bytes: task.bytes,
                                                        state: "\(task.phase)")
                    switch task.phase {
                    case .running:
                        let left = projectedRemaining(task, running: running, conditions)
                        d.bytesLeft = left
                        d.sharedBy = running
                        d.bandwidth = device.bandwidth
                        if device.bandwidth > 0 {
                            let rest = TransferMath.mulDiv(left, Int64(running) * Time.nanosecondsPerSecond,
                                                           device.bandwidth, roundUp: true)
                            let (end, overflow) = now.addingReportingOverflow(rest)
                            d.finishesAt = overflow ? nil : end
                        }
                    case .waiting, .stalled:
                        d.wait = task.lastWait.map { Self.describe($0, task, wallClockOffset: conditions.wallClockOffset) }
                        d.waitingSince = task.waitingSince
                        d.failsAt = task.created + task.resourceTimeout
                    case .finished:
                        d.result = "\(task.result ?? .success)"
                    }
                    return d
                }
            let resultsWait = session.lastHold.flatMap { undeliveredResults(s, view).isEmpty ? nil : $0 }
            return .init(identifier: name(session.identifier), newsstand: session.newsstand, tasks: tasks,
                         resultsWait: resultsWait)
        }
        return TransferControllerDump(sessions: dumped, handlingEventsOf: state.eventsWake.map { name($0.session) },
                                      backgroundWakesSinceFront: state.backgroundWakes)
    }

    /// A running transfer's bytes left now (progress is settled only at events).
    func projectedRemaining(_ task: TransferTask, running: Int, _ conditions: TransferConditions) -> Int64 {
        let now = conditions.now, device = conditions.device
        guard task.phase == .running, running > 0, device.network != .none, now > settledAt else {
            return task.remaining
        }
        let share = TransferMath.mulDiv(device.bandwidth, now - settledAt,
                                        Int64(running) * Time.nanosecondsPerSecond, roundUp: false)
        return max(0, task.remaining - share)
    }

    /// `bgx explain --app`'s transfers: the sessions and their transfers in words ("" when none).
    static func explain(_ dump: TransferControllerDump?, app: String, when: (Nanoseconds) -> String,
                        now: Nanoseconds) -> String {
        guard let dump, !dump.sessions.isEmpty else { return "" }
        var out = "background transfers of \(app) at \(when(now))\n"
        for line in dump.sessionLines(when: when) { out += "  " + line + "\n" }
        return out
    }
}

extension Engine {
    /// The transfer controller's state for the app now; nil when the app has no session.
    public func transferControllerDump(of app: AppID) -> TransferControllerDump? {
        transfers.dump(of: app, transferConditions, transferView(of: app)) { text($0) }
    }
}
