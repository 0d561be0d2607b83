import Foundation
import Glibc

/// One background transfer as the live host moves it: the app's request and
/// where the bytes go (a download) or come from (an upload).
public struct LiveTransfer: Sendable, Equatable, Codable {
    /// The engine's task identifier.
    public var task: Int32
    public var app: String
    public var session: String
    public var isUpload: Bool
    public var url: String
    public var method: String
    public var headers: [String: String]
    /// An upload's body.
    public var file: String?
    /// Where a download's verified file goes (its bytes so far are in `partialPath`).
    public var destination: String
    /// A download's bytes so far, kept for the next attempt's `Range` (`DownloadRequest`'s too).
    public var partialPath: String { destination + ".partial" }
    /// The length the app said to expect; nil: the server's word.
    public var expectedLength: Int64?
    /// Seconds without a byte before an attempt is given up (the session's `timeoutIntervalForRequest`).
    public var requestTimeout: Double
    /// The app's user and group, when it has its own: an upload's file is opened with their
    /// rights, never the daemon's (else an app could send the server any file root can read).
    public var readAsUser: UInt32?
    public var readAsGroup: UInt32?

    public init(task: Int32, app: String, session: String, isUpload: Bool, url: String, method: String,
                headers: [String: String], file: String?, destination: String, expectedLength: Int64?,
                requestTimeout: Double = 60, readAsUser: UInt32? = nil, readAsGroup: UInt32? = nil) {
        self.requestTimeout = requestTimeout
        self.readAsUser = readAsUser
        self.readAsGroup = readAsGroup
        self.task = task
        self.app = app
        self.session = session
        self.isUpload = isUpload
        self.url = url
        self.method = method
        self.headers = headers
        self.file = file
        self.destination = destination
        self.expectedLength = expectedLength
    }
}

/// How one attempt at a transfer ended.
public enum TransferAttemptOutcome: Sendable, Equatable, Codable {
    /// Every byte moved (a download's length and checksum verified, its file in place).
    case finished(detail: String)
    /// Cut short; another attempt may mend it (resuming from `offset` bytes).
    case retry(reason: String, offset: Int64)
    /// The server's answer cannot be used; retrying cannot help.
    case failed(reason: String)
}

/// What an attempt reports as it starts (the offset it resumes from) and as it ends.
public enum TransferAttemptReport: Sendable, Equatable, Codable {
    case began(task: Int32, offset: Int64)
    case ended(task: Int32, TransferAttemptOutcome)
}

/// Moves real bytes for the live host (in bgx-daemon, `TransferProcessMover`:
/// BGXLiveTransfers' URLSession mover in a process of its own): attempts run
/// off the daemon's thread and report back through `report`, which may be
/// called from any thread.
public protocol TransferMover: AnyObject, Sendable {
    func start(_ transfer: LiveTransfer, report: @escaping @Sendable (TransferAttemptReport) -> Void)
    /// Stops an attempt (the engine no longer lets it run); it reports nothing more.
    func stop(_ task: Int32)
    /// The daemon is stopping: every attempt ends and the connections close.
    func shutdown()
}

/// Reports from the mover's threads to the daemon's one thread: kept under a
/// lock, and a byte written to a pipe the daemon's `ppoll` watches.
final class TransferInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [TransferAttemptReport] = []
    let readFD: Int32
    private let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    func post(_ report: TransferAttemptReport) {
        lock.withLock { reports.append(report) }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Everything posted so far, in order.
    func take() -> [TransferAttemptReport] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readFD, &sink, sink.count) > 0 {}
        return lock.withLock {
            defer { reports.removeAll() }
            return reports
        }
    }
}
