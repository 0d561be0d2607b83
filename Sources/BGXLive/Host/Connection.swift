import BGXCore
import Glibc

/// One client of the daemon's socket, as the daemon sees it: non-blocking,
/// with its own bounded outbox, so a slow or frozen peer never blocks the
/// daemon (Lomiri's failure: IPC to a frozen process that blocks the sender).
final class Connection {
    enum Role: Equatable {
        /// Has not said hello yet.
        case unknown
        /// The process the daemon launched for this app (checked on hello).
        case app(AppID)
        case ctl
        /// A ctl connection that asked for `trace --follow`.
        case follower
    }
    let fd: Int32
    var role = Role.unknown
    var decoder = FrameDecoder()
    var out: [UInt8] = []
    /// More unsent bytes than this and the peer is cut off (it is not reading).
    static let outboxLimit = 8 * 1024 * 1024

    init(fd: Int32) { self.fd = fd }
}

extension LiveDaemon {
    func acceptConnections() {
        while let fd = UnixSocket.accept(listener) { connections[fd] = Connection(fd: fd) }
    }

    func readFrom(_ fd: Int32) {
        guard let c = connections[fd] else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n < 0 { if errno == EAGAIN || errno == EINTR { return }; closeConnection(fd, why: nil); return }
        if n == 0 { closeConnection(fd, why: nil); return }
        c.decoder.append(buffer[0..<n])
        while connections[fd] != nil {
            let message: LiveMessage
            do {
                guard let payload = try c.decoder.next() else { return }
                message = try LiveMessage.decode(payload)
            } catch {
                closeConnection(fd, why: "\(error)")
                return
            }
            pump()
            handle(message, from: c)
            pump()
        }
    }

    /// Closes one connection; `why` is logged (a bad frame), the daemon carries on.
    func closeConnection(_ fd: Int32, why: String?) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        if let why {
            var who = "connection \(fd)"
            if case let .app(app) = c.role { who += " (\(engine.bundleIdentifier(app)))" }
            log("bgx daemon: closed \(who): \(why)")
            hostLine(nil, "connection.close", [("reason", .string(why))])
        }
        if case let .app(app) = c.role, let p = processes[app], p.connection == fd { p.connection = nil }
        close(fd)
    }

    func send(_ message: LiveMessage, to fd: Int32) {
        guard let c = connections[fd] else { return }
        guard let frame = message.frame() else { log("bgx daemon: dropped a message over the frame bound"); return }
        c.out.append(contentsOf: frame)
        flush(fd)
    }

    func flush(_ fd: Int32) {
        guard let c = connections[fd], !c.out.isEmpty else { return }
        let n = c.out.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if n > 0 { c.out.removeFirst(n) }
        if n < 0, errno != EAGAIN, errno != EINTR { closeConnection(fd, why: nil); return }
        if c.out.count > Connection.outboxLimit { closeConnection(fd, why: "the peer is not reading (over 8 MiB unsent)") }
    }

    func handle(_ message: LiveMessage, from c: Connection) {
        switch (message.type, c.role) {
        case ("hello", .unknown): hello(message, from: c)
        case ("call", .app(let app)):
            call(message, from: app, on: c.fd)
            if let p = processes[app] {
                noteCPUTime(p)
                noteResidentSize(p)
            }
        case ("ack", .app(let app)): acknowledge(message, from: app)
        case ("ctl", .ctl): control(message, on: c)
        case ("hello", _): closeConnection(c.fd, why: "a second hello")
        default: closeConnection(c.fd, why: "unexpected \(message.type) message")
        }
    }

    /// Binds a connection to its peer: an app's connection must come from the
    /// very process the daemon launched for it (SO_PEERCRED; the daemon holds
    /// that pid unreaped with a pidfd, so it cannot have been reused); ctl
    /// needs the daemon's own user (or root).
    func hello(_ message: LiveMessage, from c: Connection) {
        guard let peer = UnixSocket.peer(of: c.fd) else { closeConnection(c.fd, why: "no peer credentials"); return }
        switch message.role {
        case "ctl":
            guard peer.uid == geteuid() || peer.uid == 0 else {
                send(LiveMessage(type: "welcome", ok: false, text: "ctl needs the daemon's owner"), to: c.fd)
                closeConnection(c.fd, why: "ctl from uid \(peer.uid), not the daemon's owner")
                return
            }
            c.role = .ctl
            send(LiveMessage(type: "welcome", args: ["freezer": freezer.mechanism], ok: true), to: c.fd)
        case "app":
            guard let bundle = message.app, let app = engine.app(named: bundle), let p = processes[app],
                  p.pid == peer.pid else {
                let text = "pid \(peer.pid) is not a process this daemon launched for \(message.app ?? "(no app)")"
                send(LiveMessage(type: "welcome", ok: false, text: text), to: c.fd)
                closeConnection(c.fd, why: text)
                return
            }
            if let old = p.connection { closeConnection(old, why: "the app connected again") }
            c.role = .app(app)
            p.connection = c.fd
            send(LiveMessage(type: "welcome", args: ["state": "\(engine.state(of: app))"], ok: true), to: c.fd)
            let queued = p.queued
            p.queued.removeAll()
            for m in queued { send(m, to: c.fd) }
        default:
            closeConnection(c.fd, why: "hello without a role (app or ctl)")
        }
    }
}
