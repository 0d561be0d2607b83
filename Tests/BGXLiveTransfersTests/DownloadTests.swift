import BGXLiveTransfers
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// A real HTTP server on loopback (Hummingbird), started by the test, that
/// serves one 1 MiB file and misbehaves on request: it drops the connection
/// or stalls part-way through a response, answers with errors, or ignores
/// `Range`. It records the `Range` of every request it gets.
final class LoopbackServer: @unchecked Sendable {
    static let size = 1 << 20
    static let content: [UInt8] = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    static var sha256: String { SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined() }
    /// Where the misbehaving routes cut their first response.
    static let cut = 300_000

    private let lock = NSLock()
    private var _ranges: [String?] = []
    var ranges: [String?] { lock.withLock { _ranges } }
    private var task: Task<Void, any Error>?
    private(set) var port = 0

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// The whole file, or from the `Range: bytes=N-` asked for.
    static func serve(_ request: Request, record: (String?) -> Void, honourRange: Bool = true) -> Response {
        let range = request.headers[HTTPField.Name("Range")!]
        record(range)
        if honourRange, let range, range.hasPrefix("bytes="), let first = Int(range.dropFirst(6).split(separator: "-").first ?? "") {
            guard first < size else { return Response(status: .rangeNotSatisfiable) }
            var headers = HTTPFields()
            headers[HTTPField.Name("Content-Range")!] = "bytes \(first)-\(size - 1)/\(size)"
            return Response(status: .partialContent, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: content[first...])))
        }
        return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: content)))
    }

    func start() async throws {
        let router = Router()
        let record: @Sendable (String?) -> Void = { [self] range in lock.withLock { _ranges.append(range) } }
        router.get("file") { request, _ in Self.serve(request, record: record) }
        router.get("norange") { request, _ in Self.serve(request, record: record, honourRange: false) }
        router.get("unavailable") { request, _ -> Response in
            record(request.headers[HTTPField.Name("Range")!])
            return Response(status: .serviceUnavailable)
        }
        // The first response (no Range) is cut: the connection dropped, or left silent.
        for (path, stall) in [("drop", false), ("stall", true)] {
            router.get(RouterPath(path)) { request, _ -> Response in
                if request.headers[HTTPField.Name("Range")!] != nil { return Self.serve(request, record: record) }
                record(nil)
                return Response(status: .ok, body: ResponseBody(contentLength: Self.size) { writer in
                    try await writer.write(ByteBuffer(bytes: Self.content[..<Self.cut]))
                    if stall { try await Task.sleep(for: .seconds(3600)) }
                    struct Dropped: Error {}
                    throw Dropped()
                })
            }
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  continuation.yield(channel.localAddress?.port ?? 0)
                                  continuation.finish()
                              })
        task = Task { try await app.run() }
        for await p in ports { port = p }
    }

    func stop() async {
        task?.cancel()
        _ = try? await task?.value
    }
}

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
    func withServer(stall: TimeAmount = .seconds(20), _ body: (LoopbackServer, ResumableDownloader) async throws -> Void) async throws {
        let server = LoopbackServer()
        try await server.start()
        let downloader = ResumableDownloader(stallTimeout: stall)
        do { try await body(server, downloader) } catch { await server.stop(); try? await downloader.shutdown(); throw error }
        await server.stop()
        try await downloader.shutdown()
    }

    @Test("a download arrives whole: its length and SHA-256 verified, then moved where the app looks")
    func whole() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("file"), destination: Self.destination(),
                                          expectedLength: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256)
            #expect(await downloader.attempt(request) == .finished(length: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256))
            #expect(FileManager.default.contents(atPath: request.destination) == Data(LoopbackServer.content))
            #expect(!FileManager.default.fileExists(atPath: request.partialPath))
            #expect(server.ranges == [nil])
        }
    }

    @Test("a dropped connection keeps the bytes received; the next attempt asks for the rest with Range")
    func droppedThenResumed() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("drop"), destination: Self.destination(),
                                          expectedLength: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256)
            guard case let .failed(_, retryable, offset) = await downloader.attempt(request) else {
                Issue.record("a cut response finished")
                return
            }
            // The bytes that reached the disk before the drop (on a loaded machine, possibly none).
            #expect(retryable && offset <= Int64(LoopbackServer.cut), "offset \(offset)")
            #expect(!FileManager.default.fileExists(atPath: request.destination), "the app got a partial file")
            if offset == 0 { FileManager.default.createFile(atPath: request.partialPath, contents: Data(LoopbackServer.content[..<1000])) }
            let kept = max(offset, ResumableDownloader.offset(of: request))
            #expect(await downloader.attempt(request) == .finished(length: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256))
            #expect(server.ranges == [nil, "bytes=\(kept)-"])
            #expect(FileManager.default.contents(atPath: request.destination) == Data(LoopbackServer.content))
        }
    }

    @Test("a stalled connection is given up after the stall timeout, its bytes kept, and resumed")
    func stalledThenResumed() async throws {
        try await withServer(stall: .seconds(2)) { server, downloader in
            let request = DownloadRequest(url: server.url("stall"), destination: Self.destination(),
                                          expectedLength: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256)
            guard case let .failed(_, retryable, offset) = await downloader.attempt(request) else {
                Issue.record("a stalled response finished")
                return
            }
            #expect(retryable && offset > 0)
            #expect(await downloader.attempt(request) == .finished(length: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256))
            #expect(server.ranges.last == "bytes=\(offset)-")
        }
    }

    @Test("after the daemon died mid-download, the bytes on disk are the offset: only the rest is fetched")
    func resumedAfterCrash() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("file"), destination: Self.destination(),
                                          expectedLength: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256)
            // What a killed daemon leaves: the partial file, as far as it got.
            FileManager.default.createFile(atPath: request.partialPath, contents: Data(LoopbackServer.content[..<123_457]))
            #expect(ResumableDownloader.offset(of: request) == 123_457)
            #expect(await downloader.attempt(request) == .finished(length: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256))
            #expect(server.ranges == ["bytes=123457-"])
        }
    }

    @Test("a server that ignores Range sends the whole file again, and it still verifies")
    func rangeIgnored() async throws {
        try await withServer { server, downloader in
            let request = DownloadRequest(url: server.url("norange"), destination: Self.destination(),
                                          expectedLength: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256)
            FileManager.default.createFile(atPath: request.partialPath, contents: Data(LoopbackServer.content[..<1000]))
            #expect(await downloader.attempt(request) == .finished(length: Int64(LoopbackServer.size), sha256: LoopbackServer.sha256))
            #expect(FileManager.default.contents(atPath: request.destination) == Data(LoopbackServer.content))
        }
    }

    @Test("a file that does not verify never reaches the app; server errors are retryable, a missing file is not")
    func refusals() async throws {
        try await withServer { server, downloader in
            let bad = DownloadRequest(url: server.url("file"), destination: Self.destination(),
                                      expectedLength: Int64(LoopbackServer.size), sha256: String(repeating: "0", count: 64))
            guard case let .failed(reason, retryable, _) = await downloader.attempt(bad) else {
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
