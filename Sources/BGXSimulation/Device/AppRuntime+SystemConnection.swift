import BGXApp
import BGXCore
import Foundation

/// The app's connection to the system: each call goes to the engine for this process.
extension AppRuntime {
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

    // MARK: UNUserNotificationCenter (rules §9)

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
    public func requestNotificationAuthorization(options: NotificationPresentation) -> Bool {
        device.withEngine { $0.requestNotificationAuthorization(for: app, options: options) }
    }
    public var notificationAuthorization: NotificationAuthorization {
        device.withEngine { $0.notificationAuthorization(of: app) }
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
    public func updateContinuedTitle(identifier: String, title: String, subtitle: String) {
        device.withEngine { $0.updateContinuedTitle(for: app, identifier: identifier, title: title, subtitle: subtitle) }
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
    /// An app's unified-log line goes into the trace at its thread's instant.
    public func appLog(_ line: String) {
        device.withEngine { $0.log(app, line) }
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
    /// rules §13: the block runs on the background queue (`false`), and again
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

    // MARK: Memory and the responsible-background rules (rules §10)

    public func allocate(bytes: Int64) { device.withEngine { $0.allocate(for: app, bytes: bytes) } }
    public func useGPU() { device.withEngine { $0.useGPU(for: app) } }

    // MARK: Data protection (rules §13)

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
    // MARK: Long-running services (rules §4)

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
    public func keepRestoreIdentifier(_ identifier: String, peripheral: Bool, kept: Bool) {
        device.bluetoothRestoration[app, default: BluetoothRestoration()].keep(identifier, peripheral: peripheral, kept)
    }
    public func restoreIdentifiers(peripheral: Bool) -> [String] {
        device.bluetoothRestoration[app]?.identifiers(peripheral: peripheral) ?? []
    }
    public func setRestorationState(_ state: Any?, for identifier: String, peripheral: Bool) {
        device.bluetoothRestoration[app, default: BluetoothRestoration()].states[peripheral ? 1 : 0][identifier] = state
    }
    public func restorationState(for identifier: String, peripheral: Bool) -> Any? {
        device.bluetoothRestoration[app]?.states[peripheral ? 1 : 0][identifier] ?? nil
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
    public func nextTaskIdentifier(session: String) -> Int {
        device.transferBook[app, default: TransferBook()].nextIdentifier(session: session)
    }
    public func rememberTransfer(_ task: Int32, taskIdentifier: Int, description: String?, bytes: Int64) {
        device.transferBook[app, default: TransferBook()].tasks[task] = (taskIdentifier, description, bytes)
    }
    public func rememberedTransfer(_ task: Int32) -> (taskIdentifier: Int, description: String?, bytes: Int64)? {
        device.transferBook[app]?.tasks[task]
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
