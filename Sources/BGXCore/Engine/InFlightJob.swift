/// The job holding the main thread right now.
struct InFlightJob: Sendable, Codable {
    var number: UInt32
    /// Callbacks are watched by watchdogs and keep the app from suspending;
    /// a timer's work is simply frozen by suspension (but see `queuedForNow`).
    var isCallback: Bool
    /// Work app code queued for now (`queueWorkNow`): it keeps the app from
    /// being suspended until it returns or parks, as its being queued did —
    /// so the work it queues for now in turn (a task's hop to another
    /// executor) runs before the app is idle.
    var queuedForNow = false
    /// Whether it keeps its app from being suspended while it runs.
    var holdsApp: Bool { isCallback || queuedForNow }
    /// The callback running (nil for a timer's work).
    var callback: Callback?
    var terminateAfterwards: TerminationReason?
}
