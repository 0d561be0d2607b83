import BGXApp
import BGXCore
import Foundation

/// One running process on the simulated device: it implements the app's
/// connection to the system and owns the app's pending timers.
public final class AppRuntime: SystemConnection {
    unowned let device: SimulatedDevice
    public let app: AppID
    public let launchCause: LaunchCause?
    public internal(set) var program: HostedApp
    public var application: Application {
        if let made = madeApplication { return made }
        let made = Application(bundleIdentifier: device.withEngine { $0.bundleIdentifier(app) }, connection: self,
                               delegate: (program as? DelegateApp)?.delegate)
        madeApplication = made
        return made
    }
    /// Made on first use; it holds this process (its connection), so `tearDown` lets it go.
    private var madeApplication: Application?
    /// Ended app delegates' applications (see `tearDown`).
    nonisolated(unsafe) private static var endedApplications: [Application] = []
    private static let endedApplicationsLock = NSLock()   // devices of parallel tests end processes at once
    /// Pending work by timer token, with the queue it runs on.
    var timers: [Int32: (queue: ExecutionQueue, body: () -> Bool)] = [:]
    /// The queue of the job running now: its busy work and waits continue there.
    var currentQueue = ExecutionQueue.main
    var taskHandlers: [String: (BGTask) -> Void] = [:]
    /// `performExpiringActivity` blocks, by activity (rules §13).
    var activityBlocks: [Int: (Bool) -> Void] = [:]
    var runningTasks: [String: BGTask] = [:]
    var expirationHandlers: [Int: () -> Void] = [:]
    /// Background session objects this process created, by identifier.
    var urlSessions: [String: URLSession] = [:]
    var pendingBusy: Nanoseconds = 0
    /// The engine has terminated this process. True at once — app code
    /// still running after a synchronous kill (Swift does not unwind) does
    /// nothing more — not only once the host carries out `terminate`.
    var isTerminated: Bool {
        get { terminated || device.withEngine { Engine.processEpoch(of: app, in: &$0) } != epoch }
        set { terminated = newValue }
    }
    private var terminated = false
    private let epoch: UInt32
    /// Sockets the app opened, by name (the system may close them, rules §10).
    var sockets: [String: NetworkSocket] = [:]
    var voipPushHandler: ((@escaping () -> Void) -> Void)?
    /// The payload of the VoIP push whose handler runs now.
    public internal(set) var incomingPushPayload: [AnyHashable: Any]?
    var voipSocketHandler: (() -> Void)?
    var keepAliveHandler: (() -> Void)?
    /// What app code put on dispatch queues and has not run yet, and what waits for it.
    var dispatchState = AppDispatchState()
    /// The app threads its code runs on, and what they wait for.
    var threads = AppThreads()
    /// The `Timer`s app code made and added to a run loop.
    var runLoopTimers = AppRunLoopTimers()
    /// Where app code's randomness comes from: seeded by the device's seed, the
    /// app and the process's launch, so runs repeat and each launch differs.
    let randomState = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)

    /// The process has ended or its device is gone: let go of the app's
    /// closures and objects. They hold this process (a timer's job, a
    /// handler, the `Application`), a cycle that would keep it — and the
    /// memory of its device — alive forever.
    func tearDown() {
        timers.removeAll()
        taskHandlers.removeAll()
        activityBlocks.removeAll()
        runningTasks.removeAll()
        expirationHandlers.removeAll()
        urlSessions.removeAll()
        sockets.removeAll()
        voipPushHandler = nil
        voipSocketHandler = nil
        keepAliveHandler = nil
        // The observers app code added to NotificationCenter.default (one for the whole host) go
        // with the process, as on iOS. One the device cannot see (added through Foundation's own
        // method) outlives it; filtered by this process's application, it would hear a later
        // process whose application took this one's address, so an app delegate's application is
        // kept, inert, for the host's life (scenario apps add no observers).
        madeApplication?.removeObserversAddedByAppCode()
        if let application = madeApplication, program is DelegateApp {
            Self.endedApplicationsLock.withLock { Self.endedApplications.append(application) }
        }
        madeApplication = nil
        dispatchState.tearDown()
        runLoopTimers.tearDown()
        threads.tearDown()
    }

    init(device: SimulatedDevice, app: AppID, cause: LaunchCause, program: HostedApp) {
        self.device = device
        self.app = app
        self.launchCause = cause
        self.program = program
        self.epoch = device.withEngine { Engine.processEpoch(of: app, in: &$0) }
        randomState.initialize(to: device.seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(app.index) << 32 ^ UInt64(epoch))
    }

    deinit { randomState.deallocate() }

    /// Runs one job — on the main thread, or on the background queue — in
    /// this process's context. App code runs on an app thread of its own
    /// (see `AppThread`), where a sleep or a wait parks it in virtual time.
    /// Busy work recorded during it delays the job's return by that much.
    /// `serialQueue`: the serial dispatch queue whose block it is (held until the job ends).
    func runJob(on queue: ExecutionQueue = .main, serialQueue: UnsafeMutableRawPointer? = nil,
                _ body: @escaping () -> Bool) {
        pendingBusy = 0
        currentQueue = queue
        // Scenario apps never ask for `Application.shared`; any other code may.
        if program is ScenarioApp { return finishJob(body(), on: queue) }
        runAppCodeJob(on: queue, serialQueue: serialQueue, body)
    }

    /// A scenario app's job: no app code, so no app thread (nothing to
    /// allocate on `bgx bench`'s and fleets' path).
    func runScenarioJob(on queue: ExecutionQueue, _ body: () -> Bool) {
        pendingBusy = 0
        currentQueue = queue
        finishJob(body(), on: queue)
    }

    private func runAppCodeJob(on queue: ExecutionQueue, serialQueue: UnsafeMutableRawPointer?,
                               _ body: @escaping () -> Bool) {
        // A serial queue's block keeps its place (it may make a thread beyond the limit).
        if queue == .background, serialQueue == nil, allBackgroundThreadsParked() {
            threads.waitingForThread.append((nil, body))
            return finishJob(true, on: queue)
        }
        if let thread = takeThread(for: queue) {
            thread.serialQueue = serialQueue
            thread.job = { [unowned self] in
                DeviceClock.run(at: device.now, startDate: device.startDate, process: self) {
                    ProcessContext.$current.withValue(application) { body() }
                }.result
            }
            return step(thread)
        }
        let done = device.runningAppCode(app) { ProcessContext.$current.withValue(application) { body() } }
        if let serialQueue { releaseSerialQueue(serialQueue) }
        finishJob(done, on: queue)
    }

    /// The job's body returned `done` (false: the program finishes it later, `jobFinished`).
    func finishJob(_ done: Bool, on queue: ExecutionQueue) {
        guard !isTerminated else { return }
        if done {
            if pendingBusy > 0 {
                let busy = pendingBusy
                pendingBusy = 0
                continueJob(after: busy) { true }
            } else {
                device.withEngine { $0.returned(app, on: queue) }
            }
        }
    }

    /// Schedules the rest of the current job `delay` later (busy work), on its queue.
    public func continueJob(after delay: Nanoseconds, _ rest: @escaping () -> Bool) {
        let token = device.withEngine { $0.scheduleTimer(for: app, after: delay, continuation: true) }
        timers[token] = (currentQueue, rest)
    }

    /// Queues new work `delay` later, on `queue` (by default the queue of the job running now).
    @discardableResult
    public func enqueue(after delay: Nanoseconds, on queue: ExecutionQueue? = nil, _ job: @escaping () -> Bool) -> Int32 {
        let queue = queue ?? currentQueue
        let token = device.withEngine { $0.scheduleTimer(for: app, after: delay, continuation: false, on: queue) }
        timers[token] = (queue, job)
        return token
    }

    /// Queues app code's work due now on `queue`: it keeps the app running until it has run.
    func enqueueNow(on queue: ExecutionQueue, _ job: @escaping () -> Bool) -> Int32 {
        let token = device.withEngine { $0.queueWorkNow(for: app, on: queue) }
        timers[token] = (queue, job)
        return token
    }

    /// The job running now is done (for programs that returned false).
    public func jobFinished() {
        guard !isTerminated else { return }
        device.withEngine { $0.returned(app) }
    }

    func fireTimer(_ token: Int32) {
        // Checked for emptiness first: scenario apps (`bgx bench`, fleets) never have either.
        if !threads.wakes.isEmpty, let wake = threads.wakes.removeValue(forKey: token) {
            return wakeThread(wake.thread, block: wake.block)
        }
        guard let timer = timers.removeValue(forKey: token) else { return }
        dispatchState.queued[token] = nil
        guard !threads.serialQueues.isEmpty, let serial = threads.serialQueues.removeValue(forKey: token) else {
            return runJob(on: timer.queue, timer.body)
        }
        // A serial queue runs one block at a time: while one of its blocks is parked, the next waits.
        guard threads.busySerialQueues.insert(serial).inserted else {
            threads.deferred[serial, default: []].append(timer.body)
            device.withEngine { $0.returned(app, on: timer.queue) }
            return
        }
        runJob(on: timer.queue, serialQueue: serial, timer.body)
    }

    func runExpirationHandler(_ id: Int) -> Bool {
        expirationHandlers.removeValue(forKey: id)?()
        return true
    }
}
