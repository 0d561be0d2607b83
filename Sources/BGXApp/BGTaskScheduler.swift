import BGXCore
import Foundation

/// `BGTaskScheduler` (rules §5), for the app whose code is running.
public final class BGTaskScheduler {
    /// `BGTaskSchedulerErrorCode`.
    public typealias Error = BGTaskSchedulerError

    let connection: SystemConnection
    init(connection: SystemConnection) { self.connection = connection }

    public static var shared: BGTaskScheduler { BGTaskScheduler(connection: Application.shared.connection) }

    /// Must be called before the app finishes launching. Returns false for an
    /// identifier not in `BGTaskSchedulerPermittedIdentifiers`. The handler
    /// runs on `queue`: "Pass nil to use a default background queue" [D] —
    /// a serial queue the system creates, not the main thread; `.main` runs it
    /// on the main thread; any other queue is modelled as the app's background
    /// serial queue.
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:)
    @discardableResult
    public func register(forTaskWithIdentifier identifier: String, using queue: DispatchQueue? = nil,
                         launchHandler: @escaping (BGTask) -> Void) -> Bool {
        // On Linux each `DispatchQueue.main` is a new wrapper of the one main queue: compare labels.
        let onMain = queue.map { $0.label == DispatchQueue.main.label } ?? false
        return connection.registerTask(identifier: identifier, queue: onMain ? .main : .background,
                                launchHandler: launchHandler)
    }

    /// Synchronous; throws `BGTaskScheduler.Error` (`unavailable`,
    /// `tooManyPendingTaskRequests`, `notPermitted`).
    public func submit(_ taskRequest: BGTaskRequest) throws {
        if let continued = taskRequest as? BGContinuedProcessingTaskRequest {
            try connection.submitContinuedProcessingTask(continued.request)
            return
        }
        try connection.submitTask(taskRequest.spec(now: connection.now))
    }

    /// What a continued-processing task may ask for on this device (iOS 26).
    public static var supportedResources: BGContinuedProcessingTaskRequest.Resources {
        Application.shared.connection.supportsBackgroundGPU ? [.gpu] : []
    }

    public func cancel(taskRequestWithIdentifier identifier: String) { connection.cancelTask(identifier: identifier) }
    public func cancelAllTaskRequests() { connection.cancelAllTasks() }

    public func getPendingTaskRequests(completionHandler: @escaping ([BGTaskRequest]) -> Void) {
        let now = connection.now
        completionHandler(connection.pendingTaskRequests().map { BGTaskRequest.from($0, now: now) })
    }
}

/// The SDK's `BGTaskScheduler.Error` is a bridged error whose `code` is a
/// `BGTaskScheduler.Error.Code`: apps write `error.code == .unavailable`,
/// `switch error.code`, or `BGTaskScheduler.Error.Code.notPermitted`. bgx's
/// error is its own code, so each of those reads as on iOS.
extension BGTaskSchedulerError {
    public typealias Code = BGTaskSchedulerError
    public var code: Code { self }
}

/// `BGTaskRequest`.
public class BGTaskRequest: CustomStringConvertible {
    public let identifier: String
    /// Never before this date; no guarantee after it.
    public var earliestBeginDate: Date?
    var kind: BGTaskKind { .appRefresh }

    init(identifier: String) { self.identifier = identifier }

    func spec(now: Date) -> TaskRequestSpec {
        let delay = earliestBeginDate.map { Time.seconds(max(0, $0.timeIntervalSince(now))) }
        return TaskRequestSpec(identifier: identifier, kind: kind, earliestBegin: delay)
    }

    static func from(_ spec: TaskRequestSpec, now: Date) -> BGTaskRequest {
        let request: BGTaskRequest
        if spec.kind == .processing {
            let p = BGProcessingTaskRequest(identifier: spec.identifier)
            p.requiresNetworkConnectivity = spec.requiresNetworkConnectivity
            p.requiresExternalPower = spec.requiresExternalPower
            request = p
        } else {
            request = BGAppRefreshTaskRequest(identifier: spec.identifier)
        }
        request.earliestBeginDate = spec.earliestBegin.map { now.addingTimeInterval(Time.toSeconds($0)) }
        return request
    }

    public var description: String { "<\(type(of: self)): \(identifier)>" }
}

/// `BGAppRefreshTaskRequest`: up to 30 s, shortly before predicted use.
public final class BGAppRefreshTaskRequest: BGTaskRequest {
    public override init(identifier: String) { super.init(identifier: identifier) }
}

/// `BGProcessingTaskRequest`: minutes, while the device is idle.
public final class BGProcessingTaskRequest: BGTaskRequest {
    public var requiresNetworkConnectivity = false
    public var requiresExternalPower = false
    override var kind: BGTaskKind { .processing }
    public override init(identifier: String) { super.init(identifier: identifier) }

    override func spec(now: Date) -> TaskRequestSpec {
        var s = super.spec(now: now)
        s.requiresNetworkConnectivity = requiresNetworkConnectivity
        s.requiresExternalPower = requiresExternalPower
        return s
    }
}

/// `BGTask`: handed to the launch handler. Sendable, as the SDK's is: apps
/// complete it from whichever thread their work ends on.
public class BGTask: @unchecked Sendable {
    public let identifier: String
    let connection: SystemConnection
    /// Called shortly before the task's time runs out; the app must still call
    /// `setTaskCompleted(success:)`. Without one, the task is completed
    /// unsuccessfully at expiry.
    public var expirationHandler: (() -> Void)? {
        didSet { connection.setTaskExpirationHandler(identifier: identifier, isSet: expirationHandler != nil) }
    }

    /// Made by the host that runs the app, when the system hands over a task.
    public init(identifier: String, connection: SystemConnection) {
        self.identifier = identifier
        self.connection = connection
    }

    public func setTaskCompleted(success: Bool) {
        connection.completeTask(self, success: success)
    }
}

public final class BGAppRefreshTask: BGTask, @unchecked Sendable {}

/// `BGContinuedProcessingTaskRequest` (iOS 26, rules §13): submitted from the
/// foreground in response to the person; starts at once if it can.
/// The identifier falls under a wildcard permitted identifier
/// (`com.example.export.*`), for which the handler is registered.
public final class BGContinuedProcessingTaskRequest: BGTaskRequest {
    public enum SubmissionStrategy: Sendable { case fail, queue }
    public struct Resources: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let gpu = Resources(rawValue: 1)
    }
    public var title: String
    public var subtitle: String
    /// `.queue` by default.
    public var strategy: SubmissionStrategy = .queue
    public var requiredResources: Resources = []

    public init(identifier: String, title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
        super.init(identifier: identifier)
    }

    var request: ContinuedProcessingRequest {
        ContinuedProcessingRequest(identifier: identifier, title: title, subtitle: subtitle,
                                   strategy: strategy == .fail ? .fail : .queue,
                                   requiresGPU: requiredResources.contains(.gpu))
    }
}

/// `BGContinuedProcessingTask`: conforms to `ProgressReporting`; the system
/// shows `progress` to the person and, under resource pressure, ends first
/// the tasks whose progress has not moved.
public final class BGContinuedProcessingTask: BGTask, @unchecked Sendable {
    /// Set `totalUnitCount` and `completedUnitCount` as the work goes; each change reaches the system.
    public private(set) lazy var progress: Progress = TaskProgress(task: self)

    /// Changes what the person sees of the task while it runs.
    public func updateTitle(_ title: String, subtitle: String) {
        connection.updateContinuedTitle(identifier: identifier, title: title, subtitle: subtitle)
    }

    /// A `Progress` that tells the system each time it moves.
    final class TaskProgress: Progress, @unchecked Sendable {
        weak var task: BGContinuedProcessingTask?
        init(task: BGContinuedProcessingTask) {
            self.task = task
            super.init(parent: nil, userInfo: nil)
        }
        override var completedUnitCount: Int64 { didSet { report() } }
        override var totalUnitCount: Int64 { didSet { report() } }
        func report() {
            guard let task else { return }
            task.connection.reportContinuedProgress(identifier: task.identifier, completed: completedUnitCount,
                                                    total: totalUnitCount)
        }
    }
}
public final class BGProcessingTask: BGTask, @unchecked Sendable {}

/// `UIBackgroundFetchResult`.
public typealias BackgroundFetchResult = BGXCore.BackgroundFetchResult
