/// A legacy background fetch in progress (rules §6).
struct FetchInFlight: Sendable, Codable {
    var number: UInt32
    var started: Nanoseconds
    /// Asynchronous work (network) the app started during the fetch.
    var asyncWork = 0
    /// Bytes of the transfers the app started during the fetch (its data).
    var bytes: Int64 = 0
}

/// A fetch whose completion handler was called, waiting to be judged until
/// the app leaves the background: what it cost is the time it stayed awake
/// (busy or waiting), not only the time until it reported (rules §6, §12).
struct FetchAwaitingCost: Sendable, Codable {
    var result: BackgroundFetchResult
    var started: Nanoseconds
    /// Network work or data during the fetch: what makes `newData` honest.
    var fetchedSomething: Bool
    var bytes: Int64
}
