import BGXCore
import Foundation

extension ProcessInfo {
    /// rules §13: `performExpiringActivity(withReason:using:)` for app
    /// extensions and apps — "Performs the specified block asynchronously and
    /// notifies you if the process is about to be suspended." [D]
    /// https://developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
    /// The block runs on the background queue with `expired == false` while
    /// the process is held like a background task (same budget); as the time
    /// runs out it is called again with `true` — stop quickly and return.
    /// Without an assertion to be had it runs once, with `true`. (Apple's
    /// block is `@Sendable`; virtual time runs app code on one thread, so
    /// this one need not be.)
    public func performExpiringActivity(withReason reason: String, using block: @escaping (Bool) -> Void) {
        Application.shared.connection.performExpiringActivity(reason: reason, block: block)
    }
}
