import BGXCore
import Foundation

/// Background `URLSession`s (rules §8), named as in Foundation. Transfers
/// belong to the system: they go on while the app is suspended or terminated
/// by the system, and their results reach the delegate of the session object
/// the app (re)creates with the same identifier.

/// `URLSessionConfiguration`, for background sessions.
public final class URLSessionConfiguration {
    public let identifier: String?
    /// Let the system start the transfers at a good moment (Wi-Fi and power).
    public var isDiscretionary = false
    /// Resume or relaunch the app in the background when the session's transfers finish.
    public var sessionSendsLaunchEvents = true
    public var allowsCellularAccess = true
    /// Seconds without data before a request times out (the system retries it).
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// Seconds a transfer may take in all before it fails (NSURLErrorTimedOut).
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// Kept for the app: a background session waits for connectivity
    /// whatever it says, as on iOS (the system retries until the resource timeout).
    public var waitsForConnectivity = false
    /// Newsstand issue downloads (NKAssetDownload) need `newsstand-content`.
    var newsstand = false

    init(identifier: String?) { self.identifier = identifier }

    public static func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        URLSessionConfiguration(identifier: identifier)
    }

    /// A Newsstand download session (NKLibrary's asset downloads, rules §4).
    public static func newsstand(withIdentifier identifier: String) -> URLSessionConfiguration {
        let c = URLSessionConfiguration(identifier: identifier)
        c.newsstand = true
        return c
    }

    /// What the system reads of it.
    public var systemConfiguration: BackgroundSessionConfiguration {
        var c = BackgroundSessionConfiguration(identifier: identifier ?? "")
        c.isDiscretionary = isDiscretionary
        c.sessionSendsLaunchEvents = sessionSendsLaunchEvents
        c.allowsCellularAccess = allowsCellularAccess
        c.timeoutIntervalForRequest = Time.seconds(clamping: timeoutIntervalForRequest)
        c.timeoutIntervalForResource = Time.seconds(clamping: timeoutIntervalForResource)
        c.newsstand = newsstand
        return c
    }
}

/// The error a failed transfer completes with (`NSURLErrorDomain` codes).
public struct URLSessionTaskError: Error, Equatable, CustomStringConvertible {
    public let code: Int
    /// NSURLErrorCancelled: the user force-quit the app, or the task was cancelled.
    public static let cancelled = -999
    /// NSURLErrorTimedOut: `timeoutIntervalForResource` elapsed.
    public static let timedOut = -1001
    public init(code: Int) { self.code = code }
    public var description: String { "NSURLErrorDomain Code=\(code)" }
}

/// `URLSessionDelegate` with the task and download methods (`URLSessionTaskDelegate`,
/// `URLSessionDownloadDelegate`). Every method has a default that does nothing.
public protocol URLSessionDelegate: AnyObject {
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)
    /// A download's progress. A background session reports it once, with the
    /// whole size, right before `didFinishDownloadingTo` (the app was not
    /// running while the bytes came in).
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    /// An upload's progress, likewise once, before `didCompleteWithError`.
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?)
    /// Every event enqueued for the session has been delivered: call the stored
    /// `handleEventsForBackgroundURLSession` completion handler now.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)
}
public typealias URLSessionTaskDelegate = URLSessionDelegate
public typealias URLSessionDownloadDelegate = URLSessionDelegate

extension URLSessionDelegate {
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                           didFinishDownloadingTo location: URL) {}
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                           totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {}
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}
}

/// `URLSession` with a background configuration.
public final class URLSession {
    public let configuration: URLSessionConfiguration
    public let delegate: URLSessionDelegate?
    /// The queue the app asked for. bgx calls the delegate on the process's
    /// main thread whatever it is (one job at a time, so the order is the same).
    public let delegateQueue: OperationQueue
    public var sessionDescription: String?
    let connection: SystemConnection
    /// By the system's transfer task.
    var tasks: [Int32: URLSessionTask] = [:]

    /// Creates (or, in a relaunched app, recreates) the session: the system
    /// reconnects it to its transfers by identifier and delivers what waited.
    public init(configuration: URLSessionConfiguration, delegate: URLSessionDelegate?, delegateQueue: OperationQueue?) {
        self.configuration = configuration
        self.delegate = delegate
        self.delegateQueue = delegateQueue ?? OperationQueue()
        self.connection = Application.shared.connection
        connection.attach(self)
    }

    public convenience init(configuration: URLSessionConfiguration, delegate: URLSessionDelegate?) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    public func downloadTask(with url: URL) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }
    public func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        URLSessionDownloadTask(session: self, request: request, kind: .download)
    }
    /// A background upload is always from a file (iOS refuses data and
    /// streams in background sessions); the file's size is what is sent.
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        let task = URLSessionUploadTask(session: self, request: request, kind: .upload)
        task.uploadFile = fileURL
        let size = (try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.size]) as? NSNumber
        if let size { task.countOfBytesClientExpectsToSend = size.int64Value }
        return task
    }

    /// The session's transfers the system still runs.
    public func getAllTasks(completionHandler: @escaping ([URLSessionTask]) -> Void) {
        let pending = connection.pendingTransfers(session: configuration.identifier ?? "")
        completionHandler(pending.map { entry in
            let task = self.task(id: Int(entry.task), kind: entry.kind)
            task.countOfBytesExpectedToTransfer = entry.bytes
            task.countOfBytesTransferred = entry.bytes - entry.remaining
            return task
        })
    }

    /// The task object for a system task (made anew in a relaunched process,
    /// with the identifier and description the system kept).
    public func task(id: Int, kind: TransferKind) -> URLSessionTask {
        let systemID = Int32(truncatingIfNeeded: id)
        if let existing = tasks[systemID] { return existing }
        let kept = connection.rememberedTransfer(systemID)
        let task: URLSessionTask = kind == .download
            ? URLSessionDownloadTask(session: self, request: nil, kind: kind, taskIdentifier: kept?.taskIdentifier ?? id)
            : URLSessionUploadTask(session: self, request: nil, kind: kind, taskIdentifier: kept?.taskIdentifier ?? id)
        task.systemID = systemID
        task.describe(kept?.description)
        if let kept { task.countOfBytesExpectedToTransfer = kept.bytes }
        task.state = .running
        tasks[systemID] = task
        return task
    }

    /// Hands a finished task's result to the delegate, as Foundation does.
    public func deliver(task id: Int, kind: TransferKind, result: TransferResult) {
        let task = self.task(id: id, kind: kind)
        task.state = .completed
        tasks[Int32(truncatingIfNeeded: id)] = nil
        let bytes = max(0, task.countOfBytesExpectedToTransfer)
        if result == .success {
            task.countOfBytesTransferred = bytes
            if let download = task as? URLSessionDownloadTask {
                delegate?.urlSession(self, downloadTask: download, didWriteData: bytes, totalBytesWritten: bytes,
                                     totalBytesExpectedToWrite: bytes)
                deliverDownloadedFile(download, bytes: bytes)
            } else {
                delegate?.urlSession(self, task: task, didSendBodyData: bytes, totalBytesSent: bytes,
                                     totalBytesExpectedToSend: bytes)
            }
        }
        delegate?.urlSession(self, task: task, didCompleteWithError: result.errorCode.map(URLSessionTaskError.init))
    }

    /// A real file of the transfer's size (its content is not simulated: zeros)
    /// at `didFinishDownloadingTo`'s location; as on iOS it is gone once the
    /// delegate returns, so the app must move it before then.
    private func deliverDownloadedFile(_ task: URLSessionDownloadTask, bytes: Int64) {
        if let systemID = task.systemID, let real = connection.downloadedFile(task: systemID) {
            // The host moved real bytes (verified before the app gets them): that file, gone after the delegate returns.
            delegate?.urlSession(self, downloadTask: task, didFinishDownloadingTo: real)
            try? FileManager.default.removeItem(at: real)
            return
        }
        let location = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("CFNetworkDownload_\(ProcessInfo.processInfo.processIdentifier)_"
                                    + "\(ObjectIdentifier(self).hashValue)_\(task.taskIdentifier).tmp")
        let made = FileManager.default.createFile(atPath: location.path, contents: nil)
        if made, let handle = try? FileHandle(forWritingTo: location) {
            try? handle.truncate(atOffset: UInt64(bytes))
            try? handle.close()
        }
        delegate?.urlSession(self, downloadTask: task, didFinishDownloadingTo: location)
        try? FileManager.default.removeItem(at: location)
    }
}

/// `URLSessionTask`.
public class URLSessionTask {
    public enum State: Sendable, Equatable { case running, suspended, canceling, completed }
    /// Handed out when the task is created, counting up within its session
    /// (across the app's processes), as on iOS.
    public let taskIdentifier: Int
    /// The app's own label; the system keeps it with the task for the app's next process.
    public var taskDescription: String? {
        didSet { if let systemID { session?.connection.rememberTransfer(systemID, taskIdentifier: taskIdentifier,
                                                                        description: taskDescription,
                                                                        bytes: countOfBytesExpectedToTransfer) } }
    }
    /// The request the task was made with (nil for a task recreated in a relaunched process:
    /// the system keeps the transfer, not the app's request object).
    public let originalRequest: URLRequest?
    /// Background transfers follow no redirects the app could see: the original request.
    public var currentRequest: URLRequest? { originalRequest }
    public var originalURL: URL? { originalRequest?.url }
    public internal(set) var state: State = .suspended
    /// The system's transfer task, once resumed.
    var systemID: Int32?
    /// An upload's body.
    var uploadFile: URL?
    /// Not before this date (virtual time, `Runtime.now`-based).
    public var earliestBeginDate: Date?
    /// The size the system plans for; the simulated network moves exactly this many bytes.
    public var countOfBytesClientExpectsToReceive: Int64 = -1
    public var countOfBytesClientExpectsToSend: Int64 = -1
    public internal(set) var countOfBytesExpectedToTransfer: Int64 = -1
    public internal(set) var countOfBytesTransferred: Int64 = 0
    weak var session: URLSession?
    let kind: TransferKind

    init(session: URLSession, request: URLRequest?, kind: TransferKind, taskIdentifier: Int? = nil) {
        self.session = session
        self.originalRequest = request
        self.kind = kind
        self.taskIdentifier = taskIdentifier
            ?? session.connection.nextTaskIdentifier(session: session.configuration.identifier ?? "")
    }

    /// Sets the description the system kept, without telling the system again.
    func describe(_ description: String?) {
        let systemID = self.systemID
        self.systemID = nil
        taskDescription = description
        self.systemID = systemID
    }

    /// Hands the task to the system.
    public func resume() {
        guard state == .suspended, let session else { return }
        let expected = kind == .download ? countOfBytesClientExpectsToReceive : countOfBytesClientExpectsToSend
        let bytes = expected >= 0 ? expected : URLSessionTask.assumedSize
        let request = originalRequest.flatMap { r in r.url.map {
            TransferRequest(url: $0.absoluteString, method: r.httpMethod ?? (kind == .upload ? "POST" : "GET"),
                            headers: r.allHTTPHeaderFields ?? [:], file: uploadFile?.path)
        } }
        let id = session.connection.startTransfer(
            session: session.configuration.identifier ?? "", kind: kind, bytes: bytes,
            earliestBegin: earliestBeginDate, request: request)
        guard let id else { return }
        systemID = id
        countOfBytesExpectedToTransfer = bytes
        session.connection.rememberTransfer(id, taskIdentifier: taskIdentifier, description: taskDescription, bytes: bytes)
        state = .running
        session.tasks[id] = self
    }

    public func cancel() {
        guard state == .running, let session, let systemID else { return }
        state = .canceling
        session.connection.cancelTransfer(systemID)
    }

    /// A task whose size the app did not state is modelled as 1 MB.
    public static let assumedSize: Int64 = 1024 * 1024
}

public final class URLSessionDownloadTask: URLSessionTask {}
public final class URLSessionUploadTask: URLSessionTask {}
