import Foundation

/// The rules no run may ever break, checked from outside the engine: fed
/// every line of a trace (JSON Lines, as `bgx run --trace`, a simulated
/// device's `traceLines` and the live host's trace file write them), it
/// follows each app as the trace tells it and records every line that breaks
/// a rule. Nothing here reads the engine's state, so the check holds the
/// engine, the simulation and the live host to the same rules.
public struct TraceInvariants {
    public struct Violation: CustomStringConvertible, Equatable {
        /// 1-based, counted over every line fed.
        public var line: Int
        public var rule: Rule
        public var message: String
        public var description: String { "trace line \(line): \(rule.rawValue): \(message)" }
    }

    public enum Rule: String, CaseIterable {
        case timeRunsForward = "time runs forward"
        case statesFollowOn = "each state change starts where the last one ended"
        case onlyRunningAppsRunCode = "app code runs only while its process is running"
        case killsEndTheProcess = "a terminated process ends before anything else of it"
        case everyDecisionHasAReason = "every refusal, deferral, drop and kill says why"
        case backgroundTasksEndOnce = "a background task ends or expires once, and only if begun"
        case requestsRunOnlyWhenPending = "a task request starts only if submitted, and ends only if started"
        case budgetsAreNeverNegative = "no budget, time, size or count is negative, and no progress passes its total"
        case scoresAreFractions = "a scheduler's score and threshold lie between 0 and 1"
        case wellFormed = "every line is a JSON object with a time and a kind"
    }

    public private(set) var violations: [Violation] = []
    public private(set) var lines = 0

    /// What the trace has said of one app so far.
    struct AppSoFar {
        var state = "notRunning"
        /// A `terminate` came; its process's end (the state to notRunning) has not.
        var terminating = false
        var openBackgroundTasks: Set<Int> = []
        /// Identifiers with a request submitted and not yet started or cancelled (one each: a submit replaces).
        var pending: Set<String> = []
        var running: Set<String> = []
    }
    var apps: [String: AppSoFar] = [:]
    var lastTime = -Double.infinity

    /// The kinds that refuse, defer, drop or kill, and so must carry a reason.
    static let decisions: Set<String> = [
        "task.reject", "task.defer", "push.drop", "notification.drop", "activity.refuse", "activity.expire",
        "bgtask.invalid", "fetch.defer", "voip.drop", "socket.close", "audio.refuse", "audio.stop", "location.drop",
        "location.defer", "accessory.drop", "accessory.disconnect", "transfer.defer", "transfer.retry", "transfer.fail",
        "transfer.cancel", "transfer.hold", "terminate", "state", "process.kill",
    ]
    /// States in which an app's process runs its code.
    static let running: Set<String> = ["inactive", "active", "background"]
    /// Fields that hold a time, a size, a count or what is left of a budget. (Not `freeMB`: an
    /// allocation may ask for more than is free, and jetsam's warning says by how much it is short.)
    static let budgets = ["fireIn", "for", "bytes", "bytesLeft", "completed", "total", "footprintMB", "timeLeft"]
    /// dasd's scores as the trace gives them.
    static let scores = ["currentScore", "thresholdScore"]

    public init() {}

    /// Checks every line of a trace; the violations, in order.
    public static func violations(in lines: some Sequence<String>) -> [Violation] {
        var check = TraceInvariants()
        for line in lines { check.observe(line) }
        return check.violations
    }

    /// Checks every line of a trace already parsed (as the live host's tests hold it).
    public static func violations(inParsed lines: some Sequence<[String: Any]>) -> [Violation] {
        var check = TraceInvariants()
        for line in lines { check.observe(parsed: line) }
        return check.violations
    }

    /// One line of JSON Lines.
    public mutating func observe(_ text: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            lines += 1
            return record(.wellFormed, "not a JSON object: \(text.prefix(120))")
        }
        observe(parsed: object)
    }

    /// One line, parsed.
    public mutating func observe(parsed object: [String: Any]) {
        lines += 1
        guard let time = (object["t"] as? NSNumber)?.doubleValue, let kind = object["kind"] as? String else {
            return record(.wellFormed, "a line without t and kind: \(object)")
        }
        func string(_ key: String) -> String? { object[key] as? String }

        if time < lastTime { record(.timeRunsForward, "t \(time) after t \(lastTime)") }
        lastTime = max(lastTime, time)

        if Self.decisions.contains(kind), (string("reason") ?? "").isEmpty {
            record(.everyDecisionHasAReason, "\(kind) without a reason")
        }
        if kind.hasPrefix("file."), object["ok"] as? Bool == false, (string("reason") ?? "").isEmpty {
            record(.everyDecisionHasAReason, "\(kind) refused without a reason")
        }
        for key in Self.budgets {
            if let value = (object[key] as? NSNumber)?.doubleValue, value < 0 {
                record(.budgetsAreNeverNegative, "\(kind): \(key) is \(value)")
            }
        }
        if let done = (object["completed"] as? NSNumber)?.int64Value, let total = (object["total"] as? NSNumber)?.int64Value,
           done > total {
            record(.budgetsAreNeverNegative, "\(kind): \(done) completed of \(total)")
        }
        for key in Self.scores {
            if let value = (object[key] as? NSNumber)?.doubleValue, !(0...1).contains(value) {
                record(.scoresAreFractions, "\(kind): \(key) is \(value)")
            }
        }

        guard let app = string("app") else { return }
        var so = apps[app] ?? AppSoFar()
        defer { apps[app] = so }
        switch kind {
        case "state":
            guard let from = string("from"), let to = string("to") else {
                return record(.wellFormed, "a state change without from and to")
            }
            if from != so.state { record(.statesFollowOn, "\(app): from \(from), but it was \(so.state)") }
            if so.terminating, to != "notRunning" {
                record(.killsEndTheProcess, "\(app): terminated, then \(from)→\(to) before its end")
            }
            so.state = to
            if to == "notRunning" {
                // The process is gone, and with it its background tasks and whatever of its requests ran.
                so.terminating = false
                so.openBackgroundTasks = []
                so.running = []
            }
        case "terminate":
            if so.state == "notRunning" { record(.killsEndTheProcess, "\(app): terminated while not running") }
            so.terminating = true
        case "callback":
            if !Self.running.contains(so.state) {
                record(.onlyRunningAppsRunCode, "\(app): \(string("name") ?? "a callback") while \(so.state)")
            }
            if so.terminating { record(.killsEndTheProcess, "\(app): \(string("name") ?? "a callback") after its terminate") }
        case "bgtask.begin":
            if let id = object["id"] as? Int { so.openBackgroundTasks.insert(id) }
        case "bgtask.end", "bgtask.expire":
            guard let id = object["id"] as? Int else { return record(.wellFormed, "\(kind) without an id") }
            if kind == "bgtask.end" {
                if so.openBackgroundTasks.remove(id) == nil {
                    record(.backgroundTasksEndOnce, "\(app): background task \(id) ended, but none is open")
                }
            } else if !so.openBackgroundTasks.contains(id) {
                record(.backgroundTasksEndOnce, "\(app): background task \(id) expired, but none is open")
            }
        case "task.submit":
            if let id = string("identifier") { so.pending.insert(id) }
        case "task.cancel":
            if let id = string("identifier") { so.pending.remove(id) }
        case "task.start":
            guard let id = string("identifier") else { return record(.wellFormed, "task.start without an identifier") }
            if so.pending.remove(id) == nil {
                record(.requestsRunOnlyWhenPending, "\(app): \(id) started without a pending request")
            }
            so.running.insert(id)
        case "task.complete":
            guard let id = string("identifier") else { return record(.wellFormed, "task.complete without an identifier") }
            if so.running.remove(id) == nil {
                record(.requestsRunOnlyWhenPending, "\(app): \(id) completed, but it was not running")
            }
        case "task.expire":
            if let id = string("identifier"), !so.running.contains(id) {
                record(.requestsRunOnlyWhenPending, "\(app): \(id) expired, but it was not running")
            }
        default:
            break
        }
    }

    mutating func record(_ rule: Rule, _ message: String) {
        violations.append(Violation(line: lines, rule: rule, message: message))
    }
}
