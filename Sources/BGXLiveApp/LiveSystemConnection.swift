import BGXApp
import BGXCore
import BGXLive
import Foundation
import Glibc

/// BGXApp's connection to the system over the live protocol: the same app
/// code that runs on the simulated device calls these, and each becomes a
/// call to the daemon for this process. Time is the real clock, work is real
/// CPU, memory is really allocated. What the daemon refuses ("not yet
/// supported: …") is written to the app's log and kept in `refusals`; the
/// app gets what iOS gives when it says no (a nil, a false, an `.invalid`).
/// App code may call from any thread (GCD's queues): the client writes each
/// frame whole, and the bookkeeping here is under one lock, never held
/// across a call to the daemon or into app code.
public final class LiveSystemConnection: SystemConnection {
    public let client: LiveClient
    let lock = NSLock()
    /// Every refusal the daemon sent this process, as `call: reason`.
    public var refusals: [String] { locked { refused } }
    var refused: [String] = []
    var expirationHandlers: [Int: () -> Void] = [:]
    var taskHandlers: [String: (BGTask) -> Void] = [:]
    var runningTasks: [String: BGTask] = [:]
    /// Expiring activities' blocks, by the daemon's id, until the expired call.
    let activities = NSLock()
    var activityBlocks: [Int: (Bool) -> Void] = [:]
    /// Memory the app asked for with `allocate(bytes:)`, really held (and touched).
    var held: [(pointer: UnsafeMutableRawPointer, bytes: Int)] = []
    var voipPushHandler: ((@escaping () -> Void) -> Void)?
    var voipSocketHandler: (() -> Void)?
    var keepAliveHandler: (() -> Void)?
    var taskIdentifiers: [String: Int] = [:]
    var rememberedTransfers: [Int32: (taskIdentifier: Int, description: String?, bytes: Int64)] = [:]
    var cause: LaunchCause?
    var notification: String?
    public var launchCause: LaunchCause? {
        get { locked { cause } }
        set { locked { cause = newValue } }
    }
    public var launchNotification: String? {
        get { locked { notification } }
        set { locked { notification = newValue } }
    }

    public init(client: LiveClient) {
        self.client = client
        let cause = ProcessInfo.processInfo.environment["BGX_LAUNCH_CAUSE"]
        self.cause = LaunchCause.allCases.first { "\($0)" == cause }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
    func takeExpirationHandler(_ id: Int) -> (() -> Void)? { locked { expirationHandlers.removeValue(forKey: id) } }
    func taskHandler(_ identifier: String) -> ((BGTask) -> Void)? { locked { taskHandlers[identifier] } }
    func started(_ task: BGTask) { locked { runningTasks[task.identifier] = task } }
    func runningTask(_ identifier: String) -> BGTask? { locked { runningTasks[identifier] } }

    /// A call; a refusal is logged and recorded. nil when the connection failed.
    @discardableResult
    func ask(_ name: String, _ args: [String: String] = [:]) -> LiveMessage? {
        do {
            let reply = try client.call(name, args)
            if reply.ok != true {
                let line = "\(name): \(reply.text ?? "refused")"
                locked { refused.append(line) }
                FileHandle.standardError.write(Data("bgx live: \(line)\n".utf8))
            }
            return reply
        } catch {
            FileHandle.standardError.write(Data("bgx live: \(name): \(error)\n".utf8))
            return nil
        }
    }

    func succeeded(_ name: String, _ args: [String: String] = [:]) -> Bool { ask(name, args)?.ok == true }

    // MARK: Time, work, the process

    public var now: Date { Date() }
    public var processState: ProcessState {
        let state = ask("processState")?.args?["state"]
        return ProcessState.allCases.first { "\($0)" == state } ?? .active
    }
    public var backgroundTimeRemaining: Double {
        ask("backgroundTimeRemaining")?.args?["seconds"].flatMap(Double.init) ?? .greatestFiniteMagnitude
    }
    public func beginBackgroundTask(name: String?, expirationHandler: (() -> Void)?) -> Int {
        let id = ask("beginBackgroundTask", name.map { ["name": $0] } ?? [:])?.args?["id"].flatMap(Int.init)
            ?? Engine.invalidBackgroundTask
        if id != Engine.invalidBackgroundTask, let expirationHandler { locked { expirationHandlers[id] = expirationHandler } }
        return id
    }
    public func endBackgroundTask(_ id: Int) {
        _ = takeExpirationHandler(id)
        ask("endBackgroundTask", ["id": "\(id)"])
    }
    /// GCD's main queue in real time: the main run loop runs it between callbacks.
    public func asyncAfter(seconds delay: Double, _ body: @escaping () -> Void) {
        DispatchQueue.main.asyncAfter(deadline: .now() + max(0, min(delay, 1e9)), execute: body)
    }
    /// Real work: the main thread spins for this long, and the CPU time is the process's own.
    public func work(seconds: Double) {
        let end = MonotonicClock.now() + Int64(max(0, min(seconds, 1e6)) * 1e9)
        var x: UInt64 = 1
        while MonotonicClock.now() < end {
            for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
        }
        if x == 0 { print("") }
    }
    public func exit() { Glibc.exit(0) }

    // MARK: UNUserNotificationCenter

    public func addNotification(identifier: String, content: NotificationContent, trigger: NotificationTrigger) {
        var args = ["identifier": identifier, "title": content.title, "body": content.body]
        if let badge = content.badge { args["badge"] = "\(badge)" }
        switch content.sound {
        case .default?: args["sound"] = "default"
        case let .named(name)?: args["sound"] = name
        case nil: break
        }
        switch trigger {
        case .immediate: args["trigger"] = "immediate"
        case let .timeInterval(interval, repeats):
            args["trigger"] = "interval"
            args["seconds"] = "\(Time.toSeconds(interval))"
            args["repeats"] = "\(repeats)"
        case .calendar: args["trigger"] = "calendar"
        }
        ask("addNotification", args)
    }
    public func removePendingNotifications(identifiers: [String]) {
        ask("removePendingNotifications", ["identifiers": identifiers.joined(separator: "\n")])
    }
    public func removeAllPendingNotifications() { ask("removeAllPendingNotifications") }
    public func pendingNotifications() -> [PendingNotification] {
        ask("pendingNotifications")
        return []
    }
    public func deliveredNotifications() -> [DeliveredNotification] {
        ask("deliveredNotifications")
        return []
    }
    public func removeDeliveredNotifications(identifiers: [String]?) {
        ask("removeDeliveredNotifications", identifiers.map { ["identifiers": $0.joined(separator: "\n")] } ?? [:])
    }
    public func presentNotification(identifier: String, options: NotificationPresentation) {
        ask("presentNotification", ["identifier": identifier, "options": "\(options.rawValue)"])
    }
    public var badgeNumber: Int {
        get { ask("badge")?.args?["badge"].flatMap(Int.init) ?? 0 }
        set { ask("badge", ["value": "\(newValue)"]) }
    }
    public func firstFiring(of trigger: NotificationTrigger) -> TimeInterval? {
        switch trigger {
        case .immediate: 0
        case let .timeInterval(interval, _): Time.toSeconds(interval)
        case .calendar: nil
        }
    }

    // MARK: BGTaskScheduler and fetch

    public func registerTask(identifier: String, queue: ExecutionQueue, launchHandler: @escaping (BGTask) -> Void) -> Bool {
        let ok = succeeded("registerTask", ["identifier": identifier, "queue": queue == .main ? "main" : "background"])
        if ok { locked { taskHandlers[identifier] = launchHandler } }
        return ok
    }
    /// `earliestBegin` comes as a delay from now.
    public func submitTask(_ request: TaskRequestSpec) throws {
        var args = ["identifier": request.identifier, "type": request.kind == .processing ? "processing" : "appRefresh",
                    "requiresNetworkConnectivity": "\(request.requiresNetworkConnectivity)",
                    "requiresExternalPower": "\(request.requiresExternalPower)"]
        if let delay = request.earliestBegin { args["earliestBegin"] = "\(Time.toSeconds(delay))" }
        let reply = try client.call("submitTask", args)
        guard reply.ok == true else { throw LiveError(reply.text ?? "submit refused") }
    }
    public func cancelTask(identifier: String) { ask("cancelTask", ["identifier": identifier]) }
    public func cancelAllTasks() { ask("cancelAllTasks") }
    public func pendingTaskRequests() -> [TaskRequestSpec] {
        ask("pendingTaskRequests")
        return []
    }
    public func setTaskExpirationHandler(identifier: String, isSet: Bool) {
        ask("setTaskExpirationHandler", ["identifier": identifier, "isSet": "\(isSet)"])
    }
    public func completeTask(identifier: String, success: Bool) {
        locked { runningTasks[identifier] = nil }
        ask("setTaskCompleted", ["identifier": identifier, "success": "\(success)"])
    }
    /// An earlier run's task object completes nothing: its run has ended.
    public func completeTask(_ task: BGTask, success: Bool) {
        guard runningTask(task.identifier) === task else { return }
        completeTask(identifier: task.identifier, success: success)
    }
    public func submitContinuedProcessingTask(_ request: ContinuedProcessingRequest) throws {
        let reply = try client.call("submitContinuedProcessingTask")
        if reply.ok != true { throw LiveError(reply.text ?? "refused") }
    }
    public func reportContinuedProgress(identifier: String, completed: Int64, total: Int64) {
        ask("reportContinuedProgress", ["identifier": identifier, "completed": "\(completed)", "total": "\(total)"])
    }
    public func updateContinuedTitle(identifier: String, title: String, subtitle: String) {
        ask("updateContinuedTitle", ["identifier": identifier, "title": title, "subtitle": subtitle])
    }
    public func runningTaskKind(identifier: String) -> BGTaskKind? {
        let kind = ask("runningTaskKind", ["identifier": identifier])?.args?["kind"]
        return BGTaskKind.allCases.first { "\($0)" == kind }
    }
    public var supportsBackgroundGPU: Bool { false }
    public func setMinimumBackgroundFetchInterval(seconds: Double?) {
        ask("setMinimumBackgroundFetchInterval", seconds.map { ["seconds": "\($0)"] } ?? [:])
    }
    public func completeFetch(_ result: BackgroundFetchResult) { ask("completeFetch", ["result": "\(result)"]) }
    /// The daemon takes a background assertion and calls the block back on
    /// the app's background queue with `false` (the callback
    /// `performExpiringActivity`); as the time runs out, again with `true`,
    /// on the main thread. No assertion to be had: it runs once, with `true`,
    /// on a global queue, as iOS runs it.
    public func performExpiringActivity(reason: String, block: @escaping (Bool) -> Void) {
        activities.lock()
        defer { activities.unlock() }
        guard let id = ask("performExpiringActivity", ["reason": reason])?.args?["id"].flatMap(Int.init) else {
            DispatchQueue.global().async { block(true) }
            return
        }
        activityBlocks[id] = block
    }
    /// The block of activity `id`. Its callback can reach the reader before
    /// the call that began it has stored the block: the lock, held across
    /// that call, makes the callback wait for it.
    func activityBlock(_ id: Int) -> ((Bool) -> Void)? {
        activities.lock()
        defer { activities.unlock() }
        return activityBlocks[id]
    }
    func endActivity(_ id: Int) {
        activities.lock()
        activityBlocks[id] = nil
        activities.unlock()
    }

    // MARK: Memory and the responsible-background rules

    /// Really holds (and touches) the memory, so the daemon sees it resident.
    public func allocate(bytes: Int64) {
        if bytes > 0, let p = malloc(Int(bytes)) {
            memset(p, 1, Int(bytes))
            locked { held.append((p, Int(bytes))) }
        } else if bytes < 0 {
            var left = Int(-bytes)
            while left > 0, let last = locked({ held.popLast() }) {
                free(last.pointer)
                left -= last.bytes
            }
        }
    }
    public func useGPU() { ask("useGPU") }
    public func holdLock(_ name: String) { ask("holdLock", ["name": name]) }
    public func releaseLock(_ name: String) { ask("releaseLock", ["name": name]) }
    public func openSocket(_ socket: NetworkSocket) { ask("openSocket", ["name": socket.name]) }
    public func closeSocket(_ socket: NetworkSocket) { ask("closeSocket", ["name": socket.name]) }
    public var isSensitiveContentVisible: Bool {
        get { false }
        set { ask("setSensitiveContentVisible", ["visible": "\(newValue)"]) }
    }
    public func requestSnapshotRefresh() { ask("requestSnapshotRefresh") }
    public var hasUnsavedChanges: Bool {
        get { false }
        set { ask("setUnsavedChanges", ["unsaved": "\(newValue)"]) }
    }

    // MARK: Long-running services

    public func startAudio(seconds: Double?, category: AudioCategory, mixesWithOthers: Bool) -> Bool {
        var args = ["category": category.rawValue, "mixesWithOthers": "\(mixesWithOthers)"]
        if let seconds { args["seconds"] = "\(seconds)" }
        return succeeded("startAudio", args)
    }
    public func stopAudio() { ask("stopAudio") }
    public var isPlayingAudio: Bool { ask("isPlayingAudio")?.args?["playing"] == "true" }
    public func startLocation(_ service: LocationService) { ask("startLocation", ["service": service.rawValue]) }
    public func stopLocation(_ service: LocationService) { ask("stopLocation", ["service": service.rawValue]) }
    public func setAllowsBackgroundLocationUpdates(_ allowed: Bool) {
        ask("setAllowsBackgroundLocationUpdates", ["allowed": "\(allowed)"])
    }
    public func startMonitoringRegion(identifier: String, radius: Double) {
        ask("startMonitoringRegion", ["identifier": identifier, "radius": "\(radius)"])
    }
    public func stopMonitoringRegion(identifier: String) { ask("stopMonitoringRegion", ["identifier": identifier]) }
    public var devicePosition: Double { ask("devicePosition")?.args?["metres"].flatMap(Double.init) ?? 0 }
    public func openAccessorySession(_ transport: AccessoryTransport, restores: Bool) {
        ask("openAccessorySession", ["transport": "\(transport)"])
    }
    public func closeAccessorySession(_ transport: AccessoryTransport) {
        ask("closeAccessorySession", ["transport": "\(transport)"])
    }
    /// Core Bluetooth state restoration needs the system to keep a manager's
    /// connection for the next process; the live host has no Bluetooth to keep,
    /// so nothing is restored and the app is told once.
    public func keepRestoreIdentifier(_ identifier: String, peripheral: Bool, kept: Bool) {
        let first = locked {
            guard kept, !refused.contains(Self.noBluetoothRestoration) else { return false }
            refused.append(Self.noBluetoothRestoration)
            return true
        }
        guard first else { return }
        FileHandle.standardError.write(Data("bgx live: \(Self.noBluetoothRestoration)\n".utf8))
    }
    static let noBluetoothRestoration = "keepRestoreIdentifier: not yet supported: Core Bluetooth state restoration on the live host"
    public func restoreIdentifiers(peripheral: Bool) -> [String] { [] }
    public func setRestorationState(_ state: Any?, for identifier: String, peripheral: Bool) {}
    public func restorationState(for identifier: String, peripheral: Bool) -> Any? { nil }

    // MARK: Background transfers

    /// The session objects this process made, by identifier: the daemon's
    /// transfer callbacks name the session.
    var sessions: [String: URLSession] = [:]
    /// Finished downloads' verified files, while their result is delivered.
    var downloadedFiles: [Int32: URL] = [:]

    public func attach(_ session: URLSession) {
        let c = session.configuration
        sessions[c.identifier ?? ""] = session
        ask("createBackgroundSession", [
            "identifier": c.identifier ?? "", "isDiscretionary": "\(c.isDiscretionary)",
            "sessionSendsLaunchEvents": "\(c.sessionSendsLaunchEvents)", "allowsCellularAccess": "\(c.allowsCellularAccess)",
            "timeoutIntervalForRequest": "\(c.timeoutIntervalForRequest)",
            "timeoutIntervalForResource": "\(c.timeoutIntervalForResource)",
        ])
    }
    public func startTransfer(session: String, kind: TransferKind, bytes: Int64, earliestBegin: Date?) -> Int32? {
        startTransfer(session: session, kind: kind, bytes: bytes, earliestBegin: earliestBegin, request: nil)
    }
    /// The daemon moves the request's real bytes; without a request it refuses.
    public func startTransfer(session: String, kind: TransferKind, bytes: Int64, earliestBegin: Date?,
                              request: TransferRequest?) -> Int32? {
        var args = ["session": session, "kind": "\(kind)", "bytes": "\(bytes)"]
        if let request {
            args["url"] = request.url
            args["method"] = request.method
            args["headers"] = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            if let file = request.file { args["file"] = file }
        }
        if let timeout = sessions[session]?.configuration.timeoutIntervalForRequest { args["requestTimeout"] = "\(timeout)" }
        if let earliestBegin { args["earliestBegin"] = "\(max(0, earliestBegin.timeIntervalSinceNow))" }
        return ask("startTransfer", args)?.args?["task"].flatMap(Int32.init)
    }
    public func downloadedFile(task: Int32) -> URL? { downloadedFiles[task] }
    public func cancelTransfer(_ task: Int32) { ask("cancelTransfer", ["task": "\(task)"]) }
    public func completeBackgroundSessionEvents(identifier: String) {
        ask("completeBackgroundSessionEvents", ["identifier": identifier])
    }
    public func pendingTransfers(session: String) -> [(task: Int32, kind: TransferKind, bytes: Int64, remaining: Int64)] {
        let lines = ask("pendingTransfers", ["session": session])?.args?["tasks"] ?? ""
        return lines.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 4, let task = Int32(f[0]), let bytes = Int64(f[2]), let remaining = Int64(f[3]) else { return nil }
            return (task, f[1] == "upload" ? .upload : .download, bytes, remaining)
        }
    }
    /// Task identifiers and descriptions, kept by this process only: a
    /// relaunched process sees the system's task numbers instead (not yet
    /// supported: the daemon keeping them for the next process).
    public func nextTaskIdentifier(session: String) -> Int {
        locked {
            taskIdentifiers[session, default: 0] += 1
            return taskIdentifiers[session]!
        }
    }
    public func rememberTransfer(_ task: Int32, taskIdentifier: Int, description: String?, bytes: Int64) {
        locked { rememberedTransfers[task] = (taskIdentifier, description, bytes) }
    }
    public func rememberedTransfer(_ task: Int32) -> (taskIdentifier: Int, description: String?, bytes: Int64)? {
        locked { rememberedTransfers[task] }
    }

    // MARK: Pushes and VoIP

    public func completeRemoteNotification(number: UInt32, result: BackgroundFetchResult) {
        ask("completeRemoteNotification", ["number": "\(number)", "result": "\(result)"])
    }
    public func setVoIPPushHandler(_ handler: ((@escaping () -> Void) -> Void)?) { locked { voipPushHandler = handler } }
    public func setVoIPSocketHandler(_ handler: (() -> Void)?) { locked { voipSocketHandler = handler } }
    public func reportNewIncomingCall() { ask("reportNewIncomingCall") }
    public func setKeepAliveTimeout(seconds: Double, handler: @escaping () -> Void) -> Bool {
        let ok = succeeded("setKeepAliveTimeout", ["seconds": "\(seconds)"])
        if ok { locked { keepAliveHandler = handler } }
        return ok
    }
    public func clearKeepAliveTimeout() {
        locked { keepAliveHandler = nil }
        ask("clearKeepAliveTimeout")
    }

    // MARK: Data protection

    public func writeFile(path: String, data: Data, protection: FileProtection) -> FileAccess {
        let reply = ask("writeFile", ["path": path])
        return .notPermitted(reason: reply?.text ?? "no connection to the system")
    }
    public func readFile(path: String) -> (FileAccess, Data?) {
        let reply = ask("readFile", ["path": path])
        return (.notPermitted(reason: reply?.text ?? "no connection to the system"), nil)
    }
    public var isProtectedDataAvailable: Bool { succeeded("isProtectedDataAvailable") }
}
