/// The app's code runs on one of two queues: the main thread, or the
/// background serial queue the system creates for launch handlers
/// registered with `using: nil` — BGTaskScheduler.h: "queue: A queue for
/// executing the task. Pass nil to use a default background queue." [D]
/// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:)
/// Work there does not hold the main thread: its watchdogs and callbacks
/// carry on, and a task's expiration handler (on the main thread) can run
/// while the launch handler still works. It is also where
/// `performExpiringActivity`'s block runs (rules §13).
public enum ExecutionQueue: UInt8, Sendable, CustomStringConvertible {
    case main, background
    public var description: String { self == .main ? "main" : "background" }
}

/// Jobs of an app's background serial queue, created the first time the app
/// puts work there (apps that never do pay nothing).
struct BackgroundQueueState: Sendable, Codable {
    /// The job running there now.
    var inFlight: InFlightJob?
    var jobs = JobQueue()
    /// Timers (an asynchronous wait's continuation) whose work runs on this queue.
    var timerTokens: Set<Int32> = []
}

/// The process's second thread, as the main thread is its first
/// (`Lifecycle.swift`): the coordinator's, like the main thread. What runs
/// there is asked of the controllers that own it (a task still running, an
/// activity still open) as a job comes up.
extension Engine {
    /// The queue a delivered callback runs on, for the host.
    public func queue(of callback: Callback, for app: AppID) -> ExecutionQueue {
        switch callback {
        case let .bgTask(id): launchHandlerQueue(for: app, identifier: id)
        case .expiringActivity(_, expired: false): .background
        default: .main
        }
    }

    /// The queue an app's launch handler for `identifier` runs on: the queue
    /// it was registered with — under the identifier or its wildcard.
    public func launchHandlerQueue(for app: AppID, identifier: TextID) -> ExecutionQueue {
        guard let handler = registeredHandler(of: app, identifier) else { return .background }
        return taskScheduler.runsOnMain(app, handler) ? .main : .background
    }

    /// Puts a job on the app's background serial queue; it runs when the
    /// queue is free and the app runs.
    mutating func enqueueInBackground(_ job: MainThreadJob, for app: AppID) {
        let i = Int(app.index)
        if apps[i].backgroundQueue == nil { apps[i].backgroundQueue = BackgroundQueueState() }
        apps[i].backgroundQueue!.jobs.append(job)
        pumpBackgroundQueue(app)
    }

    /// Runs queued jobs while the background queue is free and the app runs
    /// (a suspended app's threads are frozen, whichever queue they serve).
    mutating func pumpBackgroundQueue(_ app: AppID) {
        let i = Int(app.index)
        while apps[i].state.isRunning, let job = Self.nextJob(&apps[i].backgroundQueue) {
            runInBackground(job, for: app)
        }
    }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in BackgroundTasks/ (2 of them in this file, then in that folder) cost the engine 69 instructions per event.
    /// The next job when the queue is free. In place: optional chaining
    /// through `apps[i]` copied the whole app on every call (most apps have no queue).
    @inline(__always) static func nextJob(_ queue: inout BackgroundQueueState?) -> MainThreadJob? {
        guard queue != nil, queue!.inFlight == nil else { return nil }
        return queue!.jobs.popFirst()
    }

    /// Takes the job running on the queue, if any. In place, as `nextJob`:
    /// `apps[i].backgroundQueue?.inFlight` copied and destroyed the whole app
    /// (about 1,500 instructions per return from the queue in `bgx bench`'s demo).
    @inline(__always) static func takeInFlight(_ queue: inout BackgroundQueueState?) -> InFlightJob? {
        guard queue != nil, let job = queue!.inFlight else { return nil }
        queue!.inFlight = nil
        return job
    }

    mutating func runInBackground(_ job: MainThreadJob, for app: AppID) {
        let i = Int(app.index)
        apps[i].jobCounter &+= 1
        let number = apps[i].jobCounter
        switch job {
        case let .bgTask(id):
            guard taskScheduler.isRunning(app, id) else { return }
            deliverInBackground(.bgTask(id), to: app, number: number)
        case let .expiringActivity(id):
            guard backgroundTasks.isOpen(app, id) else { return }
            deliverInBackground(.expiringActivity(id, expired: false), to: app, number: number)
        case let .timer(token):
            apps[i].backgroundQueue!.inFlight = InFlightJob(number: number, isCallback: false,
                                                            queuedForNow: apps[i].startsQueuedWork(token),
                                                            callback: nil, terminateAfterwards: nil)
            outbox.append(.fire(app, token: token, continuation: false))
        default:
            preconditionFailure("\(job) runs on the main thread")
        }
    }

    /// No watchdog: only the main thread has them.
    mutating func deliverInBackground(_ callback: Callback, to app: AppID, number: UInt32) {
        let i = Int(app.index)
        apps[i].backgroundQueue!.inFlight = InFlightJob(number: number, isCallback: true, callback: callback,
                                                        terminateAfterwards: nil)
        record(app, .callbackOnQueue(callback))
        outbox.append(.deliver(app, callback))
    }

    /// A job on the background queue has returned: the queue is free.
    mutating func returnedInBackground(_ app: AppID) {
        let i = Int(app.index)
        guard let job = Self.takeInFlight(&apps[i].backgroundQueue) else { return }
        if case let .expiringActivity(id, false) = job.callback { expiringActivityBlockReturned(app, id) }
        pumpBackgroundQueue(app)
        suspendIfThreadFree(app)
    }

    /// The job on the background queue blocked in app code (a sleep, a wait):
    /// its thread waits, and the queue is free for other work, as on iOS,
    /// where each blocked block holds a thread of its own. Returns the
    /// callback it was running; `blockedJobReturned` finishes it.
    public mutating func backgroundJobBlocked(_ app: AppID) -> Callback? {
        let i = Int(app.index)
        guard let job = Self.takeInFlight(&apps[i].backgroundQueue) else { return nil }
        pumpBackgroundQueue(app)
        suspendIfThreadFree(app)
        return job.callback
    }

    /// A job that blocked on the background queue (`backgroundJobBlocked`)
    /// has returned, having run `callback`.
    public mutating func blockedJobReturned(_ app: AppID, callback: Callback?) {
        if case let .expiringActivity(id, false) = callback { expiringActivityBlockReturned(app, id) }
        suspendIfThreadFree(app)
    }

    /// The queue a timer's work runs on (see `scheduleTimer`); forgets the
    /// timer's queue as its work starts.
    mutating func takeTimerQueue(_ app: AppID, _ token: Int32) -> ExecutionQueue {
        let i = Int(app.index)
        guard apps[i].backgroundQueue?.timerTokens.remove(token) != nil else { return .main }
        return .background
    }
}
