/// A legacy background fetch in progress (rules §6).
struct FetchInFlight: Sendable, Codable {
    var number: UInt32
    var started: Nanoseconds
    /// Asynchronous work (network) the app started during the fetch.
    var asyncWork = 0
}
