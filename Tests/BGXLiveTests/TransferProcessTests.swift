import BGXLive
import Foundation
import Glibc
import Testing

/// The live host moves background transfers' bytes in a process of its own,
/// `bgx-transferd` (iOS's nsurlsessiond), never in the daemon: the network
/// stack is not in the daemon's memory, and a transfer process that dies
/// costs its attempts a retry, never the daemon or the bytes kept.
@Suite("the transfer process", .serialized)
struct TransferProcessTests {
    /// The daemon's children named `bgx-transferd`.
    static func transferProcesses(of daemon: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon)/task")) ?? []
        let children = tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(daemon)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { pid_t($0) }
        }
        return children.filter {
            (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("bgx-transferd") == true
        }
    }

    /// A process's memory map, read to its end (/proc says its files are empty).
    static func maps(_ pid: pid_t) throws -> String {
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// A host whose app has begun a gated download: its first attempt is running in the transfer process.
    static func downloadHeldAtTheGate() throws -> (TransferServer, LiveHost) {
        let server = try TransferServer()
        let host = try LiveHost(timeScale: 10)
        do {
            try host.install(LiveTransferTests.app, behaviour: "download \(server.url("gated")) \(TransferServer.size)",
                             executable: LiveTransferTests.executable)
            try host.ctl("launch", LiveTransferTests.app)
            try host.wait(for: ["kind": "transfer.attempt", "offset": "0"])
        } catch {
            host.stop()
            throw error
        }
        return (server, host)
    }

    @Test("a download's bytes move in bgx-transferd: the daemon never maps URLSession, libcurl or libcrypto")
    func networkStackOutsideTheDaemon() throws {
        let (server, host) = try Self.downloadHeldAtTheGate()
        defer { host.stop() }
        let daemon = host.process.processIdentifier
        let movers = Self.transferProcesses(of: daemon)
        #expect(movers.count == 1, "\(movers)")
        if let mover = movers.first { #expect(try Self.maps(mover).contains("libcurl")) }
        server.openGate()
        try host.wait(for: ["kind": "transfer.verified"])
        let maps = try Self.maps(daemon)
        #expect(maps.contains("libswiftCore"))  // the maps are the daemon's, read while it runs
        for library in ["libFoundationNetworking", "libcurl", "libcrypto", "libssl"] {
            #expect(!maps.contains(library), "the daemon maps \(library)")
        }
    }

    @Test("a transfer process killed mid-download: the attempt is retried from the bytes kept, in a new process")
    func killedTransferProcessIsARetry() throws {
        let (server, host) = try Self.downloadHeldAtTheGate()
        defer { host.stop() }
        let daemon = host.process.processIdentifier
        let first = try #require(Self.transferProcesses(of: daemon).first)
        #expect(kill(first, SIGKILL) == 0)
        let retry = try host.wait(for: ["kind": "transfer.retry"])
        let reason = retry["reason"] as? String ?? ""
        #expect(reason.contains("the transfer process ended (signal 9)"), "\(reason)")
        server.openGate()
        let attempt = try host.wait(for: ["kind": "transfer.attempt"], after: host.index(of: retry))
        #expect((attempt["offset"] as? Int ?? -1) <= TransferServer.cut)
        let verified = try host.wait(for: ["kind": "transfer.verified"], after: host.index(of: retry))
        #expect((verified["detail"] as? String)?.hasSuffix("sha-256 \(TransferServer.sha256)") == true)
        let second = Self.transferProcesses(of: daemon)
        #expect(second.count == 1 && second.first != first, "\(second) after \(first)")
        try host.wait(for: ["kind": "callback", "name": "urlSessionTaskDidComplete", "result": "success"],
                      after: host.index(of: retry))
    }

    @Test("an app cannot upload a file only root may read: the file is opened with the app's rights, not the daemon's",
          .enabled(if: geteuid() == 0, "needs root to give apps users"))
    func uploadsReadWithTheAppsRights() throws {
        let server = try TransferServer()
        let host = try LiveHost(timeScale: 10)
        defer { host.stop() }
        let secret = host.directory + "/secret"
        #expect(FileManager.default.createFile(atPath: secret, contents: Data("root's only".utf8),
                                               attributes: [.posixPermissions: 0o600]))
        try host.install(LiveTransferTests.app, behaviour: "upload \(server.url("upload")) \(secret) PUT",
                         executable: LiveTransferTests.executable)
        try host.ctl("launch", LiveTransferTests.app)
        // The call is answered before didFinishLaunching returns, and so before the app is active.
        try host.wait(for: ["kind": "state", "to": "active"])
        let log = (try? String(contentsOfFile: host.directory + "/state/logs/com.example.transfers.log", encoding: .utf8)) ?? ""
        #expect(log.contains("startTransfer: an upload needs a regular file the app may read"), "\(log)")
        #expect(!host.lines.contains { $0["kind"] as? String == "transfer.create" })
        #expect(server.uploads.isEmpty)
    }
}
