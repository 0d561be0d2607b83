import BGXCore
import Foundation

/// How app code reaches the system. On the simulated device it is an
/// in-process object; on the live host it will be a socket. App code never
/// sees which.
public protocol SystemConnection: AnyObject {
    /// Virtual wall-clock time (the scenario's start plus virtual time).
    var now: Date { get }
    var processState: ProcessState { get }
    var launchCause: LaunchCause? { get }
    var backgroundTimeRemaining: Double { get }
    func beginBackgroundTask(name: String?, expirationHandler: (() -> Void)?) -> Int
    func endBackgroundTask(_ id: Int)
    /// Runs `body` on the main queue `delay` seconds from now (virtual time).
    func asyncAfter(seconds delay: Double, _ body: @escaping () -> Void)
    /// The main thread is busy with CPU work for this long (virtual time).
    func work(seconds: Double)
    func exit()

    // UNUserNotificationCenter (rules §9). A trigger iOS raises on terminates the app.
    func addNotification(identifier: String, content: NotificationContent, trigger: NotificationTrigger)
    func removePendingNotifications(identifiers: [String])
    func removeAllPendingNotifications()
    /// Fire moments as delays from now.
    func pendingNotifications() -> [PendingNotification]
    /// Delivery moments as delays from now (negative: in the past).
    func deliveredNotifications() -> [DeliveredNotification]
    /// nil removes all.
    func removeDeliveredNotifications(identifiers: [String]?)
    /// The app in front answered `willPresent` with these options.
    func presentNotification(identifier: String, options: NotificationPresentation)
    /// The notification whose tap launched this process, if one did.
    var launchNotification: String? { get }
    var badgeNumber: Int { get set }
    /// `requestAuthorization(options:)`: the first request asks the person; whether it is granted.
    func requestNotificationAuthorization(options: NotificationPresentation) -> Bool
    /// What the person allows the app's notifications to show.
    var notificationAuthorization: NotificationAuthorization { get }
    /// Seconds from now until a trigger added now would first fire; nil if never.
    func firstFiring(of trigger: NotificationTrigger) -> TimeInterval?

    // BGTaskScheduler (rules §5)
    /// The launch handler runs on `queue` (rules §5: `using: nil` is a background serial queue).
    func registerTask(identifier: String, queue: ExecutionQueue, launchHandler: @escaping (BGTask) -> Void) -> Bool
    func submitTask(_ request: TaskRequestSpec) throws
    func cancelTask(identifier: String)
    func cancelAllTasks()
    func pendingTaskRequests() -> [TaskRequestSpec]
    func setTaskExpirationHandler(identifier: String, isSet: Bool)
    func completeTask(identifier: String, success: Bool)
    /// `task.setTaskCompleted(success:)`: the object is one run's; a host that
    /// hands out a new object per run ignores an earlier run's call.
    func completeTask(_ task: BGTask, success: Bool)
    // Continued processing (rules §13, iOS 26)
    func submitContinuedProcessingTask(_ request: ContinuedProcessingRequest) throws
    func reportContinuedProgress(identifier: String, completed: Int64, total: Int64)
    /// `BGContinuedProcessingTask.updateTitle(_:subtitle:)`.
    func updateContinuedTitle(identifier: String, title: String, subtitle: String)
    /// The kind of a task handed to the app (which `BGTask` subclass it gets).
    func runningTaskKind(identifier: String) -> BGTaskKind?
    /// `BGTaskScheduler.supportedResources` contains `.gpu`.
    var supportsBackgroundGPU: Bool { get }

    // Background fetch (rules §6); nil interval is "never"
    func setMinimumBackgroundFetchInterval(seconds: Double?)
    func completeFetch(_ result: BackgroundFetchResult)

    // ProcessInfo (rules §13)
    func performExpiringActivity(reason: String, block: @escaping (Bool) -> Void)

    /// A line app code wrote to the unified log (os's `Logger`), as it is stored on the device.
    func appLog(_ line: String)

    // Memory and the responsible-background rules (rules §10)
    /// Allocates (negative: frees) resident memory.
    func allocate(bytes: Int64)
    func useGPU()
    func holdLock(_ name: String)
    func releaseLock(_ name: String)
    func openSocket(_ socket: NetworkSocket)
    func closeSocket(_ socket: NetworkSocket)
    var isSensitiveContentVisible: Bool { get set }
    func requestSnapshotRefresh()
    var hasUnsavedChanges: Bool { get set }
    // Long-running services (rules §4)
    /// Starts audible audio for `seconds` (nil: until stopped); false if iOS refuses.
    func startAudio(seconds: Double?, category: AudioCategory, mixesWithOthers: Bool) -> Bool
    func stopAudio()
    var isPlayingAudio: Bool { get }
    func startLocation(_ service: LocationService)
    func stopLocation(_ service: LocationService)
    func setAllowsBackgroundLocationUpdates(_ allowed: Bool)
    func startMonitoringRegion(identifier: String, radius: Double)
    func stopMonitoringRegion(identifier: String)
    /// Metres along the device's route (see `Location`).
    var devicePosition: Double { get }
    func openAccessorySession(_ transport: AccessoryTransport, restores: Bool)
    func closeAccessorySession(_ transport: AccessoryTransport)
    /// Core Bluetooth state restoration: the restore identifiers of the
    /// managers whose connection (or advertising) the system keeps for the
    /// app's next process, as centrals or as peripherals.
    func keepRestoreIdentifier(_ identifier: String, peripheral: Bool, kept: Bool)
    func restoreIdentifiers(peripheral: Bool) -> [String]
    /// What the system keeps with a restore identifier for the next process
    /// (a connected peripheral and its subscriptions, published services).
    func setRestorationState(_ state: Any?, for identifier: String, peripheral: Bool)
    func restorationState(for identifier: String, peripheral: Bool) -> Any?
    // Background transfers (rules §8)
    /// A session object was created: the system reconnects it by identifier.
    func attach(_ session: URLSession)
    /// Returns the system's task identifier, or nil when the system refuses.
    func startTransfer(session: String, kind: TransferKind, bytes: Int64, earliestBegin: Date?) -> Int32?
    /// The same, with the request (the live host moves its real bytes).
    func startTransfer(session: String, kind: TransferKind, bytes: Int64, earliestBegin: Date?,
                       request: TransferRequest?) -> Int32?
    /// Where a finished download's real bytes are (nil: the host moved none).
    func downloadedFile(task: Int32) -> URL?
    func cancelTransfer(_ task: Int32)
    func completeBackgroundSessionEvents(identifier: String)
    func pendingTransfers(session: String) -> [(task: Int32, kind: TransferKind, bytes: Int64, remaining: Int64)]
    /// What the system keeps of a task for the app's next process, as
    /// nsurlsessiond does: its session-wide `taskIdentifier`, handed out when
    /// the app creates the task, its `taskDescription` and its size.
    func nextTaskIdentifier(session: String) -> Int
    func rememberTransfer(_ task: Int32, taskIdentifier: Int, description: String?, bytes: Int64)
    func rememberedTransfer(_ task: Int32) -> (taskIdentifier: Int, description: String?, bytes: Int64)?
    // Pushes and VoIP (rules §7, §4)
    /// A remote notification's `fetchCompletionHandler`, for push `number`.
    func completeRemoteNotification(number: UInt32, result: BackgroundFetchResult)
    /// Where VoIP pushes go (a `PKPushRegistry` wanting `.voIP`); nil: nowhere.
    func setVoIPPushHandler(_ handler: ((_ completion: @escaping () -> Void) -> Void)?)
    /// While the VoIP push handler runs: the push's payload, as sent.
    var incomingPushPayload: [AnyHashable: Any]? { get }
    /// Where data on the VoIP socket goes (an open `VoIPSocketStream`); nil: nowhere.
    func setVoIPSocketHandler(_ handler: (() -> Void)?)
    /// CallKit's `reportNewIncomingCall`.
    func reportNewIncomingCall()
    func setKeepAliveTimeout(seconds: Double, handler: @escaping () -> Void) -> Bool
    func clearKeepAliveTimeout()
    // Data protection (rules §13): files on the device's disk
    func writeFile(path: String, data: Data, protection: FileProtection) -> FileAccess
    func readFile(path: String) -> (FileAccess, Data?)
    var isProtectedDataAvailable: Bool { get }
}

/// The process the code running now belongs to. The device sets it whenever
/// it calls into an app, so `Application.shared` resolves to that app.
public enum ProcessContext {
    @TaskLocal public static var current: Application?
    /// A real process's one app (the live host sets it): code on threads no
    /// device called into — GCD's global queues — belongs to it too.
    public static var processApplication: Application?
    /// The app whose code is running now, on any thread.
    public static var running: Application? { current ?? processApplication }
}

/// What a host that moves real bytes needs of a transfer: the request as
/// the app made it and, for an upload, the file whose bytes are the body.
public struct TransferRequest: Sendable, Equatable {
    public var url: String
    public var method: String
    public var headers: [String: String]
    public var file: String?

    public init(url: String, method: String, headers: [String: String], file: String?) {
        self.url = url
        self.method = method
        self.headers = headers
        self.file = file
    }
}

extension SystemConnection {
    /// A host that moves no real bytes (the simulated device) needs only the size.
    public func startTransfer(session: String, kind: TransferKind, bytes: Int64, earliestBegin: Date?,
                              request: TransferRequest?) -> Int32? {
        startTransfer(session: session, kind: kind, bytes: bytes, earliestBegin: earliestBegin)
    }
    /// The file a finished download's bytes are in, if the host moved real
    /// bytes (nil: the simulated device, which makes a file of the size).
    public func downloadedFile(task: Int32) -> URL? { nil }

    /// A host whose pushes carry no payload.
    public var incomingPushPayload: [AnyHashable: Any]? { nil }

    /// A host that does not model the person's answer (the live host)
    /// grants what is asked, as a person who taps Allow does.
    public func requestNotificationAuthorization(options: NotificationPresentation) -> Bool { true }
    public var notificationAuthorization: NotificationAuthorization {
        NotificationAuthorization(status: .authorized, allowed: [.alert, .sound, .badge])
    }

    /// A host without a trace (the live host) writes an app's log lines to
    /// the app process's standard error, where a developer reads them.
    public func appLog(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A host that does not track task objects completes by identifier.
    public func completeTask(_ task: BGTask, success: Bool) {
        completeTask(identifier: task.identifier, success: success)
    }
}
