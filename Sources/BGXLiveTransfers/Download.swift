import BGXDigest
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download a background session hands to the system: the bytes go to
/// `destination + ".partial"` as they arrive, so an attempt cut short — a
/// dropped connection, a stall, the daemon killed — leaves its offset on
/// disk, and the next attempt asks only for the rest (HTTP `Range`). The app
/// gets `destination` only once its length and checksum are verified.
public struct DownloadRequest: Sendable, Equatable, Codable {
    public var url: String
    public var destination: String
    /// The length the file must have (`countOfBytesClientExpectsToReceive`); nil: the server's word.
    public var expectedLength: Int64?
    /// The SHA-256 the file must have, in lowercase hex; nil: computed and reported, not checked.
    public var sha256: String?
    /// The app's request headers, sent with every attempt.
    public var headers: [String: String] = [:]

    public init(url: String, destination: String, expectedLength: Int64? = nil, sha256: String? = nil,
                headers: [String: String] = [:]) {
        self.headers = headers
        self.url = url
        self.destination = destination
        self.expectedLength = expectedLength
        self.sha256 = sha256
    }

    public var partialPath: String { destination + ".partial" }
}

/// How one attempt ended.
public enum DownloadOutcome: Sendable, Equatable {
    /// Verified and moved to its destination.
    case finished(length: Int64, sha256: String)
    /// Not finished: `offset` bytes are kept for the next attempt (0: start
    /// again). `retryable` false means another attempt cannot help (a 404, a
    /// file that does not verify).
    case failed(reason: String, retryable: Bool, offset: Int64)
}

/// Runs download attempts with the system's URLSession (FoundationNetworking,
/// libcurl underneath) over real TCP, each response's body streamed to the
/// partial file as it arrives.
public final class ResumableDownloader: Sendable {
    let session: URLSession
    let router: AttemptRouter
    /// With no byte for this long an attempt is given up (a stalled connection), its bytes kept:
    /// URLSession's `timeoutIntervalForRequest`, an idle time as on iOS, not the whole response's.
    public let stallTimeout: TimeInterval

    public init(stallTimeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = stallTimeout
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        // The bytes go to the partial file, never to a cache; no cookies kept between attempts.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        router = AttemptRouter()
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
        self.stallTimeout = stallTimeout
    }

    public func shutdown() async { session.invalidateAndCancel() }
    /// From a thread that is not in Swift concurrency (the daemon's loop).
    public func shutdownNow() { session.invalidateAndCancel() }

    /// Bytes already on disk for this download (the offset the next attempt resumes from).
    public static func offset(of request: DownloadRequest) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: request.partialPath))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// One attempt: resumes from the partial file's length, appends what
    /// arrives, and on the end of the body verifies and moves the file.
    public func attempt(_ request: DownloadRequest) async -> DownloadOutcome {
        if access(request.destination, F_OK) == 0, access(request.partialPath, F_OK) != 0 {
            // An earlier attempt verified and moved the file, and its end was not heard (the daemon died).
            let length = ((try? FileManager.default.attributesOfItem(atPath: request.destination))?[.size] as? NSNumber)?.int64Value ?? 0
            if let digest = Self.sha256(ofFile: request.destination), request.expectedLength.map({ $0 == length }) ?? true,
               request.sha256.map({ $0.lowercased() == digest }) ?? true {
                return .finished(length: length, sha256: digest)
            }
            try? FileManager.default.removeItem(atPath: request.destination)
        }
        var offset = Self.offset(of: request)
        if let expected = request.expectedLength, offset > expected {
            // More than the file can hold: not the same file; start again.
            try? FileManager.default.removeItem(atPath: request.partialPath)
            offset = 0
        }
        if offset == 0, !FileManager.default.createFile(atPath: request.partialPath, contents: nil) {
            return .failed(reason: "cannot create \(request.partialPath)", retryable: false, offset: 0)
        }
        guard let url = URL(string: request.url), url.scheme == "http" || url.scheme == "https" else {
            return .failed(reason: "not an http or https URL: \(request.url)", retryable: false, offset: offset)
        }
        var http = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: stallTimeout)
        for (name, value) in request.headers where name.lowercased() != "range" { http.addValue(value, forHTTPHeaderField: name) }
        if offset > 0 { http.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        let attempt = DownloadAttempt(request, offset: offset)
        let ended = await router.run(session.dataTask(with: http), attempt)
        return attempt.outcome(ended, downloader: self)
    }

    /// Verifies length and checksum, then moves the file where the app will look for it.
    func finish(_ request: DownloadRequest, length: Int64) -> DownloadOutcome {
        guard let digest = Self.sha256(ofFile: request.partialPath) else {
            return .failed(reason: "cannot read \(request.partialPath)", retryable: true, offset: 0)
        }
        if let expected = request.expectedLength, expected != length {
            try? FileManager.default.removeItem(atPath: request.partialPath)
            return .failed(reason: "\(length) bytes, not the \(expected) expected", retryable: true, offset: 0)
        }
        if let expected = request.sha256, expected.lowercased() != digest {
            try? FileManager.default.removeItem(atPath: request.partialPath)
            return .failed(reason: "checksum \(digest), not \(expected)", retryable: false, offset: 0)
        }
        guard rename(request.partialPath, request.destination) == 0 else {
            return .failed(reason: "cannot move the file to \(request.destination)", retryable: false, offset: length)
        }
        return .finished(length: length, sha256: digest)
    }

    /// SHA-256 of bytes in memory, as lowercase hex.
    public static func sha256(of data: Data) -> String {
        SHA256.hex(of: data)
    }

    /// SHA-256 of a file, read in pieces, as lowercase hex.
    public static func sha256(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
        return hasher.finalize().hexString
    }
}

/// `Repr-Digest: sha-256=:BASE64:` (RFC 9530), as lowercase hex.
enum ReprDigest {
    static func sha256(_ header: String) -> String? {
        for member in header.split(separator: ",") {
            let parts = member.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "sha-256" else { continue }
            let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            guard let bytes = Data(base64Encoded: value), bytes.count == 32 else { return nil }
            return Array(bytes).hexString
        }
        return nil
    }
}

/// `Content-Range: bytes FIRST-LAST/TOTAL`.
struct ContentRange {
    var first: Int64
    var last: Int64
    var total: Int64?

    init?(_ header: String) {
        guard header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-") ?? []
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]) else { return nil }
        self.first = first
        self.last = last
        total = parts.count == 2 ? Int64(parts[1]) : nil
    }
}
