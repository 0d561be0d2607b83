import AsyncHTTPClient
import BGXDigest
import Foundation
import NIOCore


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

/// Runs download attempts with AsyncHTTPClient over real TCP.
public final class ResumableDownloader: Sendable {
    let client: HTTPClient
    /// With no byte for this long an attempt is given up (a stalled connection), its bytes kept.
    public let stallTimeout: TimeAmount

    public init(stallTimeout: TimeAmount = .seconds(60), connectTimeout: TimeAmount = .seconds(10)) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: connectTimeout, read: stallTimeout)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.stallTimeout = stallTimeout
    }

    public func shutdown() async throws { try await client.shutdown() }
    /// From a thread that is not in Swift concurrency (the daemon's loop).
    public func shutdownNow() { try? client.syncShutdown() }

    /// Bytes already on disk for this download (the offset the next attempt resumes from).
    public static func offset(of request: DownloadRequest) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: request.partialPath))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// One attempt: resumes from the partial file's length, appends what
    /// arrives, and on the end of the body verifies and moves the file.
    public func attempt(_ request: DownloadRequest) async -> DownloadOutcome {
        var request = request
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
        var http = HTTPClientRequest(url: request.url)
        for (name, value) in request.headers where name.lowercased() != "range" { http.headers.add(name: name, value: value) }
        if offset > 0 { http.headers.add(name: "Range", value: "bytes=\(offset)-") }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(http, timeout: .hours(24 * 7))
        } catch {
            return .failed(reason: "\(error)", retryable: true, offset: offset)
        }
        var total = request.expectedLength
        // RFC 9530's digest of the whole file (a range's too): checked when the app gave none.
        if request.sha256 == nil, let digest = ReprDigest.sha256(response.headers.first(name: "Repr-Digest") ?? "") {
            request.sha256 = digest
        }
        switch response.status.code {
        case 200:
            // The server ignored the range (or there was none): the body is the whole file.
            if offset > 0 { offset = 0 }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int64.init) { total = total ?? length }
        case 206:
            guard let range = ContentRange(response.headers.first(name: "Content-Range") ?? ""), range.first == offset else {
                try? FileManager.default.removeItem(atPath: request.partialPath)
                return .failed(reason: "the server answered another range than bytes=\(offset)-", retryable: true, offset: 0)
            }
            total = total ?? range.total
        case 416 where offset > 0 && offset == request.expectedLength:
            // All the bytes were here already (the previous attempt ended after the last one).
            return finish(request, length: offset)
        default:
            let code = Int(response.status.code)
            if code == 416 { try? FileManager.default.removeItem(atPath: request.partialPath) }
            // Server errors and throttling pass; a missing or forbidden file does not.
            let retryable = code >= 500 || code == 408 || code == 429 || code == 416
            return .failed(reason: "HTTP \(code)", retryable: retryable, offset: code == 416 ? 0 : offset)
        }
        guard let handle = FileHandle(forWritingAtPath: request.partialPath) else {
            return .failed(reason: "cannot write \(request.partialPath)", retryable: false, offset: offset)
        }
        defer { try? handle.close() }
        do {
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seek(toOffset: UInt64(offset))
            for try await chunk in response.body {
                try handle.write(contentsOf: Data(chunk.readableBytesView))
                offset += Int64(chunk.readableBytes)
            }
            try handle.synchronize()
        } catch {
            try? handle.synchronize()
            return .failed(reason: "\(error)", retryable: true, offset: Self.offset(of: request))
        }
        if let total, offset != total {
            return .failed(reason: "the body ended at \(offset) of \(total) bytes", retryable: true, offset: offset)
        }
        return finish(request, length: offset)
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
