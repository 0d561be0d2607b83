import BGXLiveTransfers
import Foundation
import Testing

/// Background downloads with real bytes over real TCP: resumed with `Range`
/// from the bytes already on disk, verified (length and SHA-256) before the
/// app gets the file.
@Suite("real background downloads", .serialized)
struct DownloadTests {
    static func destination() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-dl-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/file.bin"
    }

    /// `stall`: how long a silent connection is waited for (long, but for the stall test: a
    /// loaded machine can pause a healthy transfer for a while).
    func withServer(stall: TimeInterval = 20, _ body: (TransferServer, ResumableDownloader) async throws -> Void) async throws {
        let server = try TransferServer()
        let downloader = ResumableDownloader(stallTimeout: stall)
        do { try await body(server, downloader) } catch { await downloader.shutdown(); throw error }
        await downloader.shutdown()
    }

    /// Attempts until one finishes or cannot be helped, as the daemon does: on a
    /// loaded machine (the whole suite at once) a healthy attempt can starve past
    /// its stall timeout, which is the retry's case, not a failure of the download.
    func complete(_ request: DownloadRequest, _ downloader: ResumableDownloader) async -> DownloadOutcome {
        var outcome = await downloader.attempt(request)
        for _ in 0..<10 {
            guard case .failed(_, true, _) = outcome else { break }
            outcome = await downloader.attempt(request)
        }
        return outcome
    }

    @Test("a download arrives whole: its length and SHA-256 verified, then moved where the app looks")
    func whole() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("file"), destination: Self.destination(),
                                          expectedLength: Int64(TransferServer.size), sha256: TransferServer.sha256)
            #expect(await complete(request, downloader) == .finished(length: Int64(TransferServer.size), sha256: TransferServer.sha256))
            #expect(FileManager.default.contents(atPath: request.destination) == Data(TransferServer.content))
            #expect(!FileManager.default.fileExists(atPath: request.partialPath))
            #expect(server.ranges.first == .some(nil))
        }
    }

    @Test("a dropped connection keeps the bytes received; the next attempt asks for the rest with Range")
    func droppedThenResumed() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("drop"), destination: Self.destination(),
                                          expectedLength: Int64(TransferServer.size), sha256: TransferServer.sha256)
            guard case let .failed(_, retryable, offset) = await downloader.attempt(request) else {
                Issue.record("a cut response finished")
                return
            }
            // The bytes that reached the disk before the drop (on a loaded machine, possibly none).
            #expect(retryable && offset <= Int64(TransferServer.cut), "offset \(offset)")
            #expect(!FileManager.default.fileExists(atPath: request.destination), "the app got a partial file")
            if offset == 0 { #expect(FileManager.default.createFile(atPath: request.partialPath, contents: Data(TransferServer.content[..<1000]))) }
            let kept = max(offset, ResumableDownloader.offset(of: request))
            #expect(await complete(request, downloader) == .finished(length: Int64(TransferServer.size), sha256: TransferServer.sha256))
            #expect(Array(server.ranges.prefix(2)) == [nil, "bytes=\(kept)-"])
            #expect(FileManager.default.contents(atPath: request.destination) == Data(TransferServer.content))
        }
    }

    @Test("a stalled connection is given up after the stall timeout, its bytes kept, and resumed")
    func stalledThenResumed() async throws {
        try await withServer(stall: 2) { server, downloader in
            let request = DownloadRequest(url: server.url("stall"), destination: Self.destination(),
                                          expectedLength: Int64(TransferServer.size), sha256: TransferServer.sha256)
            guard case let .failed(_, retryable, offset) = await downloader.attempt(request) else {
                Issue.record("a stalled response finished")
                return
            }
            // The bytes that reached the disk before the stall (on a loaded machine, possibly none).
            #expect(retryable && offset <= Int64(TransferServer.cut))
            #expect(await complete(request, downloader) == .finished(length: Int64(TransferServer.size), sha256: TransferServer.sha256))
            #expect(server.ranges.dropFirst().first == (offset > 0 ? "bytes=\(offset)-" : nil))
        }
    }

    @Test("the stall timeout is a silence, not a deadline: a body slower than it in all, but never silent that long, arrives")
    func slowIsNotStalled() async throws {
        // 16 bytes over 4 s, one every 0.25 s, against 2 s of allowed silence (URLSession's
        // timeoutIntervalForRequest): twice the allowed silence in all, a gap eight times shorter.
        try await withServer(stall: 2) { server, downloader in
            let request = DownloadRequest(url: server.url("trickle"), destination: Self.destination(), expectedLength: 16)
            guard case let .finished(length, _) = await downloader.attempt(request) else {
                Issue.record("a steady body was given up as stalled")
                return
            }
            #expect(length == 16)
            #expect(FileManager.default.contents(atPath: request.destination) == Data(repeating: UInt8(ascii: "t"), count: 16))
        }
    }

    @Test("after the daemon died mid-download, the bytes on disk are the offset: only the rest is fetched")
    func resumedAfterCrash() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("file"), destination: Self.destination(),
                                          expectedLength: Int64(TransferServer.size), sha256: TransferServer.sha256)
            // What a killed daemon leaves: the partial file, as far as it got.
            #expect(FileManager.default.createFile(atPath: request.partialPath, contents: Data(TransferServer.content[..<123_457])))
            #expect(ResumableDownloader.offset(of: request) == 123_457)
            #expect(await complete(request, downloader) == .finished(length: Int64(TransferServer.size), sha256: TransferServer.sha256))
            #expect(server.ranges.first == "bytes=123457-")
        }
    }

    @Test("a server that ignores Range sends the whole file again, and it still verifies")
    func rangeIgnored() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("norange"), destination: Self.destination(),
                                          expectedLength: Int64(TransferServer.size), sha256: TransferServer.sha256)
            #expect(FileManager.default.createFile(atPath: request.partialPath, contents: Data(TransferServer.content[..<1000])))
            #expect(await complete(request, downloader) == .finished(length: Int64(TransferServer.size), sha256: TransferServer.sha256))
            #expect(FileManager.default.contents(atPath: request.destination) == Data(TransferServer.content))
        }
    }

    @Test("a file that does not verify never reaches the app; server errors are retryable, a missing file is not")
    func refusals() async throws {
        try await withServer { server, downloader in
            let bad = DownloadRequest(url: server.url("file"), destination: Self.destination(),
                                      expectedLength: Int64(TransferServer.size), sha256: String(repeating: "0", count: 64))
            guard case let .failed(reason, retryable, _) = await complete(bad, downloader) else {
                Issue.record("a file with the wrong checksum was accepted")
                return
            }
            #expect(!retryable && reason.contains("checksum"))
            #expect(!FileManager.default.fileExists(atPath: bad.destination) && !FileManager.default.fileExists(atPath: bad.partialPath))

            let unavailable = DownloadRequest(url: server.url("unavailable"), destination: Self.destination())
            #expect(await downloader.attempt(unavailable) == .failed(reason: "HTTP 503", retryable: true, offset: 0))
            let missing = DownloadRequest(url: server.url("missing"), destination: Self.destination())
            #expect(await downloader.attempt(missing) == .failed(reason: "HTTP 404", retryable: false, offset: 0))
        }
    }
}
