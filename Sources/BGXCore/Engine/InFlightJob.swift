/// The job holding the main thread right now.
struct InFlightJob: Sendable, Codable {
    var number: UInt32
    /// Callbacks are watched by watchdogs and keep the app from suspending;
    /// a timer's work is simply frozen by suspension.
    var isCallback: Bool
    /// The callback running (nil for a timer's work).
    var callback: Callback?
    var terminateAfterwards: TerminationReason?
}
