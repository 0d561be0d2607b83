import AsyncHTTPClient
import Foundation
import NIOCore

/// A background upload: the file's bytes as the request's body (iOS's
/// background sessions upload only from a file), with the app's method and
/// headers. An upload that is cut short starts again from its first byte.
public struct UploadRequest: Sendable, Equatable {
    public var url: String
    public var method: String
    public var headers: [String: String]
    public var file: String

    public init(url: String, method: String = "POST", headers: [String: String] = [:], file: String) {
        self.url = url
        self.method = method
        self.headers = headers
        self.file = file
    }
}

extension ResumableDownloader {
    /// One attempt at an upload.
    public func upload(_ request: UploadRequest) async -> DownloadOutcome {
        guard let data = FileManager.default.contents(atPath: request.file) else {
            return .failed(reason: "cannot read \(request.file)", retryable: false, offset: 0)
        }
        var http = HTTPClientRequest(url: request.url)
        http.method = .init(rawValue: request.method)
        for (name, value) in request.headers where name.lowercased() != "content-length" {
            http.headers.add(name: name, value: value)
        }
        http.body = .bytes(ByteBuffer(bytes: data))
        do {
            let response = try await client.execute(http, timeout: .hours(24 * 7))
            // The server's answer is read to its end (the connection is then free for the next request).
            _ = try await response.body.collect(upTo: 1 << 20)
            let code = Int(response.status.code)
            if (200..<300).contains(code) { return .finished(length: Int64(data.count), sha256: Self.sha256(of: data)) }
            let retryable = code >= 500 || code == 408 || code == 429
            return .failed(reason: "HTTP \(code)", retryable: retryable, offset: 0)
        } catch {
            return .failed(reason: "\(error)", retryable: true, offset: 0)
        }
    }
}
