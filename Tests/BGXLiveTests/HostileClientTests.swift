@testable import BGXLive
import Foundation
import Glibc
import Testing

/// Clients that flood the daemon's socket, hold connections open without a
/// word, or send half a frame and stall: each is cut off at its limit, with
/// its reason in the trace, while a real app beside them still gets its
/// callbacks and the daemon's resident size stays bounded.
@Suite("the live host against hostile clients", .serialized)
struct HostileClientTests {
    /// `bgx-live-flood MODE SOCKET COUNT` as its own process: started, and
    /// waited on until it says it has done its part (its first line).
    final class Flooder {
        let process = Process()
        let input = Pipe(), output = Pipe()
        let said: String

        /// `user`: run as that uid (and gid), another local user, through setpriv.
        init(_ mode: String, _ socket: String, _ count: Int, user: uid_t? = nil) throws {
            let path = try #require(LiveHost.executable("bgx-live-flood"), "bgx-live-flood was not built beside the tests")
            if let user {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", path, mode, socket, "\(count)"]
            } else {
                process.executableURL = URL(fileURLWithPath: path)
                process.arguments = [mode, socket, "\(count)"]
            }
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var line = [UInt8](), byte: UInt8 = 0
            while read(output.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 10 { line.append(byte) }
            said = String(decoding: line, as: UTF8.self)
        }

        /// Its number ("connected 1000" → 1000).
        var count: Int { Int(said.split(separator: " ").last ?? "") ?? -1 }

        /// Closes its standard input: it lets go of everything and exits.
        func end() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        deinit { if process.isRunning { end() } }
    }

    @Test("1,000 connections from one client and 1,000 frames from another: refused past their share, a real app's push still answered within 5 s, the daemon's size bounded")
    func floodDoesNotStarveApps() throws {
        let host = try LiveHost()
        let daemon = host.process.processIdentifier
        try host.install("com.example.feed", modes: ["remote-notification"])
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let suspended = try host.wait(for: ["kind": "state", "to": "suspended"])
        let before = SoakTests.residentKB(daemon)

        let silent = try Flooder("silent", host.socket, 1000)
        let frames = try Flooder("frames", host.socket, 1000)
        #expect(silent.count == 1000, "the flooder's connections: \(silent.said)")
        #expect(frames.count == 1000, "the flooder's frames: \(frames.said)")
        // While the flood's frames are still being handled, the app's push is delivered and answered.
        let asked = MonotonicClock.now()
        try host.ctl("push", "com.example.feed", "background")
        try host.wait(for: ["kind": "push.complete"], after: host.index(of: suspended), seconds: 5)
        let took = Double(MonotonicClock.now() - asked) / 1e9
        // The silent flooder got at most its process's share; the rest were refused with their reason.
        let refused = try host.wait(for: ["kind": "connection.refuse", "reason": "over 16 connections from pid \(silent.process.processIdentifier)"])
        #expect(refused["pid"] as? Int == Int(silent.process.processIdentifier))
        _ = try host.ctl("status")
        let after = SoakTests.residentKB(daemon)
        let refusals = host.lines.filter { $0["kind"] as? String == "connection.refuse" }.count
        #expect(refusals >= 1000 - 16 - 1, "\(refusals) refusals")
        // Bounded: the flood's bytes are held in the kernel's buffers, not the daemon's.
        #expect(after <= before + 16 * 1024, "resident size \(before) kB before the flood, \(after) kB after")
        silent.end()
        frames.end()
        print("flood: push answered in \(String(format: "%.2f", took)) s; \(refusals) connections refused; resident \(before)→\(after) kB")
    }

    @Test("a connection that never speaks is closed at its hello deadline")
    func silentConnectionClosedAtDeadline() throws {
        let host = try LiveHost(extra: ["--hello-deadline", "1"])
        let opened = MonotonicClock.now()
        let silent = try LiveConnection(socket: host.socket)
        #expect(try silent.receive(until: opened + 20_000_000_000) == nil)
        let held = Double(MonotonicClock.now() - opened) / 1e9
        #expect(silent.peerClosed, "still open after 20 s")
        #expect(held >= 1, "closed after \(held) s, before its deadline")
        try host.wait(for: ["kind": "connection.close", "reason": "no hello within 1s of connecting"])
    }

    @Test("half a hello, then silence: closed at the hello deadline; half a ctl frame, then silence: at the frame deadline")
    func truncatedFrameThenSilence() throws {
        let host = try LiveHost(extra: ["--hello-deadline", "1", "--frame-deadline", "1"])
        let hello = try #require(LiveMessage(type: "hello", role: "ctl").frame())
        let half = try LiveConnection(socket: host.socket)
        try half.sendRaw(Array(hello.prefix(hello.count / 2)))
        #expect(try half.receive(until: MonotonicClock.now() + 20_000_000_000) == nil)
        #expect(half.peerClosed)
        try host.wait(for: ["kind": "connection.close", "reason": "no hello within 1s of connecting"])

        // The daemon's second counts from the connection's last progress, which may be its hello's
        // arrival: the clock starts before the hello, so "not before 1 s" holds however the two interleave
        // (taken after it, the close once came 0.13 ms early).
        let started = MonotonicClock.now()
        let ctl = try ControlClient(socket: host.socket)
        let status = try #require(LiveMessage(type: "ctl", seq: 1, name: "status").frame())
        try ctl.connection.sendRaw(Array(status.prefix(Frame.headerSize + 3)))
        #expect(try ctl.connection.receive(until: started + 20_000_000_000) == nil)
        #expect(ctl.connection.peerClosed)
        #expect(MonotonicClock.now() - started >= 1_000_000_000)
        try host.wait(for: ["kind": "connection.close", "reason": "a frame begun and not finished within 1s (11 bytes of it)"])
        // The daemon carries on for everyone else.
        #expect(try host.ctl("status").contains("freezer:"))
    }

    @Test("fair reading: of one connection's 100 waiting frames, 16 are handled a turn, beside another connection's frame, and nothing more is read from it meanwhile")
    func fairReading() throws {
        let dir = try DurableStorePropertyTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = DaemonOptions(stateDirectory: dir + "/state", socketPath: dir + "/daemon.sock")
        options.freezer = .sigstop
        let daemon = try LiveDaemon(options: options)
        defer { daemon.shutdown() }
        /// A connection the daemon holds as a ctl client's, and the client's end.
        func connect() throws -> (daemonSide: Int32, client: Int32) {
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
            let c = Connection(fd: fds[0])
            c.role = .ctl
            daemon.connections[fds[0]] = c
            return (fds[0], fds[1])
        }
        /// Replies waiting at the client's end.
        func replies(_ fd: Int32) -> Int {
            var decoder = FrameDecoder(), buffer = [UInt8](repeating: 0, count: 65536), count = 0
            while case let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)), n > 0 { decoder.append(buffer[0..<n]) }
            while (try? decoder.next()) != nil { count += 1 }
            return count
        }
        let (flooded, flooder) = try connect(), (other, client) = try connect()
        let status = try #require(LiveMessage(type: "ctl", seq: 1, name: "status").frame())
        try UnixSocket.writeAll(flooder, Array(repeating: status, count: 100).flatMap { $0 })
        try UnixSocket.writeAll(client, status)
        daemon.turn += 1
        daemon.readFrom(flooded)
        daemon.readFrom(other)
        #expect(replies(flooder) == 16)
        #expect(replies(client) == 1)
        #expect(daemon.connections[flooded]?.hasBacklog == true)
        // The next turn serves the backlog without a read, 16 more.
        let buffered = daemon.connections[flooded]?.decoder.bufferedBytes
        daemon.turn += 1
        daemon.readFrom(flooded)
        daemon.serveBacklogs()
        #expect(replies(flooder) == 16)
        #expect(daemon.connections[flooded]?.decoder.bufferedBytes == buffered.map { $0 - 16 * status.count })
        for fd in [flooder, client] { close(fd) }
    }

    @Test("no more ctl connections than the limit, however many processes ask")
    func ctlConnectionsBounded() throws {
        let host = try LiveHost()
        // The test's own follower is one; three processes ask for 12 each (under their own share of 16).
        let flooders = try (0..<3).map { _ in try Flooder("ctl", host.socket, 12) }
        let welcomed = flooders.map(\.count).reduce(0, +)
        #expect(welcomed == 32 - 1, "welcomed \(welcomed)")
        try host.wait(for: ["kind": "connection.close", "reason": "over 32 ctl connections"])
        for f in flooders { f.end() }
        // Their connections are gone; ctl works again.
        #expect(try host.ctl("status").contains("freezer:"))
    }
}
