/// rules §2: one `beginBackgroundTask` assertion.
struct BackgroundTaskRecord: Sendable, Codable {
    var id: Int
    var name: String
    var nameText: TextID
    var began: Nanoseconds
    var expirationHandlerCalled = false
    /// rules §13: `performExpiringActivity`'s assertion, not a `beginBackgroundTask`.
    var isExpiringActivity = false
}
