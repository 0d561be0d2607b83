/// Continued processing's state for one app, as data and in words (rules
/// §13): its tasks queued or running, what the person sees of each, and
/// where it stands — which of them resource pressure would end first.
public struct ContinuedProcessingDump: ControllerDump, Equatable {
    public var concern: String { "continued processing" }
    /// The app's continued-processing tasks, queued or running, in the order they were submitted.
    public var tasks: [Task]
    /// Tasks that run at once on the device, and how long progress may stand still before a task is "stalled".
    public var slots: Int
    public var stallWindow: Nanoseconds

    public struct Task: Sendable, Equatable, Encodable {
        public var identifier: String
        public var title: String
        public var subtitle: String
        /// Running (false: queued, waiting for a slot).
        public var running: Bool
        /// `progress.completedUnitCount` and `totalUnitCount` (0 of 0: not reported).
        public var completed: Int64
        public var total: Int64
        /// When the progress last moved (or the task started).
        public var movedAt: Nanoseconds
        /// Its progress has not moved for the stall window: resource pressure ends it first.
        public var stalled: Bool
    }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines: [String] = []
        for t in tasks {
            lines.append("\(t.identifier) \"\(t.title)\" — \(t.subtitle)")
            if t.running {
                let progress = t.total > 0 ? "\(t.completed) of \(t.total)" : "not reported"
                lines.append("  running; progress \(progress); last moved \(when(t.movedAt))"
                             + (t.stalled ? " — stalled: ended first under resource pressure" : ""))
            } else {
                lines.append("  queued (strategy .queue): waiting for one of \(slots) slots")
            }
        }
        return lines
    }
}

extension ContinuedProcessingController {
    /// The app's tasks now, as data; `text` names their identifiers.
    func dump(of app: AppID, now: Nanoseconds, text: (TextID) -> String) -> ContinuedProcessingDump {
        ContinuedProcessingDump(
            tasks: tasks(of: app).map { t in
                .init(identifier: text(t.identifier), title: t.request.title, subtitle: t.request.subtitle,
                      running: t.running, completed: t.completed, total: t.total, movedAt: t.movedAt,
                      stalled: t.running && now - t.movedAt >= settings.stallWindow)
            },
            slots: settings.slots, stallWindow: settings.stallWindow)
    }
}

extension Engine {
    /// Continued processing's state for the app now.
    public func continuedProcessingDump(of app: AppID) -> ContinuedProcessingDump {
        continuedProcessing.dump(of: app, now: now) { text($0) }
    }
}
