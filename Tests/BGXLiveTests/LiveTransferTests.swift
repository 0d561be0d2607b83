import BGXLive
import Crypto
import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// A real HTTP server on loopback (Hummingbird), started by the test: one
/// 1 MiB file with its RFC 9530 digest, served whole or from a `Range`; a
/// gated copy that sends the first `cut` bytes of any response and holds the
/// rest until the test opens the gate; an upload endpoint that keeps what it
/// got; a missing file.
final class TransferServer: @unchecked Sendable {
    static let size = 1 << 20
    static let content: [UInt8] = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
    static let sha256 = SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined()
    static let cut = 300_000

    struct Upload { var method: String; var header: String?; var sha256: String; var length: Int }

    private let lock = NSLock()
    private var _ranges: [String?] = []
    private var _uploads: [Upload] = []
    private var gateOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    var ranges: [String?] { lock.withLock { _ranges } }
    var uploads: [Upload] { lock.withLock { _uploads } }
    private var task: Task<Void, any Error>?
    private(set) var port = 0

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    func openGate() {
        let woken = lock.withLock {
            gateOpen = true
            defer { waiters.removeAll() }
            return waiters
        }
        woken.forEach { $0.resume() }
    }

    func passGate() async {
        await withCheckedContinuation { continuation in
            let open = lock.withLock {
                if !gateOpen { waiters.append(continuation) }
                return gateOpen
            }
            if open { continuation.resume() }
        }
    }

    /// The file from the `Range: bytes=N-` asked for (the whole of it without one).
    func respond(_ request: Request, gated: Bool) -> Response {
        let range = request.headers[HTTPField.Name("Range")!]
        lock.withLock { _ranges.append(range) }
        var first = 0
        var headers = HTTPFields()
        let digest = Data(SHA256.hash(data: Self.content)).base64EncodedString()
        headers[HTTPField.Name("Repr-Digest")!] = "sha-256=:\(digest):"
        var status = HTTPResponse.Status.ok
        if let range, range.hasPrefix("bytes="), let n = Int(range.dropFirst(6).split(separator: "-").first ?? "") {
            guard n < Self.size else { return Response(status: .rangeNotSatisfiable) }
            first = n
            status = .partialContent
            headers[HTTPField.Name("Content-Range")!] = "bytes \(n)-\(Self.size - 1)/\(Self.size)"
        }
        let body = Self.content[first...]
        guard gated else { return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))) }
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: body.count) { [self] writer in
            let split = min(body.count, Self.cut)
            try await writer.write(ByteBuffer(bytes: body.prefix(split)))
            await passGate()
            try await writer.write(ByteBuffer(bytes: body.dropFirst(split)))
            try await writer.finish(nil)
        })
    }

    func start() async throws {
        let router = Router()
        router.get("file") { [self] request, _ in respond(request, gated: false) }
        router.get("gated") { [self] request, _ in respond(request, gated: true) }
        router.get("missing") { _, _ in Response(status: .notFound) }
        for method in [HTTPRequest.Method.put, .post] {
            router.on("upload", method: method) { [self] request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 16 << 20)
                let bytes = Array(body.readableBytesView)
                let upload = Upload(method: request.method.rawValue, header: request.headers[HTTPField.Name("x-bgx-test")!],
                                    sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(),
                                    length: bytes.count)
                lock.withLock { _uploads.append(upload) }
                return Response(status: .created)
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
        openGate()
        task?.cancel()
        _ = try? await task?.value
    }
}

/// rules §8 on the live host: background URLSession transfers of a real app
/// process move real bytes over real TCP, under the engine's rules, while the
/// app is frozen or gone; what the app gets is verified first.
@Suite("live background transfers", .serialized)
struct LiveTransferTests {
    static let app = "com.example.transfers"
    static let executable = "bgx-live-transferapp"

    static func sha256(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func events(_ bundle: String) -> [String] {
        ((try? String(contentsOfFile: bundle + "/events", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("a download runs while the app is frozen; the app is woken for its events and gets the verified file")
    func downloadWhileFrozen() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        let bundle = try host.install(Self.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)",
                                      executable: Self.executable)
        try host.ctl("launch", Self.app)
        try host.wait(for: ["kind": "transfer.attempt", "offset": "0"])
        try host.ctl("home")
        let frozen = try host.wait(for: ["kind": "process.freeze"])
        // The bytes come while the process is frozen.
        server.openGate()
        let complete = try host.wait(for: ["kind": "transfer.complete", "session": "com.example.transfers"], after: host.index(of: frozen))
        #expect(host.lines[host.index(of: frozen)...host.index(of: complete)].allSatisfy { $0["kind"] as? String != "process.thaw" },
                "the app stayed frozen while its transfer ran")
        try host.wait(for: ["kind": "transfer.verified"])
        // Thawed (after the rate limiter's delay) to be handed its events, then frozen again once it is done.
        let thaw = try host.wait(for: ["kind": "process.thaw"], after: host.index(of: complete))
        try host.wait(for: ["kind": "callback", "name": "handleEventsForBackgroundURLSession"], after: host.index(of: complete))
        try host.wait(for: ["kind": "state", "to": "suspended"], after: host.index(of: thaw))
        #expect(Self.events(bundle).contains("file \(TransferServer.size)"))
        #expect(Self.events(bundle).contains("finishEvents com.example.transfers"))
        #expect(Self.sha256(ofFile: bundle + "/received") == TransferServer.sha256)
    }

    @Test("an app that is gone when its download finishes is relaunched in the background for the session's events")
    func terminatedAppRelaunched() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        let bundle = try host.install(Self.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)\nexit",
                                      executable: Self.executable)
        try host.ctl("launch", Self.app)
        try host.wait(for: ["kind": "transfer.attempt"])
        try host.ctl("home")
        let exit = try host.wait(for: ["kind": "process.exit"])
        server.openGate()
        try host.wait(for: ["kind": "transfer.complete"], after: host.index(of: exit))
        let launch = try host.wait(for: ["kind": "launch", "cause": "transfer"], after: host.index(of: exit))
        try host.wait(for: ["kind": "state", "to": "suspended"], after: host.index(of: launch))
        let events = Self.events(bundle)
        #expect(events.contains("launch transfer"))
        #expect(events.contains("handleEvents com.example.transfers"))
        #expect(events.contains("file \(TransferServer.size)"))
        #expect(Self.sha256(ofFile: bundle + "/received") == TransferServer.sha256)
    }

    @Test("a daemon killed mid-download resumes at restart with Range from the bytes it kept, and verifies the file")
    func daemonCrashResumesWithRange() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let first = try LiveHost(timeScale: 10)
        let bundle = try first.install(Self.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)",
                                       executable: Self.executable)
        try first.ctl("launch", Self.app)
        // The first attempt gets `cut` bytes, then the connection is silent past the request timeout.
        let retry = try first.wait(for: ["kind": "transfer.retry"])
        #expect((retry["reason"] as? String)?.contains("\(TransferServer.cut) bytes kept") == true)
        first.crash()
        let before = server.ranges.count
        server.openGate()
        let second = try LiveHost(timeScale: 10, directory: first.directory)
        // The trace carries on the first daemon's: what matters follows the second start.
        let restart = second.index(of: try second.wait(for: ["kind": "daemon.start"], after: 1))
        let attempt = try second.wait(for: ["kind": "transfer.attempt"], after: restart)
        #expect((attempt["offset"] as? Int ?? 0) >= TransferServer.cut, "resumed from the bytes on disk")
        try second.wait(for: ["kind": "transfer.verified"], after: restart)
        try second.wait(for: ["kind": "transfer.complete"], after: restart)
        #expect(server.ranges.dropFirst(before).contains { $0?.hasPrefix("bytes=") == true && $0 != "bytes=0-" },
                "\(server.ranges)")
        let launch = try second.wait(for: ["kind": "launch", "cause": "transfer"], after: restart)
        try second.wait(for: ["kind": "state", "to": "suspended"], after: second.index(of: launch))
        #expect(Self.events(bundle).contains("file \(TransferServer.size)"))
        #expect(Self.sha256(ofFile: bundle + "/received") == TransferServer.sha256)
    }

    @Test("an upload from a file reaches the server with its method, headers and bytes")
    func uploadFromFile() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        let file = host.directory + "/body.bin"
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        FileManager.default.createFile(atPath: file, contents: Data(body))
        try host.install(Self.app, behaviour: "upload \(server.url("upload")) \(file) PUT", executable: Self.executable)
        try host.ctl("launch", Self.app)
        try host.wait(for: ["kind": "transfer.create", "type": "upload"])
        try host.wait(for: ["kind": "transfer.complete"])
        let upload = try #require(server.uploads.first)
        #expect(upload.method == "PUT")
        #expect(upload.header == "upload")
        #expect(upload.length == body.count)
        #expect(upload.sha256 == SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined())
    }

    @Test("a force-quit cancels the app's transfer: the connection is closed and its bytes discarded")
    func forceQuitCancels() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        try host.install(Self.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)", executable: Self.executable)
        try host.ctl("launch", Self.app)
        try host.wait(for: ["kind": "transfer.attempt"])
        try host.ctl("forcequit", Self.app)
        let cancel = try host.wait(for: ["kind": "transfer.cancel"])
        #expect((cancel["reason"] as? String)?.contains("force-quit") == true)
        let stop = try host.wait(for: ["kind": "transfer.stop"])
        #expect((stop["reason"] as? String)?.contains("bytes discarded") == true)
        let partials = (try? FileManager.default.contentsOfDirectory(atPath: host.directory + "/state/transfers")) ?? []
        #expect(partials.isEmpty, "no bytes left behind: \(partials)")
        #expect(!host.lines.contains { $0["kind"] as? String == "transfer.complete" })
    }

    @Test("a discretionary download waits for Wi-Fi and power as `ctl device` reports them, then runs")
    func discretionaryWaitsForWiFiAndPower() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        let bundle = try host.install(Self.app, behaviour: "download \(server.url("file")) \(TransferServer.size)\ndiscretionary",
                                      executable: Self.executable)
        try host.ctl("device", "network=cellular")
        try host.ctl("launch", Self.app)
        let wifi = try host.wait(for: ["kind": "transfer.defer"])
        #expect((wifi["reason"] as? String)?.contains("waits for Wi-Fi") == true)
        try host.ctl("device", "network=wifi")
        let power = try host.wait(for: ["kind": "transfer.defer"], after: host.index(of: wifi) + 1)
        #expect((power["reason"] as? String)?.contains("waits for external power") == true)
        #expect(server.ranges.isEmpty, "no byte moved before the conditions were met")
        try host.ctl("device", "charging=true")
        try host.wait(for: ["kind": "transfer.attempt"])
        try host.wait(for: ["kind": "transfer.complete"])
        #expect(server.ranges.count == 1)
        // In front, the app gets its result at once.
        try host.wait(for: ["kind": "callback", "name": "urlSessionTaskDidComplete"])
        _ = bundle
    }

    @Test("a file the server does not have ends the task with NSURLErrorBadServerResponse and the reason; no retry")
    func missingFileFails() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        try host.install(Self.app, behaviour: "download \(server.url("missing")) 100", executable: Self.executable)
        try host.ctl("launch", Self.app)
        let fail = try host.wait(for: ["kind": "transfer.fail"])
        #expect(fail["code"] as? Int == -1011)
        #expect((fail["reason"] as? String)?.contains("HTTP 404") == true)
        try host.wait(for: ["kind": "callback", "name": "urlSessionTaskDidComplete", "result": "badServerResponse"])
        #expect(!host.lines.contains { $0["kind"] as? String == "transfer.retry" })
    }

    @Test("a transfer still unfinished at the session's resource timeout fails with NSURLErrorTimedOut; its connection is closed")
    func resourceTimeoutEndsTheTransfer() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let host = try LiveHost(timeScale: 10)
        try host.install(Self.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)\nresourceTimeout 20",
                         executable: Self.executable)
        try host.ctl("launch", Self.app)
        let fail = try host.wait(for: ["kind": "transfer.fail"])
        #expect(fail["code"] as? Int == -1001)
        #expect((fail["reason"] as? String)?.contains("timeoutIntervalForResource") == true)
        let stop = try host.wait(for: ["kind": "transfer.stop"])
        #expect((stop["reason"] as? String)?.contains("bytes discarded") == true)
    }

    @Test("a daemon killed between journaling a download's end and telling the engine completes it once, at restart")
    func powerCutAfterTheEndIsJournaled() async throws {
        let server = TransferServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let first = try LiveHost(timeScale: 10, environment: ["BGX_CRASH_AFTER_JOURNAL": "transfer"])
        try first.install(Self.app, behaviour: "download \(server.url("file")) \(TransferServer.size)", executable: Self.executable)
        try first.ctl("launch", Self.app)
        first.process.waitUntilExit()
        first.keepState = true
        #expect(first.process.terminationReason == .uncaughtSignal, "the daemon did not die after journaling the transfer's end")

        let second = try LiveHost(timeScale: 10, directory: first.directory)
        _ = try second.ctl("status")
        #expect(CrashRestartTests.count(second, ["kind": "transfer.complete", "task": "1"]) == 1)
        #expect(CrashRestartTests.duplicatedEngineLines(second).isEmpty, "\(CrashRestartTests.duplicatedEngineLines(second))")
        #expect(Self.sha256(ofFile: first.directory + "/state/transfers/\(Self.app)-1.download") == TransferServer.sha256)
        #expect(server.ranges.count == 1, "the bytes moved once: \(server.ranges)")
        // The app was in front, and lost with the daemon: its result waits for the session it makes when next launched.
        try second.ctl("launch", Self.app)
        try second.wait(for: ["kind": "callback", "name": "urlSessionTaskDidComplete", "task": "1", "result": "success"])
    }
}
