import BGXLive
import BGXDigest
import Foundation
import Glibc
import Testing

/// A real HTTP server on loopback (Python's http.server, `Tests/TransferServer/server.py`),
/// started by the test as a process of its own, so that nothing in the test
/// process (tests blocked waiting for the daemon) can starve it: one 1 MiB
/// file with its RFC 9530 digest, served whole or from a `Range`; a gated
/// copy that sends the first `cut` bytes of any response and holds the rest
/// until the test opens the gate; an upload endpoint; a missing file. It
/// reports each request it gets, before it answers.
final class TransferServer: @unchecked Sendable {
    static let size = 1 << 20
    static let content: [UInt8] = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
    static let sha256 = SHA256.hex(of: content)
    static let cut = 300_000

    struct Upload: Equatable { var method: String; var header: String; var sha256: String; var length: Int }

    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let condition = NSCondition()
    private var _ranges: [String?] = []
    private var _uploads: [Upload] = []
    private var syncs = 0
    private(set) var port = 0

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TransferServer/server.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var line = [UInt8]()
            var byte: UInt8 = 0
            while read(reader, &byte, 1) == 1 {
                guard byte == 10 else { line.append(byte); continue }
                heard(String(decoding: line, as: UTF8.self))
                line.removeAll()
            }
        }
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(30)
        while port == 0 { guard condition.wait(until: deadline) else { throw LiveError("the HTTP server did not start") } }
    }

    private func heard(_ line: String) {
        let words = line.split(separator: " ").map(String.init)
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        switch words.first {
        case "port": port = Int(words[1]) ?? 0
        case "range": _ranges.append(words[1] == "-" ? nil : words[1])
        case "upload" where words.count == 5:
            _uploads.append(Upload(method: words[1], header: words[2], sha256: words[3], length: Int(words[4]) ?? -1))
        case "synced": syncs += 1
        default: break
        }
    }

    /// Every request reported so far — all of those the server got before now.
    func requests() -> (ranges: [String?], uploads: [Upload]) {
        condition.lock()
        let target = syncs + 1
        condition.unlock()
        input.fileHandleForWriting.write(Data("sync\n".utf8))
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(30)
        while syncs < target { if !condition.wait(until: deadline) { break } }
        return (_ranges, _uploads)
    }
    var ranges: [String?] { requests().ranges }
    var uploads: [Upload] { requests().uploads }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
    func openGate() { input.fileHandleForWriting.write(Data("open\n".utf8)) }

    deinit {
        // SIGKILL: a graceful stop would wait for a gated response that never ends.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// rules §8 on the live host: background URLSession transfers of a real app
/// process move real bytes over real TCP, under the engine's rules, while the
/// app is frozen or gone; what the app gets is verified first.
@Suite("live background transfers (rules §8 on the live host)", .serialized)
struct LiveTransferTests {
    static let app = "com.example.transfers"
    static let executable = "bgx-live-transferapp"

    static func sha256(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hex(of: data)
    }

    static func events(_ bundle: String) -> [String] {
        ((try? String(contentsOfFile: bundle + "/events", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("a download runs while the app is frozen; the app is woken for its events and gets the verified file")
    func downloadWhileFrozen() throws {
        let server = try TransferServer()
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
        // Not at once: the relaunch rate limiter's first delay is a minute (of engine time).
        let hold = try host.wait(for: ["kind": "transfer.hold"], after: host.index(of: complete))
        #expect((hold["reason"] as? String)?.contains("relaunch rate limiter") == true)
        #expect((thaw["t"] as? Double ?? 0) - (complete["t"] as? Double ?? 0) >= 60 - 1e-6)  // times are printed to the nanosecond
        try host.wait(for: ["kind": "callback", "name": "handleEventsForBackgroundURLSession"], after: host.index(of: complete))
        try host.wait(for: ["kind": "state", "to": "suspended"], after: host.index(of: thaw))
        #expect(Self.events(bundle).contains("file \(TransferServer.size)"))
        #expect(Self.events(bundle).contains("finishEvents com.example.transfers"))
        #expect(Self.sha256(ofFile: bundle + "/received") == TransferServer.sha256)
    }

    @Test("an app that is gone when its download finishes is relaunched in the background for the session's events")
    func terminatedAppRelaunched() throws {
        let server = try TransferServer()
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
    func daemonCrashResumesWithRange() throws {
        let server = try TransferServer()
        let first = try LiveHost(timeScale: 10)
        let bundle = try first.install(Self.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)",
                                       executable: Self.executable)
        try first.ctl("launch", Self.app)
        // The first attempt gets `cut` bytes, then the connection is silent past the request timeout.
        let retry = try first.wait(for: ["kind": "transfer.retry"])
        let reason = retry["reason"] as? String ?? ""
        let kept = Int(reason.components(separatedBy: " bytes kept").first?.split(separator: "(").last ?? "") ?? 0
        #expect(kept > 0 && kept <= TransferServer.cut, "\(reason)")
        first.crash()
        let before = server.ranges.count
        server.openGate()
        let second = try LiveHost(timeScale: 10, directory: first.directory)
        // The trace carries on the first daemon's: what matters follows the second start.
        let restart = second.index(of: try second.wait(for: ["kind": "daemon.start"], after: 1))
        let attempt = try second.wait(for: ["kind": "transfer.attempt"], after: restart)
        #expect((attempt["offset"] as? Int ?? 0) >= kept, "resumed from the bytes on disk")
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
    func uploadFromFile() throws {
        let server = try TransferServer()
        let host = try LiveHost(timeScale: 10)
        let file = host.directory + "/body.bin"
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(FileManager.default.createFile(atPath: file, contents: Data(body)))
        try host.install(Self.app, behaviour: "upload \(server.url("upload")) \(file) PUT", executable: Self.executable)
        try host.ctl("launch", Self.app)
        try host.wait(for: ["kind": "transfer.create", "type": "upload"])
        try host.wait(for: ["kind": "transfer.complete"])
        let upload = try #require(server.uploads.first)
        #expect(upload.method == "PUT")
        #expect(upload.header == "upload")
        #expect(upload.length == body.count)
        #expect(upload.sha256 == SHA256.hex(of: body))
        // The daemon stops cleanly with its HTTP clients shut down.
        host.stop()
        #expect(host.process.terminationReason == .exit && host.process.terminationStatus == 0, "\(host.daemonLog)")
    }

    @Test("a force-quit cancels the app's transfer: the connection is closed and its bytes discarded")
    func forceQuitCancels() throws {
        let server = try TransferServer()
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
    func discretionaryWaitsForWiFiAndPower() throws {
        let server = try TransferServer()
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
    func missingFileFails() throws {
        let server = try TransferServer()
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
    func resourceTimeoutEndsTheTransfer() throws {
        let server = try TransferServer()
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
    func powerCutAfterTheEndIsJournaled() throws {
        let server = try TransferServer()
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
