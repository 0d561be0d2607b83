/// The task scheduler controller's state for one app, as data and in words
/// (AOSP's `dumpControllerStateLocked`): the launch handlers its process
/// registered and the queue each runs on, the tasks it was handed and has
/// not completed, and their launch's shared budget (rules §5).
public struct TaskSchedulerDump: ControllerDump, Equatable {
    public var concern: String { "BGTaskScheduler" }
    /// Launch handlers registered in this process, by identifier.
    public var registered: [Registration]
    /// `didFinishLaunching` has returned: no more launch handlers may be registered.
    public var launchFinished: Bool
    /// Tasks handed to the app and not yet completed, in the order they started.
    public var running: [Running]
    /// When the launch's shared budget runs out (nil: no refresh or processing task runs).
    public var budgetDeadline: Nanoseconds?
    /// How long before the deadline the tasks are expired (their expiration handlers run).
    public var expirationLeadTime: Nanoseconds

    public struct Registration: Sendable, Equatable, Encodable {
        public var identifier: String
        /// "main" or "background": the queue its launch handler runs on.
        public var queue: String
    }

    public struct Running: Sendable, Equatable, Encodable {
        public var identifier: String
        public var kind: String
        public var started: Nanoseconds
        /// Its time is up: its expiration handler runs, and `setTaskCompleted` is owed.
        public var expired: Bool
        public var hasExpirationHandler: Bool
        /// Started by `_simulateLaunchForTaskWithIdentifier`, not by the scheduler.
        public var simulated: Bool
    }

    /// A task runs or a budget is open: what `explain --app` shows. (A
    /// process that only registered handlers holds nothing in the background.)
    public var holdsSomething: Bool { !running.isEmpty || budgetDeadline != nil }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines: [String] = running.map { t in
            var line = "\(t.identifier) (\(t.kind)) running since \(when(t.started))"
            if t.simulated { line += ", launched by _simulateLaunchForTaskWithIdentifier" }
            if t.expired {
                line += t.hasExpirationHandler ? "; expired: its expiration handler runs, setTaskCompleted is owed"
                    : "; expired"
            } else {
                line += t.hasExpirationHandler ? "; expiration handler set" : "; no expiration handler set"
            }
            return line
        }
        if let budgetDeadline {
            let unexpired = running.contains { !$0.expired && $0.kind != BGTaskKind.continuedProcessing.description }
            lines.append("budget: shared by this launch's tasks until \(when(budgetDeadline)); a task not completed "
                         + "by then ends the app"
                         + (unexpired ? " (expiration handlers run \(Time.describe(expirationLeadTime)) before)" : ""))
        }
        if running.contains(where: { $0.kind == BGTaskKind.continuedProcessing.description }) {
            lines.append("continued processing has no budget: it runs until completed or ended by the system")
        }
        if !registered.isEmpty {
            lines.append("launch handlers: " + registered.map { "\($0.identifier) (\($0.queue) queue)" }.joined(separator: ", ")
                         + (launchFinished ? "; registering is over (didFinishLaunching returned)"
                            : "; registering is open until didFinishLaunching returns"))
        }
        return lines
    }
}

extension TaskSchedulerController {
    /// The controller's state for the app, whose process is of `epoch`
    /// (`text` puts an identifier into words).
    func dump(of app: AppID, epoch: UInt32, expirationLeadTime: Nanoseconds,
              text: (TextID) -> String) -> TaskSchedulerDump {
        let tasks = apps[Int(app.index)]
        let registered = tasks.registered.map { id in
            TaskSchedulerDump.Registration(identifier: text(id), queue: tasks.onMain.contains(id) ? "main" : "background")
        }
        return TaskSchedulerDump(
            registered: registered.sorted { $0.identifier < $1.identifier }, launchFinished: tasks.launchFinishedIn == epoch,
            running: tasks.running.map {
                .init(identifier: text($0.identifier), kind: $0.kind.description, started: $0.started, expired: $0.expired,
                      hasExpirationHandler: $0.hasExpirationHandler, simulated: $0.simulated)
            },
            budgetDeadline: tasks.deadline, expirationLeadTime: expirationLeadTime)
    }
}
