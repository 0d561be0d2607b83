/// rules §8: background sessions — how the transfer daemon's results reach the
/// app. A session is known to the system by (app, identifier) and outlives
/// the process; the app's session *object* lives in one process lifetime
/// (`attachedEpoch`). Results go to the delegate only through that object:
///
/// - a running app holding the session object gets each task's result as it
///   finishes (`urlSessionTaskDidComplete`);
/// - otherwise, once every task of the session has finished, a suspended app
///   is resumed, a terminated one relaunched into the background (cause
///   `transfer`), after the relaunch rate limiter's delay, and receives
///   `handleEventsForBackgroundURLSession`; it must (re)create the session with
///   the same identifier to receive the results and then
///   `urlSessionDidFinishEvents`, and call the completion handler;
/// - a user force-quit cancels the app's unfinished transfers (-999) and stops
///   relaunches; the cancellations are delivered when the app next creates the
///   session. A system kill (memory, watchdog) cancels nothing.
///
/// Newsstand downloads (`newsstand-content`, rules §4) use the same daemon; the
/// system hands each one's result to the app as it finishes, waking it with
/// cause `newsstand` — no session to recreate, no rate limiter.
struct TransferSession: Sendable, Codable {
    var app: AppID
    var identifier: TextID
    var sendsLaunchEvents: Bool
    var isDiscretionary: Bool
    var allowsCellular: Bool
    var requestTimeout: Nanoseconds
    var resourceTimeout: Nanoseconds
    var newsstand: Bool
    /// The process lifetime holding a session object with this identifier.
    var attachedEpoch: UInt32?
    /// A wake for this session's events is in the queue (the rate limiter's delay).
    var wakePending = false
    /// Bumped for each wake scheduled; a wake event of another number is
    /// stale. Not a ticket's: the session outlives the process, and the wake
    /// relaunches a terminated app.
    var wakeNumber: UInt32 = 0
    /// The last `transfer.hold` reason recorded (recorded again only when it changes).
    var lastHold: String?
    /// The wake for the session's results was refused (launch policy, or
    /// `sessionSendsLaunchEvents`): looked at again when conditions change.
    /// Results held for any other reason (the app did not recreate the
    /// session, it was in front) wait for the app to create the session.
    var launchHeld = false
}

/// An app woken for a session's events: until it calls the completion handler
/// (or `eventsHandlingTime` passes) it stays in the background.
struct TransferEventsWake: Sendable, Codable {
    var session: TextID
    var number: UInt32
    var finishEventsQueued = false
}

/// Main-thread work for the transfer daemon's deliveries.
enum TransferJob: Sendable, Equatable, Codable {
    case events(TextID)
    case result(Int32)
    case finishEvents(TextID)
}

// The app's calls: each takes the input, asks the transfer controller
// (`TransferController.swift` decides) and carries out what it returns.
extension Engine {
    /// `URLSession(configuration: .background(withIdentifier:), delegate:)`: creates
    /// or recreates the session object. Returns false when the system refuses.
    @discardableResult
    public mutating func createBackgroundSession(for app: AppID, _ config: BackgroundSessionConfiguration) -> Bool {
        // App code still running after its process ended (exit, a synchronous kill) creates nothing.
        guard apps[Int(app.index)].state != .notRunning else { return false }
        if let refusal = TransferController.sessionRefusal(
            config, declaresNewsstand: apps[Int(app.index)].manifest.backgroundModes.contains(.newsstandContent),
            settings: profile.transfers, profileName: profile.name) {
            log(app, refusal)
            return false
        }
        let id = text(config.identifier)
        apply(transfers.createSession(app, id, config, transferView(of: app), settings: profile.transfers))
        return true
    }

    /// `downloadTask(with:)` / `uploadTask(with:fromFile:)` then `resume()` on a session
    /// object this process created. Returns the task's identifier, or nil if refused.
    public mutating func startTransfer(for app: AppID, session identifier: String, _ spec: TransferTaskSpec) -> Int32? {
        guard apps[Int(app.index)].state != .notRunning else { return nil }
        let id = text(identifier)
        let started = transfers.startTransfer(app, id, name: identifier, spec, transferView(of: app),
                                              transferConditions, settings: profile.transfers)
        apply(started.effects)
        return started.task
    }

    /// `URLSessionTask.cancel()`: the task ends with NSURLErrorCancelled.
    public mutating func cancelTransfer(for app: AppID, task: Int32) {
        apply(transfers.cancelTransfer(app, task: task, transferConditions, settings: profile.transfers))
    }

    /// The completion handler of `handleEventsForBackgroundURLSession`.
    public mutating func completeBackgroundSessionEvents(for app: AppID, session identifier: String) {
        let id = text(identifier)
        var view = transferView(of: app)
        view.sessionName = identifier
        apply(transfers.eventsHandled(app, session: id, view))
    }

    /// The session's unfinished tasks: (task, kind, bytes, bytes still to move).
    public func pendingTransfers(for app: AppID, session identifier: String) -> [(task: Int32, kind: TransferKind,
                                                                                    bytes: Int64, remaining: Int64)] {
        guard let id = texts.index[identifier].map({ TextID(index: $0) }) else { return [] }
        return transfers.pendingTransfers(app, id)
    }

    /// Whether the app's session with this identifier is a Newsstand download's.
    public func isNewsstandSession(_ app: AppID, _ id: TextID) -> Bool { transfers.isNewsstandSession(app, id) }
}
