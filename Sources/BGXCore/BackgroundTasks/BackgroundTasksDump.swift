/// The background-task controller's state for one app, as data and in words:
/// what holds the app running in the background for this concern, and until when.
public struct BackgroundTasksDump: ControllerDump, Equatable {
    public var concern: String { "background tasks" }
    /// The `beginBackgroundTask` and `performExpiringActivity` assertions open now.
    public var open: [OpenAssertion]
    /// The background-time window, while the app is in the background.
    public var windowStart: Nanoseconds?
    public var windowDeadline: Nanoseconds?

    public struct OpenAssertion: Sendable, Encodable, Equatable {
        public var id: Int
        public var name: String
        public var began: Nanoseconds
        public var expiringActivity: Bool
        /// Its expiration handler (or the block's expired call) has been called in this window.
        public var expirationHandlerCalled: Bool
    }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines = open.map { a in
            "\(a.expiringActivity ? "expiring activity" : "background task") \(a.id) \"\(a.name)\" open since \(when(a.began))"
                + (a.expirationHandlerCalled ? "; its expiration handler has been called" : "")
        }
        if lines.isEmpty { lines.append("no background task open: this concern does not hold the app") }
        if let windowStart, let windowDeadline {
            lines.append("background time from \(when(windowStart)) until \(when(windowDeadline)): "
                         + "a task still open then ends the app")
        }
        return lines
    }
}

extension BackgroundTaskController {
    func dump(_ app: AppID) -> BackgroundTasksDump {
        let state = apps[Int(app.index)]
        return BackgroundTasksDump(
            open: state.tasks.map { .init(id: $0.id, name: $0.name, began: $0.began, expiringActivity: $0.isExpiringActivity,
                                          expirationHandlerCalled: $0.expirationHandlerCalled) },
            windowStart: state.window?.start, windowDeadline: state.window?.deadline)
    }
}

extension Engine {
    /// The background-task controller's state for the app now.
    public func backgroundTasksDump(of app: AppID) -> BackgroundTasksDump { backgroundTasks.dump(app) }
}
