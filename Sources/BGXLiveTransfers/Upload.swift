import BGXLive
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A background upload: the file's bytes as the request's body (iOS's
/// background sessions upload only from a file), with the app's method and
/// headers. An upload that is cut short starts again from its first byte.
public struct UploadRequest: Sendable, Equatable {
    public var url: String
    public var method: String
    public var headers: [String: String]
    public var file: String
    /// Whose rights the file is opened with (the app's user and group); nil: this process's.
    public var readAs: (uid: UInt32, gid: UInt32)?

    public static func == (a: UploadRequest, b: UploadRequest) -> Bool {
        a.url == b.url && a.method == b.method && a.headers == b.headers && a.file == b.file
            && a.readAs?.uid == b.readAs?.uid && a.readAs?.gid == b.readAs?.gid
    }

    public init(url: String, method: String = "POST", headers: [String: String] = [:], file: String,
                readAs: (uid: UInt32, gid: UInt32)? = nil) {
        self.readAs = readAs
        self.url = url
        self.method = method
        self.headers = headers
        self.file = file
    }
}

extension ResumableDownloader {
    /// One attempt at an upload.
    public func upload(_ request: UploadRequest) async -> DownloadOutcome {
        let data: Data
        switch UploadFile.contents(request.file, as: request.readAs) {
        case let .success(bytes): data = bytes
        case let .failure(error): return .failed(reason: error.description, retryable: false, offset: 0)
        }
        guard let url = URL(string: request.url), url.scheme == "http" || url.scheme == "https" else {
            return .failed(reason: "not an http or https URL: \(request.url)", retryable: false, offset: 0)
        }
        var http = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: stallTimeout)
        http.httpMethod = request.method
        for (name, value) in request.headers where name.lowercased() != "content-length" {
            http.addValue(value, forHTTPHeaderField: name)
        }
        let answer = UploadAnswer()
        let error = await router.run(session.uploadTask(with: http, from: data), answer)
        let code = answer.status
        if let error { return .failed(reason: DownloadAttempt.describe(error), retryable: true, offset: 0) }
        if (200..<300).contains(code) { return .finished(length: Int64(data.count), sha256: Self.sha256(of: data)) }
        let retryable = code >= 500 || code == 408 || code == 429
        return .failed(reason: "HTTP \(code)", retryable: retryable, offset: 0)
    }
}

/// An upload's answer: its status; its body is read to its end and dropped (the
/// connection is then free for the next request).
final class UploadAnswer: ResponseReader, @unchecked Sendable {
    private(set) var status = 0

    func received(_ response: URLResponse) -> Bool {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return true
    }

    func received(_ data: Data) -> Bool { true }
}
