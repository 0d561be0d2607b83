import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download attempt's response, read as URLSession hands it over: the
/// head decides whether the body is wanted and where it goes, each piece of
/// the body is appended to the partial file, and the end is judged. Its
/// callbacks come one at a time on the session's serial delegate queue.
final class DownloadAttempt: ResponseReader, @unchecked Sendable {
    private(set) var request: DownloadRequest
    private var offset: Int64
    private var total: Int64?
    private var handle: FileHandle?
    /// Decided before the body ended (a status that says no, a write that failed): the attempt's outcome.
    private var decided: DownloadOutcome?
    /// The server says every byte is here already (416 at the expected length).
    private var alreadyWhole = false

    init(_ request: DownloadRequest, offset: Int64) {
        self.request = request
        self.offset = offset
        total = request.expectedLength
    }

    /// The response's head: whether its body is wanted.
    func received(_ response: URLResponse) -> Bool {
        guard let response = response as? HTTPURLResponse else {
            decided = .failed(reason: "not an HTTP response", retryable: true, offset: offset)
            return false
        }
        // RFC 9530's digest of the whole file (a range's too): checked when the app gave none.
        if request.sha256 == nil, let digest = ReprDigest.sha256(response.value(forHTTPHeaderField: "Repr-Digest") ?? "") {
            request.sha256 = digest
        }
        switch response.statusCode {
        case 200:
            // The server ignored the range (or there was none): the body is the whole file.
            offset = 0
            if let length = response.value(forHTTPHeaderField: "Content-Length").flatMap(Int64.init) { total = total ?? length }
        case 206:
            guard let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range") ?? ""), range.first == offset else {
                try? FileManager.default.removeItem(atPath: request.partialPath)
                decided = .failed(reason: "the server answered another range than bytes=\(offset)-", retryable: true, offset: 0)
                return false
            }
            total = total ?? range.total
        case 416 where offset > 0 && offset == request.expectedLength:
            // All the bytes were here already (the previous attempt ended after the last one).
            alreadyWhole = true
            return false
        case let code:
            if code == 416 { try? FileManager.default.removeItem(atPath: request.partialPath) }
            // Server errors and throttling pass; a missing or forbidden file does not.
            let retryable = code >= 500 || code == 408 || code == 429 || code == 416
            decided = .failed(reason: "HTTP \(code)", retryable: retryable, offset: code == 416 ? 0 : offset)
            return false
        }
        guard let handle = FileHandle(forWritingAtPath: request.partialPath) else {
            decided = .failed(reason: "cannot write \(request.partialPath)", retryable: false, offset: offset)
            return false
        }
        do {
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seek(toOffset: UInt64(offset))
        } catch {
            try? handle.close()
            decided = .failed(reason: "cannot write \(request.partialPath): \(error)", retryable: false, offset: offset)
            return false
        }
        self.handle = handle
        return true
    }

    /// A piece of the body: whether the attempt goes on.
    func received(_ data: Data) -> Bool {
        guard let handle, decided == nil else { return false }
        do {
            try handle.write(contentsOf: data)
            offset += Int64(data.count)
            return true
        } catch {
            decided = .failed(reason: "cannot write \(request.partialPath): \(error)", retryable: true,
                              offset: ResumableDownloader.offset(of: request))
            return false
        }
    }

    /// How the attempt ended, once URLSession says the task is over (`error`: how, if it did not end well).
    func outcome(_ error: (any Error)?, downloader: ResumableDownloader) -> DownloadOutcome {
        if let handle {
            try? handle.synchronize()
            try? handle.close()
        }
        if let decided { return decided }
        if alreadyWhole { return downloader.finish(request, length: offset) }
        if let error {
            return .failed(reason: Self.describe(error), retryable: true, offset: ResumableDownloader.offset(of: request))
        }
        if let total, offset != total {
            return .failed(reason: "the body ended at \(offset) of \(total) bytes", retryable: true, offset: offset)
        }
        return downloader.finish(request, length: offset)
    }

    /// A failed request's reason in words, with URLSession's code (as the app's `NSURLError…` would name it).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "\(error)" }
        let what: String = switch error.code {
        case .timedOut: "no byte within timeoutIntervalForRequest"
        case .networkConnectionLost: "the connection was lost"
        case .cannotConnectToHost: "cannot connect to the host"
        case .cannotFindHost: "cannot find the host"
        case .notConnectedToInternet: "not connected"
        case .cancelled: "cancelled"
        default: "the request failed"
        }
        return "\(what) (NSURLErrorDomain \(error.code.rawValue))"
    }
}

/// What reads a task's response as it arrives (on the session's delegate queue).
protocol ResponseReader: AnyObject, Sendable {
    /// The response's head: whether its body is wanted.
    func received(_ response: URLResponse) -> Bool
    /// A piece of the body: whether the task goes on.
    func received(_ data: Data) -> Bool
}

/// The session's delegate: hands each task's callbacks to its reader, and
/// resumes the attempt's caller when the task ends (cancelling the caller's
/// Swift task cancels the URLSession task).
final class AttemptRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var running: [Int: (reader: any ResponseReader, ended: CheckedContinuation<(any Error)?, Never>)] = [:]

    /// Runs the task to its end; returns URLSession's error, if any.
    func run(_ task: URLSessionDataTask, _ reader: any ResponseReader) async -> (any Error)? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.withLock { running[task.taskIdentifier] = (reader, continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    private func reader(_ task: URLSessionTask) -> (any ResponseReader)? {
        lock.withLock { running[task.taskIdentifier]?.reader }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        completionHandler(reader(dataTask)?.received(response) == true ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if reader(dataTask)?.received(data) != true { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { running.removeValue(forKey: task.taskIdentifier) }?.ended.resume(returning: error)
    }
}
