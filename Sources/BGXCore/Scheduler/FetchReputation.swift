/// rules §6: "Apps that download small amounts of content quickly, and
/// accurately reflect when they had content available to download, are more
/// likely to receive execution time in the future than apps that take a long
/// time to download their content or that claim that content was available
/// but then do not download anything" (UIApplicationDelegate,
/// `application(_:performFetchWithCompletionHandler:)` [D]; the seed [S]).
/// Each fetch is judged on what it cost — the time the app stayed awake in
/// the background for it, until it was suspended, and the data it moved —
/// and on whether its result was honest; the standing it adds up to divides
/// the spacing between the app's fetches (ActivityRateLimitPolicy), so a
/// cheap, honest fetcher is fetched more often than a costly or dishonest one.
public enum FetchVerdict: UInt8, Sendable, Codable {
    /// Awake at most a third of the fetch time, little data, an honest result.
    case fastAndHonest
    /// Neither cheap nor costly.
    case ordinary
    /// Awake more than two thirds of the fetch time, or much data.
    case slow
    /// Reported `newData` having fetched nothing (no network work, no data).
    case claimedWithoutFetching
    /// Never called the completion handler (terminated, 0x2182bad4).
    case timedOut

    var words: String {
        switch self {
        case .fastAndHonest: "fast and honest"
        case .ordinary: "neither fast nor slow"
        case .slow: "slow or large"
        case .claimedWithoutFetching: "claimed newData without fetching anything"
        case .timedOut: "did not call its completion handler in time"
        }
    }
}

/// What the system remembers of an app's fetches. It survives termination:
/// it is the scheduler's knowledge, not the process's.
struct FetchStanding: Sendable, Codable {
    /// 1 for an app that fetches fast and reports honestly; less otherwise.
    var reputation = 1.0
    /// Fetches judged, by verdict (`FetchVerdict.rawValue`).
    var counts = [Int](repeating: 0, count: 5)
    var last: LastFetch?
}

extension FetchStanding {
    /// Judges a fetch that ended: the verdict moves the reputation and is counted.
    mutating func judge(_ verdict: FetchVerdict, took: Nanoseconds, bytes: Int64, at now: Nanoseconds,
                        settings p: SchedulerSettings) {
        switch verdict {
        case .fastAndHonest: reputation = min(1, reputation + p.fetchReputationReward)
        case .ordinary: break
        case .slow: reputation *= p.fetchReputationSlowFactor
        case .claimedWithoutFetching: reputation *= p.fetchReputationDishonestFactor
        case .timedOut: reputation *= p.fetchReputationTimeoutFactor
        }
        reputation = max(p.fetchReputationFloor, reputation)
        counts[Int(verdict.rawValue)] += 1
        last = LastFetch(verdict: verdict, took: took, bytes: bytes, at: now)
    }
}

extension SchedulerController {
    /// The verdict on a fetch that reported `result` and kept the app awake
    /// `awake` in the background, having moved `bytes` (and started network
    /// work, or not: `fetchedSomething`). Dishonesty is judged first, then cost.
    static func fetchVerdict(result: BackgroundFetchResult, awake: Nanoseconds, bytes: Int64 = 0,
                             fetchedSomething: Bool, settings: SchedulerSettings) -> FetchVerdict {
        if result == .newData && !fetchedSomething { return .claimedWithoutFetching }
        if awake > settings.fetchTimeout * 2 / 3 || bytes > settings.fetchLargeBytes { return .slow }
        if awake <= settings.fetchTimeout / 3 { return .fastAndHonest }
        return .ordinary
    }
}

extension SchedulerController {
    /// How much the app's standing stretches the spacing between its fetches.
    func fetchSpacingFactor(_ app: AppID) -> Double {
        1 / apps[Int(app.index)].fetchStanding.reputation
    }

    /// The app's fetch standing, for `explain` and tests.
    func fetchReputation(of app: AppID) -> Double { apps[Int(app.index)].fetchStanding.reputation }

    /// Time the app has spent awake in the background today, launched for
    /// refresh or fetch work (EnergyBudgetPolicy's count), the current
    /// stretch included.
    func energyUsedToday(of app: AppID, now: Nanoseconds) -> Nanoseconds {
        let i = Int(app.index)
        var used = apps[i].energy.spent(at: now)
        if let started = apps[i].energyStartedAt { used += now - started }
        return used
    }
}

/// An app's last background fetch: how it was judged, how long the app was awake for it, its data, when.
struct LastFetch: Sendable, Codable {
    var verdict: FetchVerdict
    var took: Nanoseconds
    var bytes: Int64
    var at: Nanoseconds
}
