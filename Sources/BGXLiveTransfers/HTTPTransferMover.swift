import BGXLive
import Foundation

/// The live host's transfer mover: each attempt a Swift task over
/// the system's URLSession, over real TCP. A download resumes from the
/// bytes kept on disk with HTTP `Range` and is verified before it is reported
/// finished; an upload sends its file. One client per request timeout (the
/// session's `timeoutIntervalForRequest` is how long a connection may be
/// silent before the attempt is given up).
public final class HTTPTransferMover: TransferMover, @unchecked Sendable {
    private let lock = NSLock()
    private var attempts: [Int32: Task<Void, Never>] = [:]
    private var clients: [Int64: ResumableDownloader] = [:]

    public init() {}

    func client(timeout seconds: Double) -> ResumableDownloader {
        let ms = Int64(max(0.1, min(seconds, 7 * 24 * 3600)) * 1000)
        return lock.withLock {
            if let c = clients[ms] { return c }
            let c = ResumableDownloader(stallTimeout: Double(ms) / 1000)
            clients[ms] = c
            return c
        }
    }

    public func start(_ transfer: LiveTransfer, report: @escaping @Sendable (TransferAttemptReport) -> Void) {
        let client = client(timeout: transfer.requestTimeout)
        let task = Task {
            let outcome: DownloadOutcome
            if transfer.isUpload {
                report(.began(task: transfer.task, offset: 0))
                outcome = await client.upload(UploadRequest(url: transfer.url, method: transfer.method,
                                                            headers: transfer.headers, file: transfer.file ?? "",
                                                            readAs: transfer.readAsUser.map { ($0, transfer.readAsGroup ?? $0) }))
            } else {
                let request = DownloadRequest(url: transfer.url, destination: transfer.destination,
                                              expectedLength: transfer.expectedLength, headers: transfer.headers)
                report(.began(task: transfer.task, offset: ResumableDownloader.offset(of: request)))
                outcome = await client.attempt(request)
            }
            guard !Task.isCancelled else { return }
            switch outcome {
            case let .finished(length, sha256):
                report(.ended(task: transfer.task, .finished(detail: "\(length) bytes, sha-256 \(sha256)")))
            case let .failed(reason, retryable, offset):
                report(.ended(task: transfer.task, retryable ? .retry(reason: reason, offset: offset) : .failed(reason: reason)))
            }
        }
        lock.withLock { attempts[transfer.task] = task }
    }

    public func stop(_ task: Int32) {
        lock.withLock { attempts.removeValue(forKey: task) }?.cancel()
    }

    public func shutdown() {
        let (running, made) = lock.withLock {
            defer { attempts.removeAll(); clients.removeAll() }
            return (Array(attempts.values), Array(clients.values))
        }
        running.forEach { $0.cancel() }
        made.forEach { $0.shutdownNow() }
    }
}
