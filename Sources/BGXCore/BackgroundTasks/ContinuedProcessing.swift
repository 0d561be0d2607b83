/// rules §13: `BGContinuedProcessingTaskRequest` (iOS 26) [D: Apple's
/// BackgroundTasks documentation, "Performing long-running tasks on iOS and
/// iPadOS", WWDC25 "Finish tasks in the background"]. Submitted from the
/// foreground in response to the person; starts at once if it can and keeps
/// running in the background, with no fixed time limit, until
/// `setTaskCompleted`. The person sees its progress (a Live Activity) and can
/// cancel it (→ expirationHandler); under resource pressure the system ends
/// first the tasks whose progress has not moved.

/// `BGContinuedProcessingTaskRequest.SubmissionStrategy`.
public enum ContinuedProcessingStrategy: String, Sendable, CaseIterable, Codable {
    /// Wait for a slot (the default).
    case queue
    /// Refuse with `immediateRunIneligible` if it cannot start now.
    case fail
}

/// `BGContinuedProcessingTaskRequest` as the system sees it.
public struct ContinuedProcessingRequest: Sendable, Equatable, Codable {
    public var identifier: String
    public var title: String
    public var subtitle: String
    public var strategy: ContinuedProcessingStrategy
    /// `requiredResources` contains `.gpu`.
    public var requiresGPU: Bool

    public init(identifier: String, title: String, subtitle: String, strategy: ContinuedProcessingStrategy = .queue,
                requiresGPU: Bool = false) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.strategy = strategy
        self.requiresGPU = requiresGPU
    }
}

/// The profile's continued-processing numbers.
public struct ContinuedProcessingSettings: Sendable, Equatable, Codable {
    /// The profile has `BGContinuedProcessingTaskRequest` (iOS 26 and later).
    public var available = false
    /// How many continued-processing tasks run at once on the device; more
    /// are queued or refused. Apple documents that a slot may not be free,
    /// not how many there are: bgx's choice.
    public var slots = 2
    /// A task whose progress has not moved for this long is "stalled":
    /// the first to go under resource pressure (bgx's choice of window).
    public var stallWindow: Nanoseconds = Time.seconds(60)
    public init() {}
}

/// A continued-processing task, queued or running.
struct ContinuedTask: Sendable, Codable {
    var app: AppID
    var identifier: TextID
    var request: ContinuedProcessingRequest
    var running = false
    var completed: Int64 = 0
    var total: Int64 = 0
    /// When the progress last moved (or the task started).
    var movedAt: Nanoseconds = 0
}

/// The app-facing calls, each a forwarder: take the input, ask the
/// controller with what the coordinator reads for it, carry out its effects.
extension Engine {
    /// `submit(_:)` of a `BGContinuedProcessingTaskRequest`.
    public mutating func submitContinuedProcessingTask(for app: AppID, _ request: ContinuedProcessingRequest)
        throws(BGTaskSchedulerError) {
        let id = text(request.identifier)
        let outcome = continuedProcessing.submit(app, id, request, continuedSubmissionFacts(of: app, request), now: now)
        apply(outcome.effects)
        if let error = outcome.error { throw error }
    }

    /// `task.progress.completedUnitCount` / `totalUnitCount` changed.
    public mutating func reportContinuedProgress(for app: AppID, identifier: String, completed: Int64, total: Int64) {
        apply(continuedProcessing.reportProgress(app, text(identifier), identifier: identifier, completed: completed,
                                                 total: total, now: now))
    }

    /// `BGContinuedProcessingTask.updateTitle(_:subtitle:)` [D]: what the
    /// person sees of the running task (its Live Activity) changes.
    public mutating func updateContinuedTitle(for app: AppID, identifier: String, title: String, subtitle: String) {
        apply(continuedProcessing.updateTitle(app, text(identifier), identifier: identifier, title: title,
                                              subtitle: subtitle))
    }

    /// The person cancels the task from its Live Activity: its expiration handler runs.
    public mutating func cancelContinuedTask(for app: AppID?, identifier: String) {
        apply(continuedProcessing.cancel(app, text(identifier), identifier: identifier))
    }
}
