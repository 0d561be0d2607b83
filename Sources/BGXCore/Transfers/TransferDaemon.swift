/// rules §8: the system's transfer daemon (nsurlsessiond). Transfers belong to
/// it, not to the app: they progress while the app is suspended or terminated
/// by the system. This file is the daemon's own concern — which transfers may
/// run, how fast, and when the next one finishes; `BackgroundSessions.swift`
/// hands the results to the app.
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

extension Engine {
    /// Accounts the progress of running transfers up to now, at the bandwidth
    /// that held since the last settlement. Call before anything changes the
    /// set of running transfers or the bandwidth.
    mutating func settleTransfers() {
        transfers.settle(now: now, network: device.network, bandwidth: device.bandwidth)
    }

    /// What keeps a transfer from running now, if anything.
    func transferWait(_ t: TransferTask) -> TransferWait? {
        TransferController.wait(t, now: now, device: device, settings: profile.transfers)
    }

    func describe(_ wait: TransferWait, _ t: TransferTask) -> String {
        let why = t.discretion == .configured ? "a discretionary transfer (isDiscretionary)"
            : "a transfer started while the app was in the background (discretionary)"
        switch wait {
        case let .earliestBegin(at): return "earliestBeginDate is \(clockText(at))"
        case .noNetwork: return "no network connectivity"
        case .cellularNotAllowed: return "on cellular and allowsCellularAccess is false"
        case .needsWiFi: return "\(why) waits for Wi-Fi"
        case .needsPower: return "\(why) waits for external power"
        }
    }

    /// The daemon looks at every transfer: finishes what is done, fails what
    /// timed out, starts what may run, and schedules its next look.
    mutating func reviewTransfers() {
        settleTransfers()
        transfers.tasks.removeAll { $0.delivered }
        var t = 0
        while t < transfers.tasks.count {
            let task = transfers.tasks[t]
            if task.phase == .running && task.remaining == 0 {
                finishTransfer(at: t, .success, reason: nil)
            } else if task.phase != .finished && now >= task.created + task.resourceTimeout {
                finishTransfer(at: t, .timedOut, reason: "timeoutIntervalForResource ("
                               + Time.describe(task.resourceTimeout) + ") elapsed before the transfer finished")
            }
            t += 1
        }
        for t in transfers.tasks.indices where transfers.tasks[t].phase != .finished {
            updatePhase(t)
        }
        scheduleTransferReview()
    }

    mutating func updatePhase(_ t: Int) {
        let task = transfers.tasks[t]
        let wait = transferWait(task)
        switch (wait, task.phase) {
        case (nil, .running):
            break
        case (nil, _):
            transfers.tasks[t].phase = .running
            transfers.tasks[t].lastWait = nil
            transfers.tasks[t].stalledSince = nil
            transfers.tasks[t].retryNoted = false
            record(task.app, .transferStart(session: task.session, task: task.id, bytesLeft: task.remaining))
        case (.noNetwork?, .running), (.noNetwork?, .stalled):
            if task.phase == .running {
                transfers.tasks[t].phase = .stalled
                transfers.tasks[t].stalledSince = now
            }
            noteWait(t, .noNetwork)
        case let (w?, _):
            transfers.tasks[t].phase = .waiting
            transfers.tasks[t].stalledSince = nil
            noteWait(t, w)
        }
        let current = transfers.tasks[t]
        if current.phase == .stalled, !current.retryNoted, let since = current.stalledSince,
           now >= since + current.requestTimeout {
            transfers.tasks[t].retryNoted = true
            record(current.app, .transferRetry(session: current.session, task: current.id, reason: appendText(
                "the request timed out after \(Time.describe(current.requestTimeout)) without connectivity "
                + "(timeoutIntervalForRequest); the daemon retries it when the network returns")))
        }
    }

    mutating func noteWait(_ t: Int, _ wait: TransferWait) {
        let task = transfers.tasks[t]
        guard task.lastWait != wait else { return }
        transfers.tasks[t].lastWait = wait
        transfers.tasks[t].waitingSince = now
        record(task.app, .transferDefer(session: task.session, task: task.id, reason: appendText(describe(wait, task))))
    }

    /// Keeps one daemon event in the queue, at the earliest moment time alone
    /// changes something: a completion, an earliest begin date, a timeout.
    mutating func scheduleTransferReview() {
        if let review = transfers.scheduleReview(now: now, bandwidth: device.bandwidth) { apply(review) }
    }

    mutating func transferReviewFired(generation: UInt32) {
        if transfers.takeReview(generation: generation) { reviewTransfers() }
    }


    /// Where the daemon keeps a transfer, by its id.
    func transferIndex(_ id: Int32) -> Int? { transfers.tasks.firstIndex { $0.id == id } }
}
