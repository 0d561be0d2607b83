import BGXDigest
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

// The HTTP server the live transfer tests run on loopback (Hummingbird), as
// its own process so that nothing the test process does can starve it.
// Routes: `/file` (1 MiB, whole or from `Range: bytes=N-`, with its RFC 9530
// `Repr-Digest`), `/gated` (the same, but each response sends its first
// 300 000 bytes and holds the rest until the gate opens), `/upload` (PUT or
// POST: keeps what it got), `/missing` (404), `/norange` (ignores Range),
// `/unavailable` (503), `/drop` and `/stall` (the first response cut short).
// It says on standard output `port N` once listening, `range R` (`-` for none)
// for each request of the file, `upload METHOD HEADER SHA256 LENGTH` for each
// upload, each before it answers; it reads `open` (the gate) and `sync`
// (answered `synced` once every earlier line is out) on standard input.

let size = 1 << 20
let content: [UInt8] = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
let cut = 300_000
let digest = Data(SHA256.hash(data: content)).base64EncodedString()

final class Gate: @unchecked Sendable {
    let lock = NSLock()
    var open = false
    var waiters: [CheckedContinuation<Void, Never>] = []

    func openIt() {
        let woken = lock.withLock {
            open = true
            defer { waiters.removeAll() }
            return waiters
        }
        woken.forEach { $0.resume() }
    }

    func pass() async {
        await withCheckedContinuation { continuation in
            let isOpen = lock.withLock {
                if !open { waiters.append(continuation) }
                return open
            }
            if isOpen { continuation.resume() }
        }
    }
}

let gate = Gate()
let outLock = NSLock()
func say(_ line: String) {
    outLock.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}

func respond(_ request: Request, gated: Bool) -> Response {
    let range = request.headers[HTTPField.Name("Range")!]
    say("range \(range ?? "-")")
    var first = 0
    var headers = HTTPFields()
    headers[HTTPField.Name("Repr-Digest")!] = "sha-256=:\(digest):"
    var status = HTTPResponse.Status.ok
    if let range, range.hasPrefix("bytes="), let n = Int(range.dropFirst(6).split(separator: "-").first ?? "") {
        guard n < size else { return Response(status: .rangeNotSatisfiable) }
        first = n
        status = .partialContent
        headers[HTTPField.Name("Content-Range")!] = "bytes \(n)-\(size - 1)/\(size)"
    }
    let body = content[first...]
    guard gated else { return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))) }
    return Response(status: status, headers: headers, body: ResponseBody(contentLength: body.count) { writer in
        let split = min(body.count, cut)
        try await writer.write(ByteBuffer(bytes: body.prefix(split)))
        await gate.pass()
        try await writer.write(ByteBuffer(bytes: body.dropFirst(split)))
        try await writer.finish(nil)
    })
}

let router = Router()
router.get("file") { request, _ in respond(request, gated: false) }
router.get("gated") { request, _ in respond(request, gated: true) }
router.get("missing") { _, _ in Response(status: .notFound) }
// A server that ignores Range, one that answers 503, and two whose first
// response (no Range) is cut after `cut` bytes: the connection dropped, or left silent.
router.get("norange") { request, _ -> Response in
    say("range \(request.headers[HTTPField.Name("Range")!] ?? "-")")
    return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: content)))
}
router.get("unavailable") { request, _ -> Response in
    say("range \(request.headers[HTTPField.Name("Range")!] ?? "-")")
    return Response(status: .serviceUnavailable)
}
for (path, stall) in [("drop", false), ("stall", true)] {
    router.get(RouterPath(path)) { request, _ -> Response in
        if request.headers[HTTPField.Name("Range")!] != nil { return respond(request, gated: false) }
        say("range -")
        return Response(status: .ok, body: ResponseBody(contentLength: size) { writer in
            try await writer.write(ByteBuffer(bytes: content[..<cut]))
            if stall { try await Task.sleep(for: .seconds(3600)) }
            struct Dropped: Error {}
            throw Dropped()
        })
    }
}
for method in [HTTPRequest.Method.put, .post] {
    router.on("upload", method: method) { request, _ -> Response in
        var request = request
        let body = try await request.collectBody(upTo: 16 << 20)
        let bytes = Array(body.readableBytesView)
        let sha = SHA256.hex(of: bytes)
        say("upload \(request.method.rawValue) \(request.headers[HTTPField.Name("x-bgx-test")!] ?? "-") \(sha) \(bytes.count)")
        return Response(status: .created)
    }
}

// Standard input, on a thread of its own.
Thread.detachNewThread {
    while let line = readLine() {
        switch line {
        case "open": gate.openIt()
        case "sync": say("synced")
        default: break
        }
    }
    exit(0)
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                      onServerRunning: { channel in say("port \(channel.localAddress?.port ?? 0)") })
// (Hummingbird's own log lines go to standard output too; the test reads only the lines above.)
try await app.run()
