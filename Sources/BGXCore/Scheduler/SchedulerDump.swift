/// The scheduler controller's state for one app, as data (AOSP's
/// `dumpControllerStateLocked`): its requests, its background-fetch standing
/// and the budgets dasd's policies read. In words it is `explain --app`'s
/// background-fetch section (a request's own explanation is `explain --task`).
public struct SchedulerControllerDump: ControllerDump, Equatable {
    public var concern: String { "scheduler" }
    /// Pending requests' identifiers, in submission order.
    public var pending: [String]
    /// `setMinimumBackgroundFetchInterval` (nil: never), and the last fetch.
    public var fetchInterval: Nanoseconds?
    public var lastFetch: Nanoseconds?
    /// 1 for an app that fetches fast and reports honestly; less otherwise.
    public var reputation: Double
    /// Fetches judged, by verdict in words, in the verdicts' order (only those that happened).
    public var fetchesJudged: [Judged]
    public var lastJudged: LastJudged?
    /// Time awake in the background today, of the daily energy budget.
    public var energyUsed: Nanoseconds
    public var energyBudget: Nanoseconds
    /// Tasks left uncompleted (each doubles the spacing between launches) and launches over cellular today.
    public var penalties: Int
    public var cellularLaunchesToday: Int
    /// When the scheduler will judge the app again if only time passes.
    public var nextLook: Nanoseconds?
    /// The settings the fetch verdicts move the reputation by (the section's "why").
    public var reward, slowFactor, dishonestFactor, timeoutFactor: Double
    public var slowAfter: Nanoseconds
    public var largeBytes: Int64

    public struct Judged: Sendable, Equatable, Encodable {
        public var verdict: String
        public var count: Int
    }
    public struct LastJudged: Sendable, Equatable, Encodable {
        public var verdict: String
        /// How long the app was awake in the background for the fetch.
        public var took: Nanoseconds
        public var bytes: Int64
        public var at: Nanoseconds
    }

    /// The app asked for fetches, has had one judged, or has a request pending.
    public var holdsSomething: Bool { fetchInterval != nil || lastJudged != nil || !pending.isEmpty }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines: [String] = []
        if !pending.isEmpty { lines.append("pending: " + pending.joined(separator: ", ")) }
        lines += fetchStanding(when: when)
        if penalties > 0 { lines.append("penalties: \(penalties) uncompleted task(s) double the spacing between launches") }
        if let nextLook { lines.append("next look: \(when(nextLook))") }
        return lines
    }

    /// The background-fetch standing and why; empty for an app that never asked for fetches.
    public func fetchStanding(when: (Nanoseconds) -> String) -> [String] {
        guard fetchInterval != nil || lastJudged != nil else { return [] }
        var lines: [String] = []
        if let fetchInterval {
            lines.append("interval: at least \(Time.describe(fetchInterval))"
                         + (lastFetch.map { "; last fetch \(when($0))" } ?? "; no fetch yet"))
        } else {
            lines.append("interval: never (setMinimumBackgroundFetchInterval not called, or set to never)")
        }
        let standing = reputation >= 0.9 ? "good" : reputation >= 0.5 ? "fair" : "poor"
        lines.append("standing: \(standing) — reputation \(Engine.twoDecimals(reputation)) of 1"
                     + (reputation < 1 ? "; fetches are spaced \(Engine.twoDecimals(1 / reputation))× further apart" : ""))
        lines.append("fetches judged: " + (fetchesJudged.isEmpty ? "none yet"
                                          : fetchesJudged.map { "\($0.count) \($0.verdict)" }.joined(separator: ", ")))
        if let last = lastJudged {
            lines.append("last: \(when(last.at)) — \(last.verdict) (awake \(Time.describe(last.took))"
                         + (last.bytes > 0 ? ", \(last.bytes) bytes" : "") + ")")
        }
        lines.append("energy: \(Time.describe(energyUsed)) of \(Time.describe(energyBudget)) awake in the background today")
        lines.append("why: each fetch is judged on the time the app stayed awake for it and its data; "
                     + "fast, honest fetches raise the reputation by \(Engine.twoDecimals(reward)); "
                     + "a slow one (awake over \(Time.describe(slowAfter))) or a large one (over \(largeBytes) bytes) "
                     + "multiplies it by \(Engine.twoDecimals(slowFactor)), newData without fetching by "
                     + "\(Engine.twoDecimals(dishonestFactor)), a timeout by "
                     + "\(Engine.twoDecimals(timeoutFactor)); the spacing between fetches is divided by it")
        return lines
    }

    /// `explain --app`'s background-fetch section.
    public func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection? {
        let lines = fetchStanding(when: when)
        return lines.isEmpty ? nil : ExplainSection(heading: "background fetch of \(app) at \(at)", lines: lines)
    }
}

extension SchedulerController {
    /// The controller's state for the app at `now` (`text` puts an identifier into words).
    func dump(of app: AppID, now: Nanoseconds, text: (TextID) -> String) -> SchedulerControllerDump {
        let a = apps[Int(app.index)]
        let s = a.fetchStanding
        let p = settings
        let judged = [FetchVerdict.fastAndHonest, .ordinary, .slow, .claimedWithoutFetching, .timedOut]
            .filter { s.counts[Int($0.rawValue)] > 0 }
            .map { SchedulerControllerDump.Judged(verdict: $0.words, count: s.counts[Int($0.rawValue)]) }
        return SchedulerControllerDump(
            pending: pendingTasks.serials(of: app).map { text(pendingTasks[$0].identifier) },
            fetchInterval: a.fetchInterval, lastFetch: a.lastFetch, reputation: s.reputation, fetchesJudged: judged,
            lastJudged: s.last.map { .init(verdict: $0.verdict.words, took: $0.took, bytes: $0.bytes, at: $0.at) },
            energyUsed: energyUsedToday(of: app, now: now), energyBudget: p.dailyEnergyBudget,
            penalties: a.penalties, cellularLaunchesToday: a.cellularLaunches.spent(at: now),
            nextLook: wakeAt[app.index],
            reward: p.fetchReputationReward, slowFactor: p.fetchReputationSlowFactor,
            dishonestFactor: p.fetchReputationDishonestFactor, timeoutFactor: p.fetchReputationTimeoutFactor,
            slowAfter: p.fetchTimeout * 2 / 3, largeBytes: p.fetchLargeBytes)
    }
}
