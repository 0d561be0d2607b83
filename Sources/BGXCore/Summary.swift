/// The per-app summary (issue 8 of the foundation; SPEC §12's three concerns
/// in their simplest form): time in each state, launches by cause,
/// terminations by reason, background seconds.
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
    /// Returns to the front of a process still there (SPEC §10: after a
    /// purge the next return is a cold launch instead).
    public var warmLaunches: Int

    public init(bundleIdentifier: String, stats: AppStats) {
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
        out += "  launches:     " + (l.isEmpty ? "none" : l.joined(separator: ", "))
            + " — \(coldLaunches) cold (a new process), \(warmLaunches) warm (back to the front from memory)\n"
        let t = TerminationReason.allCases.compactMap { r in terminations[r].map { "\(r) \($0)" } }
        out += "  terminations: " + (t.isEmpty ? "none" : t.joined(separator: ", ")) + "\n"
        out += "  bg tasks:     \(backgroundTasksBegun) begun, \(backgroundTasksExpired) expired\n"
        out += "  BGTasks:      \(scheduledTasksStarted) run, \(scheduledTasksExpired) expired; fetches: \(fetches)\n"
        return out
    }

    public var json: String {
        func obj<K>(_ pairs: [(K, String)]) -> String where K: CustomStringConvertible {
            "{" + pairs.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
        var name = ""
        TraceRenderer.appendJSONString(bundleIdentifier, to: &name)
        let states = obj(ProcessState.allCases.map { ($0, Time.format(Time.seconds(secondsInState[$0] ?? 0))) })
        let l = obj(LaunchCause.allCases.compactMap { c in launches[c].map { (c, "\($0)") } })
        let t = obj(TerminationReason.allCases.compactMap { r in terminations[r].map { (r, "\($0)") } })
        return "{\"app\": \(name), \"secondsInState\": \(states), "
            + "\"backgroundSeconds\": \(Time.format(Time.seconds(backgroundSeconds))), "
            + "\"launches\": \(l), \"coldLaunches\": \(coldLaunches), \"warmLaunches\": \(warmLaunches), "
            + "\"terminations\": \(t), "
            + "\"backgroundTasks\": {\"begun\": \(backgroundTasksBegun), \"expired\": \(backgroundTasksExpired)}, "
            + "\"scheduledTasks\": {\"started\": \(scheduledTasksStarted), \"expired\": \(scheduledTasksExpired)}, "
            + "\"fetches\": \(fetches)}"
    }
}

extension Engine {
    public func summary(of app: AppID) -> AppSummary {
        AppSummary(bundleIdentifier: bundleIdentifier(app), stats: stats(of: app))
    }
}
