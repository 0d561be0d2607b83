/// rules §5: what an app may ask BGTaskScheduler for.

public enum BGTaskKind: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    /// `BGAppRefreshTaskRequest`: up to ~30 s, shortly before predicted use.
    case appRefresh
    /// `BGProcessingTaskRequest`: minutes, only while the device is idle.
    case processing
    /// `BGContinuedProcessingTaskRequest` (iOS 26, rules §13): started from the
    /// foreground, runs on in the background until completed.
    case continuedProcessing
    public var description: String {
        switch self {
        case .appRefresh: "appRefresh"
        case .processing: "processing"
        case .continuedProcessing: "continuedProcessing"
        }
    }
    /// The background mode the request needs (rules §3); continued processing needs none.
    public var requiredMode: BackgroundMode? {
        switch self {
        case .appRefresh: .fetch
        case .processing: .processing
        case .continuedProcessing: nil
        }
    }
}

/// `BGAppRefreshTaskRequest` / `BGProcessingTaskRequest`.
public struct TaskRequestSpec: Sendable, Equatable, Codable {
    public var identifier: String
    public var kind: BGTaskKind
    /// `earliestBeginDate`, as virtual time; nil means "now".
    public var earliestBegin: Nanoseconds?
    public var requiresNetworkConnectivity: Bool
    public var requiresExternalPower: Bool

    public init(identifier: String, kind: BGTaskKind, earliestBegin: Nanoseconds? = nil,
                requiresNetworkConnectivity: Bool = false, requiresExternalPower: Bool = false) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBegin = earliestBegin
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
        self.requiresExternalPower = requiresExternalPower
    }
}

/// `BGTaskScheduler.Error.Code`.
public enum BGTaskSchedulerError: Int, Error, Sendable, CustomStringConvertible, Codable {
    case unavailable = 1
    case tooManyPendingTaskRequests = 2
    case notPermitted = 3
    /// A continued-processing request with strategy `.fail` could not start now (iOS 26) [D].
    case immediateRunIneligible = 4
    public var description: String {
        switch self {
        case .unavailable: "unavailable"
        case .tooManyPendingTaskRequests: "tooManyPendingTaskRequests"
        case .notPermitted: "notPermitted"
        case .immediateRunIneligible: "immediateRunIneligible"
        }
    }
}

/// `UIBackgroundFetchResult`.
public enum BackgroundFetchResult: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case newData, noData, failed
    public var description: String {
        switch self {
        case .newData: "newData"
        case .noData: "noData"
        case .failed: "failed"
        }
    }
}

/// A request waiting in the scheduler (dasd's "activity").
struct PendingTask: Sendable, Codable {
    var app: AppID
    var identifier: TextID
    var request: TaskRequestSpec
    var submittedAt: Nanoseconds
    /// Since when each policy has answered Must Not Proceed.
    var blockedSince = [Nanoseconds?](repeating: nil, count: SchedulingPolicy.ordered.count)
    /// The policies `blockedSince` holds a time for (bit `index`): the table is
    /// rewritten only when they change, not at every judgement.
    var blockedMask: UInt32 = 0
    /// What held the task back at its last `task.defer` event.
    var lastDeferKey: DecisionKey?

    /// What the scheduler judges for this request.
    var candidate: Candidate {
        Candidate(app: app, kind: request.kind == .processing ? .processing : .appRefresh,
                  earliest: request.earliestBegin ?? submittedAt, submittedAt: submittedAt,
                  requiresNetwork: request.requiresNetworkConnectivity, requiresPower: request.requiresExternalPower)
    }
}

/// A task handed to the app and not yet completed.
struct RunningTask: Sendable, Codable {
    var identifier: TextID
    var kind: BGTaskKind
    var started: Nanoseconds
    var requiresExternalPower: Bool
    var expired = false
    var hasExpirationHandler = false
    /// Simulated via the debug control, not chosen by the scheduler.
    var simulated = false
}
