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

extension Engine {
    // MARK: The app's calls

    /// `URLSession(configuration: .background(withIdentifier:), delegate:)`: creates
    /// or recreates the session object. Returns false when the system refuses.
    @discardableResult
    public mutating func createBackgroundSession(for app: AppID, _ config: BackgroundSessionConfiguration) -> Bool {
        let i = Int(app.index)
        // App code still running after its process ended (exit, a synchronous kill) creates nothing.
        guard apps[i].state != .notRunning else { return false }
        if config.newsstand {
            guard apps[i].manifest.backgroundModes.contains(.newsstandContent) else {
                log(app, "Newsstand downloads need UIBackgroundModes 'newsstand-content'; the download is refused")
                return false
            }
        } else if !profile.transfers.backgroundSessions {
            log(app, "Background URLSessions need iOS 7 or later (profile \(profile.name)); "
                + "session '\(config.identifier)' is not created")
            return false
        }
        let id = text(config.identifier)
        let s: Int
        if let existing = sessionIndex(app, id) {
            s = existing
            if transfers.sessions[s].attachedEpoch == apps[i].epoch && !config.newsstand {
                log(app, "A background URLSession with identifier \(config.identifier) already exists!")
            }
        } else {
            transfers.sessions.append(TransferSession(
                app: app, identifier: id, sendsLaunchEvents: true, isDiscretionary: false, allowsCellular: true,
                requestTimeout: 0, resourceTimeout: 0, newsstand: config.newsstand))
            s = transfers.sessions.count - 1
        }
        transfers.sessions[s].sendsLaunchEvents = config.sessionSendsLaunchEvents
        transfers.sessions[s].isDiscretionary = config.isDiscretionary
        transfers.sessions[s].allowsCellular = config.allowsCellularAccess
        transfers.sessions[s].requestTimeout = config.timeoutIntervalForRequest ?? profile.transfers.requestTimeout
        transfers.sessions[s].resourceTimeout = config.timeoutIntervalForResource ?? profile.transfers.resourceTimeout
        transfers.sessions[s].attachedEpoch = apps[i].epoch
        transfers.sessions[s].lastHold = nil
        handOverResults(s)
        if let wake = transfers.apps[i].eventsWake, wake.session == id, !wake.finishEventsQueued {
            transfers.apps[i].eventsWake!.finishEventsQueued = true
            apps[i].jobs.append(.transfer(.finishEvents(id)))
        }
        pump(app)
        return true
    }

    /// `downloadTask(with:)` / `uploadTask(with:fromFile:)` then `resume()` on a session
    /// object this process created. Returns the task's identifier, or nil if refused.
    public mutating func startTransfer(for app: AppID, session identifier: String, _ spec: TransferTaskSpec) -> Int32? {
        let i = Int(app.index)
        guard apps[i].state != .notRunning else { return nil }
        let id = text(identifier)
        guard let s = sessionIndex(app, id), isAttached(s) else {
            log(app, "No background URLSession '\(identifier)' in this process: create it before adding tasks")
            return nil
        }
        settleTransfers()
        let session = transfers.sessions[s]
        let discretion: TransferTask.Discretion = session.newsstand ? .no
            : spec.discretionary ?? session.isDiscretionary ? .configured
            : apps[i].state.isForeground ? .no : .startedInBackground
        let task = TransferTask(id: transfers.nextTaskID, app: app, session: id, kind: spec.kind,
                                bytes: max(0, spec.bytes), remaining: max(0, spec.bytes), created: now,
                                earliestBegin: spec.earliestBegin, discretion: discretion,
                                allowsCellular: session.allowsCellular, requestTimeout: session.requestTimeout,
                                resourceTimeout: session.resourceTimeout)
        transfers.nextTaskID &+= 1
        transfers.tasks.append(task)
        // A fetch's data (rules §6): what its transfers move counts toward its cost.
        scheduler.fetchMoved(app, bytes: task.bytes)
        record(app, .transferCreate(session: id, task: task.id, kind: spec.kind, bytes: task.bytes))
        reviewTransfers()
        return task.id
    }

    /// `URLSessionTask.cancel()`: the task ends with NSURLErrorCancelled.
    public mutating func cancelTransfer(for app: AppID, task: Int32) {
        guard let t = transferIndex(task), transfers.tasks[t].app == app,
              transfers.tasks[t].phase != .finished else { return }
        settleTransfers()
        record(app, .transferCancel(session: transfers.tasks[t].session, reason: text("the app cancelled task \(task)")))
        finishTransfer(at: t, .cancelled, reason: nil)
        reviewTransfers()
    }

    /// The completion handler of `handleEventsForBackgroundURLSession`.
    public mutating func completeBackgroundSessionEvents(for app: AppID, session identifier: String) {
        let id = text(identifier)
        guard let ended = transfers.endEvents(app, session: id) else {
            log(app, "handleEventsForBackgroundURLSession completion handler for '\(identifier)' called "
                + "while no events of that session are being handled (called twice, or after the system "
                + "stopped waiting for it)")
            return
        }
        apply(ended.effects)
        noteSessionNotRecreated(app, id)
        suspendIfThreadFree(app)
    }

    /// The session's unfinished tasks: (task, kind, bytes, bytes still to move).
    public func pendingTransfers(for app: AppID, session identifier: String) -> [(task: Int32, kind: TransferKind,
                                                                                    bytes: Int64, remaining: Int64)] {
        guard let id = texts.index[identifier].map({ TextID(index: $0) }) else { return [] }
        return transfers.tasks.filter { $0.app == app && $0.session == id && $0.phase != .finished }
            .map { ($0.id, $0.kind, $0.bytes, $0.remaining) }
    }

    /// Whether the app's session with this identifier is a Newsstand download's.
    public func isNewsstandSession(_ app: AppID, _ id: TextID) -> Bool {
        sessionIndex(app, id).map { transfers.sessions[$0].newsstand } ?? false
    }

    // MARK: Results

    func sessionIndex(_ app: AppID, _ id: TextID) -> Int? {
        transfers.sessions.firstIndex { $0.app == app && $0.identifier == id }
    }

    /// The running process holds the session object (Newsstand needs none).
    func isAttached(_ s: Int) -> Bool {
        let session = transfers.sessions[s]
        return session.newsstand || session.attachedEpoch == apps[Int(session.app.index)].epoch
    }

    /// Finished results the app has not received and is not about to receive.
    func undeliveredResults(_ s: Int) -> [TransferTask] {
        let session = transfers.sessions[s]
        let epoch = apps[Int(session.app.index)].epoch, running = apps[Int(session.app.index)].state != .notRunning
        return transfers.tasks.filter {
            $0.app == session.app && $0.session == session.identifier && $0.phase == .finished && !$0.delivered
                && !($0.queuedEpoch == epoch && running)
        }
    }

    /// Queues the session's finished results on a running app holding the session object.
    mutating func handOverResults(_ s: Int) {
        let session = transfers.sessions[s]
        let i = Int(session.app.index)
        guard apps[i].state.isRunning, isAttached(s) else { return }
        for t in transfers.tasks.indices {
            let task = transfers.tasks[t]
            guard task.app == session.app, task.session == session.identifier, task.phase == .finished,
                  !task.delivered, task.queuedEpoch != apps[i].epoch else { continue }
            transfers.tasks[t].queuedEpoch = apps[i].epoch
            apps[i].jobs.append(.transfer(.result(task.id)))
        }
    }

    mutating func finishTransfer(at t: Int, _ result: TransferResult, reason: String?) {
        let task = transfers.tasks[t]
        transfers.tasks[t].phase = .finished
        transfers.tasks[t].result = result
        switch result {
        case .success: record(task.app, .transferComplete(session: task.session, task: task.id))
        case .timedOut, .cancelled, .badServerResponse:
            if let reason {
                record(task.app, .transferFail(session: task.session, task: task.id, result: result,
                                               reason: appendText(reason)))
            }
        }
        guard let s = sessionIndex(task.app, task.session) else { return }
        if transfers.sessions[s].newsstand {
            newsstandFinished(s)
        } else {
            handOverResults(s)
            pump(task.app)
            sessionSettled(s)
        }
    }

    /// Every task of the session has finished: if the app has not received the
    /// results, the system wakes it for them — after the rate limiter's delay.
    mutating func sessionSettled(_ s: Int) {
        let session = transfers.sessions[s]
        guard !session.newsstand, !session.wakePending,
              !transfers.tasks.contains(where: {
                  $0.app == session.app && $0.session == session.identifier && $0.phase != .finished }) else { return }
        let waiting = undeliveredResults(s)
        // Cancellations alone wake nobody: `transfer.cancel` said they wait for the next launch.
        guard waiting.contains(where: { $0.result != .cancelled }) else { return }
        let i = Int(session.app.index)
        if apps[i].state.isForeground {
            hold(s, "the app is in front: the results go to its delegate when it creates the session '"
                 + text(session.identifier) + "'")
            return
        }
        if let why = transferLaunchBlock(s) { holdForLaunch(s, why); return }
        let (delay, wake) = transfers.nextWakeDelay(session.app, settings: profile.transfers)
        scheduleSessionWake(s, at: now + delay)
        hold(s, "relaunch rate limiter: the app is woken in \(Time.describe(delay)) (background wake "
             + "\(wake) since it was last in front; the delay doubles each time)")
    }

    mutating func scheduleSessionWake(_ s: Int, at time: Nanoseconds) {
        transfers.sessions[s].wakePending = true
        transfers.sessions[s].wakeNumber &+= 1
        let session = transfers.sessions[s]
        queue.push(.transferWake(session.app, session: session.identifier, number: session.wakeNumber), at: time)
    }

    /// Why the system may not wake the app for a session's events now: the
    /// session's own setting, then the launch policy (rules §11) for cause
    /// `transfer` or `newsstand`. A running app needs no launch.
    func transferLaunchBlock(_ s: Int) -> String? {
        let session = transfers.sessions[s]
        if !session.sendsLaunchEvents && !session.newsstand {
            return "sessionSendsLaunchEvents is false: the results wait until the app runs and creates the session"
        }
        if apps[Int(session.app.index)].state.isRunning { return nil }
        let verdict = launchVerdict(for: session.app, cause: session.newsstand ? .newsstand : .transfer)
        return verdict.refusal.map { "not woken for the session's events: " + $0.reason }
    }

    mutating func holdForLaunch(_ s: Int, _ reason: String) {
        transfers.sessions[s].launchHeld = true
        hold(s, reason)
    }

    mutating func hold(_ s: Int, _ reason: String) {
        guard transfers.sessions[s].lastHold != reason else { return }
        transfers.sessions[s].lastHold = reason
        record(transfers.sessions[s].app, .transferHold(session: transfers.sessions[s].identifier,
                                                         reason: appendText(reason)))
    }

    mutating func transferWakeFired(_ app: AppID, session id: TextID, number: UInt32) {
        let i = Int(app.index)
        guard let s = sessionIndex(app, id), transfers.sessions[s].wakePending,
              transfers.sessions[s].wakeNumber == number else { return }
        transfers.sessions[s].wakePending = false
        guard !undeliveredResults(s).isEmpty else { return }
        if apps[i].state.isForeground {
            handOverResults(s)
            pump(app)
            return
        }
        if let why = transferLaunchBlock(s) { holdForLaunch(s, why); return }
        if let other = transfers.apps[i].eventsWake {
            // One session's events at a time: look again once the app is done with the other.
            scheduleSessionWake(s, at: now + profile.transfers.eventsHandlingTime)
            hold(s, "the app is handling background session '\(text(other.session))''s events: "
                 + "looked at again in \(Time.describe(profile.transfers.eventsHandlingTime))")
            return
        }
        guard wakeIntoBackground(app, cause: .transfer) else {
            holdForLaunch(s, "the app was terminated as it was launched for the session's events")
            return
        }
        // The deadline is queued before the jobs: handing over results queues no event.
        apply(transfers.beginEvents(app, session: id, epoch: apps[i].epoch, now: now, settings: profile.transfers))
        apps[i].jobs.append(.transfer(.events(id)))
        if isAttached(s) {
            handOverResults(s)
            transfers.apps[i].eventsWake!.finishEventsQueued = true
            apps[i].jobs.append(.transfer(.finishEvents(id)))
        }
        pump(app)
    }

    mutating func transferEventsDeadlineFired(_ app: AppID) {
        log(app, "Warning: Application delegate received call to -application:handleEventsForBackgroundURLSession:"
            + "completionHandler: but the completion handler was never called.")
        guard let ended = transfers.endEvents(app, session: nil) else { return }
        apply(ended.effects)
        noteSessionNotRecreated(app, ended.wake.session)
        suspendIfThreadFree(app)
    }

    /// The app handled (or ignored) a session's events without creating the session object.
    mutating func noteSessionNotRecreated(_ app: AppID, _ id: TextID) {
        guard let s = sessionIndex(app, id), !isAttached(s) else { return }
        let waiting = undeliveredResults(s).count
        guard waiting > 0 else { return }
        hold(s, "the app did not recreate background session '\(text(id))' "
             + "(URLSessionConfiguration.background(withIdentifier:)) when handling its events: "
             + (waiting == 1 ? "1 result waits" : "\(waiting) results wait") + " until it does")
    }

    mutating func runTransferJob(_ job: TransferJob, for app: AppID) {
        let i = Int(app.index)
        switch job {
        case let .events(id):
            guard transfers.apps[i].eventsWake?.session == id else { return }
            deliver(.handleEventsForBackgroundURLSession(id), to: app, watchdog: nil)
        case let .result(taskID):
            guard let t = transferIndex(taskID), !transfers.tasks[t].delivered,
                  transfers.tasks[t].queuedEpoch == apps[i].epoch else { return }
            transfers.tasks[t].delivered = true
            let task = transfers.tasks[t]
            deliver(.urlSessionTaskDidComplete(session: task.session, task: task.id, kind: task.kind,
                                               result: task.result ?? .success), to: app, watchdog: nil)
        case let .finishEvents(id):
            deliver(.urlSessionDidFinishEvents(id), to: app, watchdog: nil)
        }
    }

    // MARK: Newsstand (rules §4)

    /// A Newsstand download ended: its result goes to the app at once, waking it.
    mutating func newsstandFinished(_ s: Int) {
        let app = transfers.sessions[s].app
        if !apps[Int(app.index)].state.isRunning {
            if let why = transferLaunchBlock(s) { holdForLaunch(s, why); return }
            guard wakeIntoBackground(app, cause: .newsstand) else {
                holdForLaunch(s, "the app was terminated as it was launched for the download")
                return
            }
        }
        handOverResults(s)
        pump(app)
    }

    // MARK: What the person does

    /// The app is in front: the rate limiter starts over (a wake already waiting
    /// is dropped: the app now gets its results in front), and a session object
    /// the process holds receives what waited.
    mutating func transfersAppCameToFront(_ app: AppID) {
        transfers.appCameToFront(app)
        for s in transfers.sessions.indices where transfers.sessions[s].app == app { handOverResults(s) }
    }

    /// A swipe in the app switcher cancels the app's unfinished transfers (rules §8).
    mutating func cancelTransfersForForceQuit(_ app: AppID) {
        guard transfers.tasks.contains(where: { $0.app == app && $0.phase != .finished }) else { return }
        settleTransfers()
        for s in transfers.sessions.indices where transfers.sessions[s].app == app {
            let id = transfers.sessions[s].identifier
            var cancelled = 0
            for t in transfers.tasks.indices where transfers.tasks[t].app == app && transfers.tasks[t].session == id
                && transfers.tasks[t].phase != .finished {
                transfers.tasks[t].phase = .finished
                transfers.tasks[t].result = .cancelled
                cancelled += 1
            }
            guard cancelled > 0 else { continue }
            record(app, .transferCancel(session: id, reason: appendText(
                "the user force-quit the app: \(cancelled) pending transfer\(cancelled == 1 ? "" : "s") cancelled "
                + "(NSURLErrorCancelled -999, delivered when the app next creates the session); no relaunch")))
        }
        reviewTransfers()
    }

    /// Conditions for waking apps changed (first unlock, reboot, a device
    /// change): sessions whose wake was refused are looked at again. Results
    /// waiting for the app to create its session are not — no wake comes for
    /// them until the app has something new (`transfer.hold` said so).
    mutating func reviewHeldTransferSessions() {
        for s in transfers.sessions.indices where transfers.sessions[s].launchHeld {
            transfers.sessions[s].launchHeld = false
            if !transfers.sessions[s].newsstand {
                sessionSettled(s)
            } else if !undeliveredResults(s).isEmpty, !apps[Int(transfers.sessions[s].app.index)].state.isRunning {
                newsstandFinished(s)
            }
        }
    }
}
