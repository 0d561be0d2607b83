/// What the system keeps per app for its pushes.
struct PushState: Sendable, Codable {
    /// The newest background push not yet deliverable (only the newest is kept).
    var held: Push?
    var heldSince: Nanoseconds?
    /// When background pushes were delivered to the app in the background
    /// within the last hour (the hourly throttle).
    var recent: [Nanoseconds] = []
    /// The daily budget: background pushes delivered in the 24 h since the first.
    var budget = DailyCounter<Int>()
    var nextNumber: UInt32 = 0
    /// Pushes whose completion handler the app has not called yet; `watched`
    /// ones (delivered in the background) hold the app running and time out.
    var awaitingCompletion: [AwaitedPush] = []
    /// Bumped to cancel a scheduled retry. Not a ticket's number: the held
    /// push outlives the process, and its retry launches a terminated app.
    var retryGeneration: UInt32 = 0
    /// When the retry of `retryGeneration` is queued for, until it fires.
    var retryAt: Nanoseconds?

    var keepsAppRunning: Bool { awaitingCompletion.contains { $0.watched } }

    mutating func processEnded() { awaitingCompletion.clearKeepingCapacity() }
}

/// A silent push whose completion handler the app has not yet called; `watched`
/// when its 30 s keep the app running.
struct AwaitedPush: Sendable, Codable {
    var number: UInt32
    var watched: Bool
    /// The push's payload (`Push.payload`), for the host.
    var payload: UInt32 = 0
}
