/// rules §8: the system's transfer daemon (nsurlsessiond). Transfers belong to
/// it, not to the app: they progress while the app is suspended or terminated
/// by the system. This file holds the daemon's words — its transfers, their
/// waits and results; `TransferController` decides which transfers may run,
/// how fast, when the next one finishes and how the results reach the app.
///
/// Bandwidth model: the device's `bandwidth` (bytes per second; timeline
/// `network: {transferSpeed}`) is shared equally by every transfer running on
/// the device, whatever its app (a fair share, as competing TCP flows get).
/// Progress is integer bytes; a completion time is the exact nanosecond at
/// which the transfer's share covers its remaining bytes (rounded up), and is
/// recomputed whenever the set of running transfers or the bandwidth changes.
/// There is no polling: the daemon keeps one event in the queue, at the
/// earliest moment anything can change by time alone.
///
/// Request-timeout model: a running transfer stalls while the device has no
/// network. After `timeoutIntervalForRequest` of stall its request times out;
/// a background session does not fail the task for that — the daemon retries
/// it when connectivity returns (`transfer.retry`), keeping the bytes already
/// received (a resumable download). Only `timeoutIntervalForResource` (7 days
/// by default, counted from the task's creation) fails a task (`transfer.fail`,
/// NSURLErrorTimedOut -1001).

public enum TransferKind: UInt8, Sendable, CustomStringConvertible, Codable {
    case download, upload
    public var description: String { self == .download ? "download" : "upload" }
}

/// How a finished transfer ended; the app's delegate gets it.
public enum TransferResult: Sendable, Equatable, CustomStringConvertible, Codable {
    case success
    /// NSURLErrorCancelled (-999): the user force-quit the app, or the app cancelled it.
    case cancelled
    /// NSURLErrorTimedOut (-1001): `timeoutIntervalForResource` elapsed.
    case timedOut
    /// NSURLErrorBadServerResponse (-1011): on the live host, the server's
    /// answer could not be used and another attempt cannot help (a 404, a
    /// download whose length or checksum does not verify).
    case badServerResponse

    /// The `NSURLErrorDomain` code the delegate's error carries (nil for success).
    public var errorCode: Int? {
        switch self {
        case .success: nil
        case .cancelled: -999
        case .timedOut: -1001
        case .badServerResponse: -1011
        }
    }
    public var description: String {
        switch self {
        case .success: "success"
        case .cancelled: "cancelled"
        case .timedOut: "timedOut"
        case .badServerResponse: "badServerResponse"
        }
    }
}

/// `URLSessionConfiguration.background(withIdentifier:)` and the fields the system reads.
public struct BackgroundSessionConfiguration: Sendable, Equatable {
    public var identifier: String
    public var isDiscretionary = false
    /// Resume or relaunch the app in the background when the session's transfers finish [D].
    public var sessionSendsLaunchEvents = true
    public var allowsCellularAccess = true
    /// nil: the profile's default (60 s [D]).
    public var timeoutIntervalForRequest: Nanoseconds?
    /// nil: the profile's default (7 days [D]).
    public var timeoutIntervalForResource: Nanoseconds?
    /// A Newsstand download (NKAssetDownload, rules §4): system-managed, needs the
    /// `newsstand-content` mode, wakes the app with cause `newsstand` on each completion.
    public var newsstand = false

    public init(identifier: String) { self.identifier = identifier }
}

/// One transfer the app hands over.
public struct TransferTaskSpec: Sendable, Equatable {
    public var kind: TransferKind
    /// `countOfBytesClientExpectsToReceive` / `…ToSend`: the transfer's size.
    public var bytes: Int64
    /// `earliestBeginDate`, as virtual time.
    public var earliestBegin: Nanoseconds?
    /// Overrides the session's `isDiscretionary` for this task (scenario `download {discretionary}`).
    public var discretionary: Bool?
    public init(kind: TransferKind = .download, bytes: Int64, earliestBegin: Nanoseconds? = nil,
                discretionary: Bool? = nil) {
        self.kind = kind
        self.bytes = bytes
        self.earliestBegin = earliestBegin
        self.discretionary = discretionary
    }
}

/// Why a transfer is not moving now.
enum TransferWait: Sendable, Equatable, Codable {
    case earliestBegin(Nanoseconds)
    case noNetwork
    case cellularNotAllowed
    case needsWiFi
    case needsPower
}

struct TransferTask: Sendable, Codable {
    enum Phase: Sendable, Equatable, Codable { case waiting, running, stalled, finished }
    /// Why a transfer waits for good conditions (it is discretionary).
    enum Discretion: Sendable, Equatable, Codable { case no, configured, startedInBackground }

    var id: Int32
    var app: AppID
    var session: TextID
    var kind: TransferKind
    var bytes: Int64
    var remaining: Int64
    var created: Nanoseconds
    var earliestBegin: Nanoseconds?
    var discretion: Discretion
    var allowsCellular: Bool
    var requestTimeout: Nanoseconds
    var resourceTimeout: Nanoseconds
    var phase: Phase = .waiting
    /// The wait last traced (a `transfer.defer` is recorded when it changes).
    var lastWait: TransferWait?
    /// Since when it has waited for `lastWait`.
    var waitingSince: Nanoseconds?
    var stalledSince: Nanoseconds?
    var retryNoted = false
    var result: TransferResult?
    /// The process lifetime (epoch) to which the result has been handed, if any.
    var queuedEpoch: UInt32?
    /// The app's delegate has it: the daemon forgets the task at its next review.
    var delivered = false
}

enum TransferMath {
    /// a·b/c in full width, rounded down or up; saturates at Int64.max.
    static func mulDiv(_ a: Int64, _ b: Int64, _ c: Int64, roundUp: Bool) -> Int64 {
        precondition(a >= 0 && b >= 0 && c > 0, "transfer arithmetic is on non-negative values")
        let product = UInt64(a).multipliedFullWidth(by: UInt64(b))
        guard product.high < UInt64(c) else { return .max }
        let (q, r) = UInt64(c).dividingFullWidth(product)
        let rounded = roundUp && r > 0 ? q + 1 : q
        return rounded > UInt64(Int64.max) ? .max : Int64(rounded)
    }
}

/// A transfer's trace line whose words are its own: the engine interns the
/// words as it writes the line (`Effect.transferNote`).
enum TransferNote: Sendable, Equatable {
    case hold(session: TextID, reason: String)
    /// `oneOff`: words that rarely repeat (kept without hashing them for reuse).
    case cancel(session: TextID, reason: String, oneOff: Bool)
    case fail(session: TextID, task: Int32, result: TransferResult, reason: String)
    case deferred(session: TextID, task: Int32, reason: String)
    case retry(session: TextID, task: Int32, reason: String)
}

extension TransferController {
    /// Why a transfer waits, in words (`transfer.defer`, `explain`).
    static func describe(_ wait: TransferWait, _ t: TransferTask, wallClockOffset: Nanoseconds) -> String {
        let why = t.discretion == .configured ? "a discretionary transfer (isDiscretionary)"
            : "a transfer started while the app was in the background (discretionary)"
        switch wait {
        case let .earliestBegin(at): return "earliestBeginDate is \(Time.wallClock(at + wallClockOffset))"
        case .noNetwork: return "no network connectivity"
        case .cellularNotAllowed: return "on cellular and allowsCellularAccess is false"
        case .needsWiFi: return "\(why) waits for Wi-Fi"
        case .needsPower: return "\(why) waits for external power"
        }
    }
}
