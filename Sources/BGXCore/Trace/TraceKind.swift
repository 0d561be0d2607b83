/// The kinds of trace line (docs/scenarios.md, "The trace"), each spelled
/// once: `TraceEvent.kindName` writes these names, `expect:` reads them, and
/// the docs' vocabulary is checked against them.
public enum TraceKind: String, Sendable, CaseIterable {
    case state
    case launch
    case callback
    case activityBegin = "activity.begin"
    case activityExpire = "activity.expire"
    case activityEnd = "activity.end"
    case activityRefuse = "activity.refuse"
    case user
    case bgtaskBegin = "bgtask.begin"
    case bgtaskEnd = "bgtask.end"
    case bgtaskExpire = "bgtask.expire"
    case bgtaskInvalid = "bgtask.invalid"
    case terminate
    case log
    case device
    case notificationSchedule = "notification.schedule"
    case notificationDeliver = "notification.deliver"
    case notificationDrop = "notification.drop"
    case notificationCancel = "notification.cancel"
    case notificationTap = "notification.tap"
    case taskRegister = "task.register"
    case taskSubmit = "task.submit"
    case taskReject = "task.reject"
    case taskCancel = "task.cancel"
    case taskDefer = "task.defer"
    case taskStart = "task.start"
    case taskExpire = "task.expire"
    case taskProgress = "task.progress"
    case taskComplete = "task.complete"
    case fetchDefer = "fetch.defer"
    case fetchStart = "fetch.start"
    case fetchComplete = "fetch.complete"
    case memoryWarning = "memory.warning"
    case snapshot
    case socketClose = "socket.close"
    case changesSave = "changes.save"
    case changesLost = "changes.lost"
    case audioStart = "audio.start"
    case audioStop = "audio.stop"
    case audioRefuse = "audio.refuse"
    case locationStart = "location.start"
    case locationStop = "location.stop"
    case locationDeliver = "location.deliver"
    case locationDrop = "location.drop"
    case locationDefer = "location.defer"
    case accessoryConnect = "accessory.connect"
    case accessoryDisconnect = "accessory.disconnect"
    case accessoryDeliver = "accessory.deliver"
    case accessoryDrop = "accessory.drop"
    case transferCreate = "transfer.create"
    case transferStart = "transfer.start"
    case transferDefer = "transfer.defer"
    case transferRetry = "transfer.retry"
    case transferComplete = "transfer.complete"
    case transferFail = "transfer.fail"
    case transferCancel = "transfer.cancel"
    case transferHold = "transfer.hold"
    case fileWrite = "file.write"
    case fileRead = "file.read"
    case pushDeliver = "push.deliver"
    case pushDrop = "push.drop"
    case pushComplete = "push.complete"
    case callReport = "call.report"
    case voipWake = "voip.wake"
    case voipDrop = "voip.drop"

    /// The fields a line of this kind may carry beyond `t`, `app` and `kind`
    /// (what an `expect:` may match on); `TraceEvent.fields` writes no other.
    public var fields: [String] {
        switch self {
        case .state: ["from", "to", "reason"]
        case .launch: ["cause"]
        case .callback: ["name", "launchOptions", "id", "identifier", "service", "region", "session", "task", "result", "code", "type", "expired", "queue"]
        case .activityBegin: ["id", "name"]
        case .activityExpire: ["id", "name", "reason"]
        case .activityEnd: ["id", "name", "reason"]
        case .activityRefuse: ["name", "reason"]
        case .user: ["action"]
        case .bgtaskBegin: ["id", "name"]
        case .bgtaskEnd: ["id"]
        case .bgtaskExpire: ["id", "name"]
        case .bgtaskInvalid: ["name", "reason"]
        case .terminate: ["reason", "code", "detail", "band", "bandName", "footprintMB", "cause"]
        case .log: ["message"]
        case .device: ["property", "value"]
        case .notificationSchedule: ["id", "fireIn", "replaced"]
        case .notificationDeliver: ["id", "to", "alert", "sound", "badge", "reason"]
        case .notificationDrop: ["id", "reason"]
        case .notificationCancel: ["id"]
        case .notificationTap: ["id", "reason"]
        case .taskRegister: ["identifier"]
        case .taskSubmit: ["identifier", "type", "replaced"]
        case .taskReject: ["identifier", "error", "code", "reason"]
        case .taskCancel: ["identifier"]
        case .taskDefer: ["identifier", "reason", "currentScore", "thresholdScore", "decisionToRun"]
        case .taskStart: ["identifier", "reason", "currentScore", "thresholdScore", "decisionToRun"]
        case .taskExpire: ["identifier", "reason"]
        case .taskProgress: ["identifier", "completed", "total"]
        case .taskComplete: ["identifier", "success"]
        case .fetchDefer: ["reason"]
        case .fetchStart: []
        case .fetchComplete: ["result"]
        case .memoryWarning: ["footprintMB", "freeMB"]
        case .snapshot: ["sensitiveContentVisible"]
        case .socketClose: ["name", "type", "reason"]
        case .changesSave: []
        case .changesLost: ["reason"]
        case .audioStart: ["category", "for"]
        case .audioStop: ["reason"]
        case .audioRefuse: ["reason"]
        case .locationStart: ["service"]
        case .locationStop: ["service"]
        case .locationDeliver: ["service", "event", "region"]
        case .locationDrop: ["service", "reason"]
        case .locationDefer: ["service", "reason"]
        case .accessoryConnect: ["transport"]
        case .accessoryDisconnect: ["transport", "reason"]
        case .accessoryDeliver: ["transport"]
        case .accessoryDrop: ["transport", "reason"]
        case .transferCreate: ["session", "task", "type", "bytes"]
        case .transferStart: ["session", "task", "bytesLeft"]
        case .transferDefer: ["session", "task", "reason"]
        case .transferRetry: ["session", "task", "reason"]
        case .transferComplete: ["session", "task"]
        case .transferFail: ["session", "task", "error", "code", "reason"]
        case .transferCancel: ["session", "reason"]
        case .transferHold: ["session", "reason"]
        case .fileWrite: ["path", "protection", "ok", "reason"]
        case .fileRead: ["path", "protection", "ok", "reason"]
        case .pushDeliver: ["type", "priority", "to"]
        case .pushDrop: ["type", "priority", "reason", "held"]
        case .pushComplete: ["result"]
        case .callReport: []
        case .voipWake: ["trigger"]
        case .voipDrop: ["trigger", "reason"]
        }
    }
}
