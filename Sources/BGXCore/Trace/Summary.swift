/// The per-app summary (issue 8 of the foundation; rules §12's three concerns
/// in their simplest form): time in each state, launches by cause,
/// terminations by reason, background seconds — and "why not yet": what
/// became of the app's BGTaskScheduler requests (submitted, started, held back
/// and by which policy longest, refused and why, expired) and of its pushes
/// (delivered, held, dropped, by reason), counted from the trace.
public struct AppSummary: Sendable, Equatable {
    public var bundleIdentifier: String
    public var secondsInState: [ProcessState: Double]
    public var launches: [LaunchCause: Int]
    public var terminations: [TerminationReason: Int]
    public var backgroundSeconds: Double { secondsInState[.background] ?? 0 }
    public var backgroundTasksBegun: Int
    public var backgroundTasksExpired: Int
    public var watchdogHits: Int
    public var scheduledTasksStarted: Int
    public var scheduledTasksExpired: Int
    public var fetches: Int
    /// Launches of a fresh process (any cause).
    public var coldLaunches: Int { launches.values.reduce(0, +) }
    /// Returns to the front of a process still there (rules §10: after a
    /// purge the next return is a cold launch instead).
    public var warmLaunches: Int
    /// From the trace (`RequestLedger`): the engine alone does not keep it.
    public var requests = TaskRequestCounts()
    public var pushes = PushCounts()

    init(bundleIdentifier: String, stats: AppStats) {
        self.bundleIdentifier = bundleIdentifier
        var seconds: [ProcessState: Double] = [:]
        for state in ProcessState.allCases { seconds[state] = Time.toSeconds(stats.timeInState[state]) }
        secondsInState = seconds
        var launches: [LaunchCause: Int] = [:]
        for cause in LaunchCause.allCases where stats.launches[Int(cause.rawValue)] > 0 {
            launches[cause] = Int(stats.launches[Int(cause.rawValue)])
        }
        self.launches = launches
        var terms: [TerminationReason: Int] = [:]
        for reason in TerminationReason.allCases where stats.terminations[Int(reason.rawValue)] > 0 {
            terms[reason] = Int(stats.terminations[Int(reason.rawValue)])
        }
        terminations = terms
        backgroundTasksBegun = stats.backgroundTasksBegun
        backgroundTasksExpired = stats.backgroundTasksExpired
        watchdogHits = stats.watchdogHits
        scheduledTasksStarted = stats.scheduledTasksStarted
        scheduledTasksExpired = stats.scheduledTasksExpired
        fetches = stats.fetches
        warmLaunches = stats.warmLaunches
    }

    /// The summary with its requests and pushes counted from a ledger of the trace up to `now`.
    public init(bundleIdentifier: String, stats: AppStats, ledger: RequestLedger, app: AppID, names: TraceNames,
                now: Nanoseconds) {
        self.init(bundleIdentifier: bundleIdentifier, stats: stats)
        requests = TaskRequestCounts(ledger, app: app, names: names, now: now)
        pushes = PushCounts(ledger, app: app, names: names)
    }

    /// A few aligned lines for people.
    public var text: String {
        func secs(_ s: Double) -> String { Time.describe(Time.seconds(s)) }
        var out = "\(bundleIdentifier)\n"
        // States the app never stayed in (inactive is passed through in an
        // instant) are left out: "inactive 0s" read as a measurement.
        out += "  time:         " + ProcessState.allCases.filter { (secondsInState[$0] ?? 0) > 0 }
            .map { "\($0) \(secs(secondsInState[$0] ?? 0))" }.joined(separator: ", ") + "\n"
        out += "  background:   \(secs(backgroundSeconds)) running in the background\n"
        let l = LaunchCause.allCases.compactMap { c in launches[c].map { "\(c) \($0)" } }
        // Process starts by cause, then returns of a live process: "user 1 — 1 cold,
        // 20 warm" read as "opened once".
        let starts = coldLaunches == 1 ? "1 new process" : "\(coldLaunches) new processes"
        let returns = warmLaunches == 1 ? "1 return to the front from memory" : "\(warmLaunches) returns to the front from memory"
        out += "  launches:     " + starts + (l.isEmpty ? "" : " (" + l.joined(separator: ", ") + ")") + ", " + returns + "\n"
        let t = TerminationReason.allCases.compactMap { r in terminations[r].map { "\(r) \($0)" } }
        out += "  terminations: " + (t.isEmpty ? "none" : t.joined(separator: ", ")) + "\n"
        out += "  bg tasks:     \(backgroundTasksBegun) begun, \(backgroundTasksExpired) expired\n"
        out += "  BGTasks:      " + requestsText + "; fetches: \(fetches)\n"
        if !requests.refused.isEmpty {
            out += "  refused:      " + requests.refused.map { "\($0.count)× \($0.error): \($0.reason)" }
                .joined(separator: "; ") + "\n"
        }
        if !pushes.isEmpty { out += "  pushes:       " + pushesText + "\n" }
        return out
    }

    /// `3 submitted: 1 started, 2 refused, …` — or why none ran.
    var requestsText: String {
        let r = requests
        guard r.submitted > 0 || r.started > 0 else {
            return "none submitted" + (scheduledTasksStarted > 0 ? ", \(scheduledTasksStarted) started" : "")
        }
        var parts = ["\(r.started) started"]
        if r.deferred > 0 {
            var held = "\(r.deferred) deferred"
            if let longest = r.longestHold {
                held += " (held longest by \(longest.policy), \(Time.describe(longest.duration)) in all)"
            }
            parts.append(held)
        }
        if r.refusedCount > 0 { parts.append("\(r.refusedCount) refused") }
        parts.append("\(r.expired) expired")
        if r.cancelled > 0 { parts.append("\(r.cancelled) cancelled") }
        if r.pendingAtEnd > 0 { parts.append("\(r.pendingAtEnd) still pending at the end") }
        return "\(r.submitted) submitted: " + parts.joined(separator: ", ")
    }

    /// Held or dropped pushes' reasons named in the summary's text, in the order they first happened.
    public static let pushReasonsNamed = 6

    /// `5 delivered (4 to the app, 1 to the user), 2 held (throttled … 2), 1 dropped (…)`.
    var pushesText: String {
        // A long run can hold pushes for hundreds of reasons that differ only in a time ("it resets at
        // 12d 00:26"): the first few are named, the rest counted (each is in the trace and the JSON).
        func reasons(_ list: [PushCounts.Reason]) -> String {
            guard !list.isEmpty else { return "" }
            let named = list.prefix(Self.pushReasonsNamed).map { "\($0.count)× \($0.reason)" }
            let rest = list.dropFirst(Self.pushReasonsNamed)
            let more = rest.isEmpty ? "" : "; … \(rest.reduce(0) { $0 + $1.count }) more for \(rest.count) other reasons"
            return " (" + named.joined(separator: "; ") + more + ")"
        }
        let p = pushes
        return "\(p.delivered) delivered (\(p.deliveredToApp) to the app, \(p.deliveredToUser) to the user), "
            + "\(p.heldCount) held" + reasons(p.held) + ", \(p.droppedCount) dropped" + reasons(p.dropped)
    }
}
