/// rules §8: the numbers the transfer daemon (nsurlsessiond) decides by.
public struct TransferSettings: Sendable, Equatable, Codable {
    /// Background URLSessions exist (iOS 7+ [D]); `ios6` has only Newsstand downloads [S].
    public var backgroundSessions = true
    /// `URLSessionConfiguration.timeoutIntervalForResource` default: 7 days [D].
    public var resourceTimeout: Nanoseconds = Time.days(7)
    /// `URLSessionConfiguration.timeoutIntervalForRequest` default: 60 s [D]. In a background
    /// session a request that times out is retried by the daemon, not failed [D][A].
    public var requestTimeout: Nanoseconds = Time.seconds(60)
    /// Discretionary transfers (and every transfer started from the background) wait for
    /// Wi-Fi [D] and for power [A] ("good conditions").
    public var discretionaryRequiresWiFi = true
    public var discretionaryRequiresPower = true
    /// Relaunch rate limiter [A][O]: the delay before the first background resume or
    /// relaunch for a session's events since the app was last in front; it doubles with
    /// each further one (60 s, 120 s, 240 s …) and resets when the app comes to the front.
    public var relaunchDelay: Nanoseconds = Time.seconds(60)
    /// The doubling stops after this many steps (bgx's bound; 60 s · 2^12 ≈ 2.8 days).
    public var relaunchMaxDoublings = 12
    /// How long an app woken for `handleEventsForBackgroundURLSession` stays in the
    /// background waiting for its completion handler before it is suspended anyway (with
    /// UIKit's "completion handler was never called" warning): the background-task
    /// allowance of a system wake, ~30 s [O].
    public var eventsHandlingTime: Nanoseconds = Time.seconds(30)

    public init() {}

    /// iOS 4–6: no background sessions; Newsstand downloads only.
    public static let ios6: TransferSettings = {
        var p = TransferSettings()
        p.backgroundSessions = false
        return p
    }()
}
