/// What the engine asks its host to carry out (SWIM's directives). The
/// simulated device runs app code in process; the live host acts on real
/// processes.
public enum Directive: Sendable, Equatable, Codable {
    /// Start a fresh process for the app.
    case launch(AppID, LaunchCause)
    /// Run this callback on the app's main thread. The host answers with
    /// `Engine.returned(_:)` once the callback's synchronous part is done.
    case deliver(AppID, Callback)
    /// A timer the app set is due. A non-continuation timer occupies the main
    /// thread like a callback and is answered with `returned(_:)` too; a
    /// continuation resumes the job already running.
    case fire(AppID, token: Int32, continuation: Bool)
    case suspend(AppID)
    case resume(AppID)
    /// The process is gone; drop everything it had pending.
    case terminate(AppID)
}
