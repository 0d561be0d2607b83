import BGXApp
import BGXCore
import Foundation

/// An app as the device runs it: something that handles callbacks and
/// timers on its main thread. `handle` returns true when the job's
/// synchronous part is done; false when the program has scheduled a
/// continuation and will finish the job later.
public protocol HostedApp: AnyObject {
    func handle(_ callback: Callback, process: AppRuntime) -> Bool
}

/// The simulated device: the engine plus a host that runs app code in
/// process, in virtual time, deterministically — the way `EmbeddedEventLoop`
/// runs what is due before moving time on.
public final class SimulatedDevice {
    /// Accessed without run-time exclusivity checks: the device is used from
    /// one thread, and the engine is pure — code inside `withEngine` never
    /// calls back into the device (the checks were ~6 % of a simulated week).
    @exclusivity(unchecked) public private(set) var engine: Engine
    /// Wall-clock time at t = 0 (for time of day and `Runtime.now`).
    public let startDate: Date
    var factories: [() -> HostedApp] = []
    var processes: [AppRuntime?] = []
    /// What apps wrote to the device's disk, by app and path (SPEC §13); the
    /// engine keeps each file's protection class and decides who may read it.
    var fileContents: [AppID: [String: Data]] = [:]
    private var directives: [Directive] = []
    /// Trace events taken from the engine so far.
    public private(set) var trace: [TraceEvent] = []
    /// Called with each batch of new events (e.g. to stream a trace file).
    public var traceSink: (([TraceEvent]) -> Void)?
    /// Keep every event in `trace` (turn off for long runs that stream).
    public var keepsTrace = true
    /// Every request's and push's fate so far, kept even when the trace is not:
    /// the summary's "why not yet" comes from it.
    public private(set) var ledger = RequestLedger()

    public init(profile: PolicyProfile = .modern, device: DeviceState = DeviceState(), seed: UInt64 = 0,
                startDate: Date = Date(timeIntervalSince1970: 1_767_571_200)) {  // 2026-01-05 00:00 UTC
        self.engine = Engine(profile: profile, device: device, seed: seed,
                             wallClockOffset: Units.timeOfDay(of: startDate),
                             startEpochSeconds: Int64(startDate.timeIntervalSince1970.rounded(.down)))
        self.startDate = startDate
    }

    deinit {
        for process in processes { process?.tearDown() }
    }

    // MARK: Installing apps

    /// Installs an app whose code is a `HostedApp`; `make` creates a fresh
    /// instance for every launch (a new process has no memory of the last).
    @discardableResult
    public func install(_ manifest: AppManifest, program make: @escaping () -> HostedApp) -> AppID {
        let id = engine.install(manifest)
        factories.append(make)
        processes.append(nil)
        return id
    }

    /// Installs an app written against `BGXApp`, as on iOS.
    @discardableResult
    public func install(_ manifest: AppManifest, delegate make: @escaping () -> ApplicationDelegate) -> AppID {
        install(manifest, program: { DelegateApp(make()) })
    }

    public func app(_ bundle: String) -> AppID? { engine.app(named: bundle) }
    public func state(of app: AppID) -> ProcessState { engine.state(of: app) }
    /// The running process of an app, if any.
    public func process(of app: AppID) -> AppRuntime? { processes[Int(app.index)] }

    // MARK: Acting and letting time pass

    /// Virtual time now, in nanoseconds since the start.
    public var now: Nanoseconds { engine.now }
    public var nowSeconds: Double { Time.toSeconds(engine.now) }

    /// The person does something, now.
    public func perform(_ action: UserAction) {
        engine.schedule(.user(action), at: engine.now)
        run(until: engine.now)
    }

    /// The person taps a notification in Notification Center, now (SPEC §9).
    public func tapNotification(_ id: String) {
        perform(.tapNotification(withEngine { $0.internNotification(id) }))
    }

    /// The person cancels a continued-processing task from its Live Activity, now (SPEC §13).
    public func cancelContinuedTask(_ identifier: String) {
        perform(.cancelTask(withEngine { $0.internText(identifier) }))
    }

    /// The device changes, now.
    public func change(_ change: DeviceChange) {
        engine.schedule(.device(change), at: engine.now)
        run(until: engine.now)
    }

    public func schedule(_ event: EngineEvent, at time: Nanoseconds) { engine.schedule(event, at: time) }

    /// `_simulateLaunchForTaskWithIdentifier`, now.
    @discardableResult
    public func simulateLaunch(_ app: AppID, identifier: String) -> Bool {
        let ok = engine.simulateLaunch(for: app, identifier: identifier)
        run(until: engine.now)
        return ok
    }

    /// `_simulateExpirationForTaskWithIdentifier`, now.
    @discardableResult
    public func simulateExpiration(_ app: AppID, identifier: String) -> Bool {
        let ok = engine.simulateExpiration(for: app, identifier: identifier)
        run(until: engine.now)
        return ok
    }

    /// A push reaches the device for `app`, now (SPEC §7, §4).
    public func push(_ push: Push, to app: AppID) {
        engine.schedule(.push(app, push), at: engine.now)
        run(until: engine.now)
    }

    /// Data arrives on `app`'s VoIP socket, now (SPEC §4).
    public func voipSocketTraffic(to app: AppID) {
        engine.schedule(.voipSocketTraffic(app), at: engine.now)
        run(until: engine.now)
    }

    public func advance(by duration: Nanoseconds) { run(until: engine.now + duration) }
    public func advance(seconds: Double) { advance(by: Time.seconds(seconds)) }

    /// Runs every event due up to and including `time`, then sets the clock there.
    public func run(until time: Nanoseconds) {
        drain()
        // Through `withEngine` (inout): reading a computed property of the
        // stored engine would copy the whole engine.
        while let next = withEngine({ $0.nextEventTime }), next <= time {
            withEngine { _ = $0.step() }
            drain()
        }
        engine.advanceClock(to: time)
        flushTrace()
    }

    /// Carries out the engine's directives until it has none left; app code
    /// may produce more as it runs.
    func drain() {
        while withEngine({ $0.hasDirectives }) {
            withEngine { $0.takeDirectives(into: &directives) }
            let batch = directives
            for directive in batch { carryOut(directive) }
        }
        if engine.trace.count >= 4096 { flushTrace() }
    }

    func flushTrace() {
        guard !engine.trace.isEmpty else { return }
        traceSink?(engine.trace)
        ledger.record(engine.trace)
        if keepsTrace { trace.append(contentsOf: engine.trace) }
        engine.trace.removeAll(keepingCapacity: true)
    }

    private func carryOut(_ directive: Directive) {
        switch directive {
        case let .launch(app, cause):
            let i = Int(app.index)
            let process = AppRuntime(device: self, app: app, cause: cause, program: LaunchingApp())
            processes[i] = process
            // The delegate's `init` is app code of the new process: it may register task
            // handlers (SwiftUI's `App.init()` pattern), and it reads the device's clocks.
            process.program = runningAppCode(app) { ProcessContext.$current.withValue(process.application) { factories[i]() } }
            if let delegate = (process.program as? DelegateApp)?.delegate { process.application.attachDelegate(delegate) }
        case let .deliver(app, callback):
            guard let process = processes[Int(app.index)] else { return }
            let queue = withEngine { $0.queue(of: callback, for: app) }
            process.runJob(on: queue) { process.program.handle(callback, process: process) }
        case let .fire(app, token, _):
            guard let process = processes[Int(app.index)] else { return }
            process.fireTimer(token)
        case .suspend, .resume:
            break  // in process, a suspended app simply gets no events
        case let .terminate(app):
            processes[Int(app.index)]?.isTerminated = true
            processes[Int(app.index)]?.tearDown()
            processes[Int(app.index)] = nil
        }
    }

    /// Engine access for app processes (they call in synchronously).
    func withEngine<R, E: Error>(_ body: (inout Engine) throws(E) -> R) throws(E) -> R { try body(&engine) }

    // MARK: Reading the trace

    public var renderer: TraceRenderer { engine.traceRenderer }
    public var traceLines: [String] {
        flushTrace()
        let r = renderer
        return trace.map(r.jsonLine)
    }
    public func summary(of app: AppID) -> AppSummary {
        flushTrace()
        return summary(of: app, names: engine.traceNames)
    }

    /// Every app's summary, in install order (the names are resolved once for all).
    public func summaries() -> [AppSummary] {
        flushTrace()
        let names = engine.traceNames
        return engine.appIDs.map { summary(of: $0, names: names) }
    }

    private func summary(of app: AppID, names: TraceNames) -> AppSummary {
        AppSummary(bundleIdentifier: engine.bundleIdentifier(app), stats: engine.stats(of: app), ledger: ledger,
                   app: app, names: names, now: engine.now)
    }

    /// The trace events of one app (or device-wide ones for nil).
    public func events(of app: AppID?) -> [TraceEvent] {
        flushTrace()
        return trace.filter { $0.app == app }
    }
}

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
    /// Pending work by timer token, with the queue it runs on.
    var timers: [Int32: (queue: ExecutionQueue, body: () -> Bool)] = [:]
    /// The queue of the job running now: its busy work and waits continue there.
    var currentQueue = ExecutionQueue.main
    var taskHandlers: [String: (BGTask) -> Void] = [:]
    /// `performExpiringActivity` blocks, by activity (SPEC §13).
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
        get { terminated || device.withEngine { $0.processEpoch(of: app) } != epoch }
        set { terminated = newValue }
    }
    private var terminated = false
    private let epoch: UInt32
    /// Sockets the app opened, by name (the system may close them, SPEC §10).
    var sockets: [String: NetworkSocket] = [:]
    var voipPushHandler: ((@escaping () -> Void) -> Void)?
    var voipSocketHandler: (() -> Void)?
    var keepAliveHandler: (() -> Void)?

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
        madeApplication = nil
    }

    init(device: SimulatedDevice, app: AppID, cause: LaunchCause, program: HostedApp) {
        self.device = device
        self.app = app
        self.launchCause = cause
        self.program = program
        self.epoch = device.withEngine { $0.processEpoch(of: app) }
    }

    /// Runs one job — on the main thread, or on the background queue — in
    /// this process's context. Busy work recorded during it delays the job's
    /// return by that much.
    func runJob(on queue: ExecutionQueue = .main, _ body: () -> Bool) {
        pendingBusy = 0
        currentQueue = queue
        // Scenario apps never ask for `Application.shared`; any other code may.
        let done = program is ScenarioApp ? body()
            : device.runningAppCode(app) { ProcessContext.$current.withValue(application) { body() } }
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
    public func enqueue(after delay: Nanoseconds, on queue: ExecutionQueue? = nil, _ job: @escaping () -> Bool) {
        let queue = queue ?? currentQueue
        let token = device.withEngine { $0.scheduleTimer(for: app, after: delay, continuation: false, on: queue) }
        timers[token] = (queue, job)
    }

    /// The job running now is done (for programs that returned false).
    public func jobFinished() {
        guard !isTerminated else { return }
        device.withEngine { $0.returned(app) }
    }

    func fireTimer(_ token: Int32) {
        guard let timer = timers.removeValue(forKey: token) else { return }
        runJob(on: timer.queue, timer.body)
    }

    func runExpirationHandler(_ id: Int) -> Bool {
        expirationHandlers.removeValue(forKey: id)?()
        return true
    }

    // MARK: SystemConnection

    public var now: Date { device.startDate.addingTimeInterval(device.nowSeconds) }
    public var processState: ProcessState { device.withEngine { $0.state(of: app) } }
    public var backgroundTimeRemaining: Double { device.withEngine { $0.backgroundTimeRemaining(for: app) } }

    public func beginBackgroundTask(name: String?, expirationHandler: (() -> Void)?) -> Int {
        let id = device.withEngine { $0.beginBackgroundTask(for: app, name: name) }
        if id != Engine.invalidBackgroundTask, let handler = expirationHandler { expirationHandlers[id] = handler }
        return id
    }
    public func endBackgroundTask(_ id: Int) {
        expirationHandlers.removeValue(forKey: id)
        device.withEngine { $0.endBackgroundTask(for: app, id) }
    }
    public func asyncAfter(seconds delay: Double, _ body: @escaping () -> Void) {
        enqueue(after: Time.seconds(delay), on: .main) { body(); return true }
    }
    public func work(seconds: Double) {
        let busy = Time.seconds(max(0, seconds))
        pendingBusy += busy
        device.withEngine { $0.noteBusy(app, busy) }
    }
    public func exit() { device.withEngine { $0.exit(app) } }

    // MARK: UNUserNotificationCenter (SPEC §9)

    /// A trigger iOS raises NSInternalInconsistencyException for ends the
    /// process; app code still running after it (Swift does not unwind)
    /// schedules nothing more.
    public func addNotification(identifier: String, content: NotificationContent, trigger: NotificationTrigger) {
        guard !isTerminated else { return }
        do {
            try device.withEngine { try $0.scheduleNotification(for: app, id: identifier, trigger: trigger, content: content) }
        } catch {
            device.withEngine { $0.terminate(app, .invalidNotificationTrigger, detail: "NSInternalInconsistencyException: \(error)") }
            isTerminated = true
        }
    }
    public func removePendingNotifications(identifiers: [String]) {
        device.withEngine { engine in identifiers.forEach { engine.cancelNotification(for: app, id: $0) } }
    }
    public func removeAllPendingNotifications() { device.withEngine { $0.cancelAllNotifications(for: app) } }
    public func pendingNotifications() -> [PendingNotification] {
        let now = device.now
        return device.withEngine { $0.pendingNotifications(for: app) }.map {
            var relative = $0
            relative.fireAt -= now
            return relative
        }
    }
    public func deliveredNotifications() -> [DeliveredNotification] {
        let now = device.now
        return device.withEngine { $0.deliveredNotifications(for: app) }.map {
            var relative = $0
            relative.deliveredAt -= now
            return relative
        }
    }
    public func removeDeliveredNotifications(identifiers: [String]?) {
        device.withEngine { $0.removeDeliveredNotifications(for: app, ids: identifiers) }
    }
    public func presentNotification(identifier: String, options: NotificationPresentation) {
        device.withEngine { $0.presentNotification(for: app, id: identifier, options: options) }
    }
    public var launchNotification: String? {
        launchCause == .notification ? device.withEngine { $0.launchNotification(of: app) } : nil
    }
    public var badgeNumber: Int {
        get { device.withEngine { $0.badge(of: app) } }
        set { device.withEngine { $0.setBadge(of: app, newValue) } }
    }
    public func firstFiring(of trigger: NotificationTrigger) -> TimeInterval? {
        device.withEngine { engine in engine.firstFiring(of: trigger).map { Time.toSeconds($0 - engine.now) } }
    }

    /// The notification a callback names, and what it shows.
    func notification(_ id: NotificationID) -> (name: String, content: NotificationContent) {
        device.withEngine { ($0.notificationName(id), $0.notificationContent(for: app, id)) }
    }

    // MARK: BGTaskScheduler and fetch

    public func registerTask(identifier: String, queue: ExecutionQueue, launchHandler: @escaping (BGTask) -> Void) -> Bool {
        let ok = device.withEngine { $0.registerTask(for: app, identifier: identifier, queue: queue) }
        if ok { taskHandlers[identifier] = launchHandler }
        return ok
    }
    /// `request.earliestBegin` comes as a delay from now; the engine keeps virtual time.
    public func submitTask(_ request: TaskRequestSpec) throws {
        var absolute = request
        absolute.earliestBegin = request.earliestBegin.map { device.now + $0 }
        if let delay = request.earliestBegin { noteWallClockEscape(request.identifier, delay) }
        try device.withEngine { try $0.submitTask(for: app, absolute) }
    }
    public func cancelTask(identifier: String) { device.withEngine { $0.cancelTask(for: app, identifier: identifier) } }
    public func cancelAllTasks() { device.withEngine { $0.cancelAllTasks(for: app) } }
    /// Earliest dates as delays from now (negative when past).
    public func pendingTaskRequests() -> [TaskRequestSpec] {
        device.withEngine { $0.pendingTaskRequests(for: app) }.map { spec in
            var relative = spec
            relative.earliestBegin = spec.earliestBegin.map { $0 - device.now }
            return relative
        }
    }
    public func submitContinuedProcessingTask(_ request: ContinuedProcessingRequest) throws {
        try device.withEngine { try $0.submitContinuedProcessingTask(for: app, request) }
    }
    public func reportContinuedProgress(identifier: String, completed: Int64, total: Int64) {
        device.withEngine { $0.reportContinuedProgress(for: app, identifier: identifier, completed: completed, total: total) }
    }
    public func runningTaskKind(identifier: String) -> BGTaskKind? {
        device.withEngine { $0.runningTaskKind(for: app, identifier: identifier) }
    }
    public var supportsBackgroundGPU: Bool { device.withEngine { $0.device.backgroundGPU } }
    public func setTaskExpirationHandler(identifier: String, isSet: Bool) {
        device.withEngine { $0.setTaskExpirationHandler(for: app, identifier: identifier, isSet: isSet) }
    }
    public func completeTask(identifier: String, success: Bool) {
        runningTasks[identifier] = nil
        device.withEngine { $0.completeTask(for: app, identifier: identifier, success: success) }
    }
    /// An earlier run's task object (a completion block that outlived its
    /// run's expiry) completes nothing: the run it belongs to has ended.
    public func completeTask(_ task: BGTask, success: Bool) {
        guard runningTasks[task.identifier] === task else {
            device.withEngine {
                $0.log(app, "BGTaskScheduler: setTaskCompleted on a \(task.identifier) task whose run has already ended; ignored")
            }
            return
        }
        completeTask(identifier: task.identifier, success: success)
    }
    /// SPEC §13: the block runs on the background queue (`false`), and again
    /// with `true` as the time runs out; with no assertion to be had, once,
    /// with `true`, on the background queue.
    public func performExpiringActivity(reason: String, block: @escaping (Bool) -> Void) {
        guard let id = device.withEngine({ $0.performExpiringActivity(for: app, reason: reason) }) else {
            enqueue(after: 0, on: .background) { block(true); return true }
            return
        }
        // Blocks of activities already over are forgotten (the ids still open are few).
        let open = Set(device.withEngine { $0.openExpiringActivities(of: app) }.map(\.id))
        activityBlocks = activityBlocks.filter { open.contains($0.key) }
        activityBlocks[id] = block
    }
    public func setMinimumBackgroundFetchInterval(seconds: Double?) {
        device.withEngine { $0.setMinimumBackgroundFetchInterval(for: app, seconds.map { Time.seconds($0) }) }
    }
    public func completeFetch(_ result: BackgroundFetchResult) {
        device.withEngine { $0.completeFetch(for: app, result: result) }
    }

    // MARK: Memory and the responsible-background rules (SPEC §10)

    public func allocate(bytes: Int64) { device.withEngine { $0.allocate(for: app, bytes: bytes) } }
    public func useGPU() { device.withEngine { $0.useGPU(for: app) } }

    // MARK: Data protection (SPEC §13)

    public func writeFile(path: String, data: Data, protection: FileProtection) -> FileAccess {
        let access = device.withEngine { $0.writeFile(for: app, path: path, protection: protection, bytes: Int64(data.count)) }
        if access == .ok { device.fileContents[app, default: [:]][path] = data }
        return access
    }

    public func readFile(path: String) -> (FileAccess, Data?) {
        let access = device.withEngine { $0.readFile(for: app, path: path) }
        return (access, access == .ok ? device.fileContents[app]?[path] : nil)
    }

    public var isProtectedDataAvailable: Bool { device.withEngine { $0.isProtectedDataAvailable } }
    public func holdLock(_ name: String) { device.withEngine { $0.holdLock(for: app, name) } }
    public func releaseLock(_ name: String) { device.withEngine { $0.releaseLock(for: app, name) } }
    public func openSocket(_ socket: NetworkSocket) {
        sockets[socket.name] = socket
        device.withEngine { $0.openSocket(for: app, name: socket.name, kind: socket.kind) }
    }
    public func closeSocket(_ socket: NetworkSocket) {
        sockets[socket.name] = nil
        device.withEngine { $0.closeSocket(for: app, name: socket.name) }
    }
    public var isSensitiveContentVisible: Bool {
        get { device.withEngine { $0.isSensitiveContentVisible(app) } }
        set { device.withEngine { $0.setSensitiveContentVisible(for: app, newValue) } }
    }
    public func requestSnapshotRefresh() { device.withEngine { $0.refreshSnapshot(for: app) } }
    public var hasUnsavedChanges: Bool {
        get { device.withEngine { $0.hasUnsavedChanges(app) } }
        set { device.withEngine { $0.setUnsavedChanges(for: app, newValue) } }
    }

    /// Tells the app's socket objects which ones the system closed.
    func deliverClosedSockets() {
        for closed in device.withEngine({ $0.takeClosedSockets(of: app) }) {
            sockets.removeValue(forKey: closed.name)?.systemClosed(reason: closed.reason)
        }
    }
    // MARK: Long-running services (SPEC §4)

    public func startAudio(seconds: Double?, category: AudioCategory, mixesWithOthers: Bool) -> Bool {
        device.withEngine {
            $0.startAudio(for: app, duration: seconds.map { Time.seconds(clamping: $0) }, category: category,
                          mixesWithOthers: mixesWithOthers)
        }
    }
    public func stopAudio() { device.withEngine { $0.stopAudio(for: app) } }
    public var isPlayingAudio: Bool { device.withEngine { $0.isPlayingAudio(app) } }
    public func startLocation(_ service: LocationService) { device.withEngine { $0.startLocation(for: app, service) } }
    public func stopLocation(_ service: LocationService) { device.withEngine { $0.stopLocation(for: app, service) } }
    public func setAllowsBackgroundLocationUpdates(_ allowed: Bool) {
        device.withEngine { $0.setAllowsBackgroundLocationUpdates(for: app, allowed) }
    }
    /// A radius that is not a finite number fails as iOS fails it (monitoringDidFailFor,
    /// kCLErrorRegionMonitoringFailure) instead of trapping in the conversion; a huge
    /// one is the Earth's circumference at most.
    public func startMonitoringRegion(identifier: String, radius: Double) {
        guard radius.isFinite else {
            device.withEngine { $0.log(app, "Region monitoring failed for '\(identifier)' "
                                      + "(kCLErrorRegionMonitoringFailure): the radius \(radius) is not a distance") }
            return
        }
        let metres = Int64(min(max(radius, 0), 40_000_000).rounded())
        device.withEngine { $0.startMonitoringRegion(for: app, identifier: identifier, radius: metres) }
    }
    public func stopMonitoringRegion(identifier: String) {
        device.withEngine { $0.stopMonitoringRegion(for: app, identifier: identifier) }
    }
    public var devicePosition: Double { Double(device.withEngine { $0.devicePosition }) }
    public func openAccessorySession(_ transport: AccessoryTransport, restores: Bool) {
        device.withEngine { $0.openAccessorySession(for: app, transport, restores: restores) }
    }
    public func closeAccessorySession(_ transport: AccessoryTransport) {
        device.withEngine { $0.closeAccessorySession(for: app, transport) }
    }

    // MARK: Background transfers

    public func attach(_ session: URLSession) {
        let identifier = session.configuration.identifier ?? ""
        if device.withEngine({ $0.createBackgroundSession(for: app, session.configuration.systemConfiguration) }) {
            urlSessions[identifier] = session
        }
    }
    public func startTransfer(session: String, kind: TransferKind, bytes: Int64, earliestBegin: Date?) -> Int32? {
        let begin = earliestBegin.map { device.now + Time.seconds(clamping: max(0, $0.timeIntervalSince(now))) }
        return device.withEngine {
            $0.startTransfer(for: app, session: session, TransferTaskSpec(kind: kind, bytes: bytes, earliestBegin: begin))
        }
    }
    public func cancelTransfer(_ task: Int32) { device.withEngine { $0.cancelTransfer(for: app, task: task) } }
    public func completeBackgroundSessionEvents(identifier: String) {
        device.withEngine { $0.completeBackgroundSessionEvents(for: app, session: identifier) }
    }
    public func pendingTransfers(session: String) -> [(task: Int32, kind: TransferKind, bytes: Int64, remaining: Int64)] {
        device.withEngine { $0.pendingTransfers(for: app, session: session) }
    }

    // MARK: Pushes and VoIP

    public func completeRemoteNotification(number: UInt32, result: BackgroundFetchResult) {
        device.withEngine { $0.completeRemoteNotification(for: app, number: number, result: result) }
    }
    public func setVoIPPushHandler(_ handler: ((@escaping () -> Void) -> Void)?) { voipPushHandler = handler }
    public func setVoIPSocketHandler(_ handler: (() -> Void)?) { voipSocketHandler = handler }
    public func reportNewIncomingCall() { device.withEngine { $0.reportIncomingCall(for: app) } }
    public func setKeepAliveTimeout(seconds: Double, handler: @escaping () -> Void) -> Bool {
        let ok = device.withEngine { $0.setKeepAliveTimeout(for: app, Time.seconds(clamping: seconds)) }
        if ok { keepAliveHandler = handler }
        return ok
    }
    public func clearKeepAliveTimeout() {
        keepAliveHandler = nil
        device.withEngine { $0.clearKeepAliveTimeout(for: app) }
    }

    /// The BGTask object for a task the system hands over: a new one for each
    /// run (`handingOver`), the run's own for its expiration.
    func task(for id: TextID, handingOver: Bool = false) -> BGTask {
        let name = device.withEngine { $0.text(id) }
        if !handingOver, let existing = runningTasks[name] { return existing }
        let task: BGTask
        switch device.withEngine({ $0.runningTaskKind(for: app, identifier: name) }) {
        case .processing: task = BGProcessingTask(identifier: name, connection: self)
        case .continuedProcessing: task = BGContinuedProcessingTask(identifier: name, connection: self)
        default: task = BGAppRefreshTask(identifier: name, connection: self)
        }
        runningTasks[name] = task
        return task
    }
}

/// The program of a process whose code is still being created.
final class LaunchingApp: HostedApp {
    func handle(_ callback: Callback, process: AppRuntime) -> Bool { true }
}

/// Runs an `ApplicationDelegate` as iOS would.
final class DelegateApp: HostedApp {
    let delegate: ApplicationDelegate
    init(_ delegate: ApplicationDelegate) { self.delegate = delegate }

    func handle(_ callback: Callback, process: AppRuntime) -> Bool {
        let application = process.application
        switch callback {
        case let .didFinishLaunching(cause):
            _ = delegate.application(application, didFinishLaunchingWithOptions: cause == .user ? nil
                                        : LaunchOptions(cause: cause, localNotification: process.launchNotification))
        case .didBecomeActive: delegate.applicationDidBecomeActive(application)
        case .willResignActive: delegate.applicationWillResignActive(application)
        case .didEnterBackground: delegate.applicationDidEnterBackground(application)
        case .willEnterForeground: delegate.applicationWillEnterForeground(application)
        case .willTerminate: delegate.applicationWillTerminate(application)
        case let .backgroundTaskExpired(id): return process.runExpirationHandler(id)
        case let .localNotification(id):
            let n = process.notification(id)
            application.present(notification: n.name, content: n.content)
        case let .notificationResponse(id):
            let n = process.notification(id)
            application.open(notification: n.name, content: n.content)
        case let .bgTask(id):
            let task = process.task(for: id, handingOver: true)
            // A continued-processing task runs the handler registered for its wildcard form.
            let registered = process.device.withEngine { $0.launchHandlerIdentifier(for: process.app, identifier: task.identifier) }
            process.taskHandlers[registered]?(task)
        case let .bgTaskExpired(id):
            process.task(for: id).expirationHandler?()
        case .performFetch:
            delegate.application(application, performFetchWithCompletionHandler: { [weak process] result in
                process?.completeFetch(result)
            })
        case .didReceiveMemoryWarning: delegate.applicationDidReceiveMemoryWarning(application)
        case .socketsClosed: process.deliverClosedSockets()
        case .didUpdateLocations, .didEnterRegion, .didExitRegion, .accessoryData, .accessoryDidDisconnect,
             .audioInterruptionBegan:
            application.deliverServiceEvent(callback, regionName: { id in process.device.withEngine { $0.text(id) } })
        case let .handleEventsForBackgroundURLSession(id):
            let identifier = process.device.withEngine { $0.text(id) }
            delegate.application(application, handleEventsForBackgroundURLSession: identifier,
                                 completionHandler: { [weak process] in
                process?.completeBackgroundSessionEvents(identifier: identifier)
            })
        case let .urlSessionTaskDidComplete(id, task, kind, result):
            let identifier = process.device.withEngine { $0.text(id) }
            process.urlSessions[identifier]?.deliver(task: Int(task), kind: kind, result: result)
        case let .urlSessionDidFinishEvents(id):
            let identifier = process.device.withEngine { $0.text(id) }
            if let session = process.urlSessions[identifier] {
                session.delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session)
            }
        case let .remoteNotification(number, type):
            let aps: [String: Any] = type == .alert ? ["alert": "", "sound": "default"] : ["content-available": 1]
            delegate.application(application, didReceiveRemoteNotification: ["aps": aps],
                                 fetchCompletionHandler: { [weak process] result in
                process?.completeRemoteNotification(number: number, result: result)
            })
        case .voipPush:
            process.voipPushHandler?({})
        case .voipSocket:
            process.voipSocketHandler?()
        case .keepAlive:
            process.keepAliveHandler?()
        case let .expiringActivity(id, expired):
            let block = expired ? process.activityBlocks.removeValue(forKey: id) : process.activityBlocks[id]
            block?(expired)
        }
        return true
    }
}
