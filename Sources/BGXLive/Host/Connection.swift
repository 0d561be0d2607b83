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
    /// Who connected (SO_PEERCRED, read as it is accepted).
    var peer: (pid: pid_t, uid: uid_t)?
    /// Monotonic time it connected, and of its last whole frame.
    var opened: Int64 = 0
    var lastFrame: Int64 = 0
    /// The loop's turn in which its frames were last handled (one share a turn).
    var servedTurn = -1

    init(fd: Int32) { self.fd = fd }

    /// It has whole frames it did not get to handle in its last turn: nothing
    /// more is read from it until they are.
    var hasBacklog: Bool { decoder.hasWholeFrame }

    /// When it is cut off for not saying hello, or for a frame left half sent.
    func deadline(_ limits: ConnectionLimits) -> (at: Int64, why: String)? {
        if role == .unknown {
            return (opened + limits.helloDeadline, "no hello within \(Time.describe(limits.helloDeadline)) of connecting")
        }
        guard decoder.bufferedBytes > 0, !hasBacklog else { return nil }
        return (lastFrame + limits.frameDeadline,
                "a frame begun and not finished within \(Time.describe(limits.frameDeadline)) (\(decoder.bufferedBytes) bytes of it)")
    }
}

extension LiveDaemon {
    /// Takes every waiting connection, refusing (closing at once, with the
    /// reason) those over a limit: in all, unauthenticated, from one process
    /// or one user.
    func acceptConnections() {
        while let fd = UnixSocket.accept(listener) {
            let c = Connection(fd: fd)
            c.peer = UnixSocket.peer(of: fd)
            c.opened = MonotonicClock.now()
            c.lastFrame = c.opened
            if let why = refusal(of: c) {
                refuse(c, why: why)
                continue
            }
            connections[fd] = c
        }
    }

    /// Why a new connection is over a limit, or nil. Slots before hello are
    /// shared by strangers only: a user on the `ctl` allow list, and a process
    /// the daemon launched, are never counted against them, so a flood from
    /// elsewhere cannot keep `bgx ctl` or an app out.
    func refusal(of c: Connection) -> String? {
        let limits = options.limits
        if connections.count >= limits.connections { return "over \(limits.connections) connections" }
        guard let peer = c.peer else { return "no peer credentials" }
        if connections.values.filter({ $0.peer?.pid == peer.pid }).count >= limits.perProcess {
            return "over \(limits.perProcess) connections from pid \(peer.pid)"
        }
        if connections.values.filter({ $0.peer?.uid == peer.uid }).count >= limits.perUser {
            return "over \(limits.perUser) connections from uid \(peer.uid)"
        }
        if isTrusted(peer) { return nil }
        let waiting = connections.values.filter { $0.role == .unknown && !($0.peer.map(isTrusted) ?? false) }
        if waiting.filter({ $0.peer?.uid == peer.uid }).count >= limits.unauthenticatedPerUser {
            return "over \(limits.unauthenticatedPerUser) connections from uid \(peer.uid) that have not said hello"
        }
        if waiting.count >= limits.unauthenticated {
            return "over \(limits.unauthenticated) connections that have not said hello"
        }
        return nil
    }

    /// A peer whose pre-hello connections are not counted: a `ctl` user, or a process this daemon launched.
    func isTrusted(_ peer: (pid: pid_t, uid: uid_t)) -> Bool {
        options.ctlUsers.contains(peer.uid) || processes.values.contains { $0.pid == peer.pid }
    }

    /// Whether a process is an app's or one of its descendants': the daemon
    /// launched it, or it sits in the daemon's cgroup subtree (where every
    /// app's process and child is; a child that left its parent is still there).
    func isAppProcess(_ pid: pid_t) -> Bool {
        if processes.values.contains(where: { $0.pid == pid }) { return true }
        guard let root = freezer.root, let own = CgroupFiles.read("/proc/\(pid)/cgroup") else { return false }
        let mark = "/bgx-daemon-\(getpid())"
        return own.split(separator: "\n").contains { line in
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let r = parts[2].range(of: mark) else { return false }
            let head = parts[2][..<r.upperBound]
            return root.hasSuffix(head) && (r.upperBound == parts[2].endIndex || parts[2][r.upperBound] == "/")
        }
    }

    /// Closes a connection never taken, logging why (a limit).
    func refuse(_ c: Connection, why: String) {
        close(c.fd)
        let who = c.peer.map { "pid \($0.pid)" } ?? "an unknown peer"
        logThinned("bgx daemon: refused a connection from \(who): \(why)", reason: why)
        hostLine(nil, "connection.refuse", [("pid", .number(Double(c.peer?.pid ?? 0))), ("reason", .string(why))])
    }

    /// Every limit hit is in the trace; standard error gets the 1st, 10th,
    /// 100th … of each reason, so a flood cannot fill it (nor block the
    /// daemon on a full pipe).
    func logThinned(_ message: String, reason: String) {
        limitsHit[reason, default: 0] += 1
        let n = limitsHit[reason]!
        if n == 1 || n % 10 == 0 && String(n).dropFirst().allSatisfy({ $0 == "0" }) {
            log(message + (n > 1 ? " (\(n) so far)" : ""))
        }
    }

    /// Reads what a connection sent — nothing while it still has whole frames
    /// waiting from its last turn — and handles its share of frames.
    func readFrom(_ fd: Int32) {
        guard let c = connections[fd] else { return }
        if !c.hasBacklog {
            let n = recv(fd, &readBuffer, readBuffer.count, 0)
            if n < 0 { if errno == EAGAIN || errno == EINTR { return }; closeConnection(fd, why: nil); return }
            if n == 0 { closeConnection(fd, why: nil); return }
            c.decoder.append(readBuffer[0..<n])
        }
        handleFrames(of: c)
    }

    /// Handles at most `framesPerTurn` of a connection's whole frames, once a turn.
    func handleFrames(of c: Connection) {
        guard c.servedTurn != turn else { return }
        c.servedTurn = turn
        for _ in 0..<options.limits.framesPerTurn {
            guard connections[c.fd] === c else { return }
            let message: LiveMessage
            do {
                guard let payload = try c.decoder.next() else { return }
                message = try LiveMessage.decode(payload)
            } catch {
                closeConnection(c.fd, why: "\(error)")
                return
            }
            c.lastFrame = MonotonicClock.now()
            clockToInput()
            handle(message, from: c)
            clockToInput()
            flushTrace()
        }
    }

    /// Connections whose frames wait from an earlier turn (read no more from them).
    func serveBacklogs() {
        for c in Array(connections.values) where c.hasBacklog { handleFrames(of: c) }
    }

    /// The next moment a connection is due to be cut off, if any.
    var nextConnectionDeadline: Int64? {
        connections.values.compactMap { $0.deadline(options.limits)?.at }.min()
    }

    /// Closes the connections past their hello or frame deadline.
    func enforceConnectionDeadlines() {
        let now = MonotonicClock.now()
        for c in Array(connections.values) {
            if let (at, why) = c.deadline(options.limits), at <= now { closeConnection(c.fd, why: why, thinned: true) }
        }
    }

    /// Closes one connection; `why` is logged (a bad frame), the daemon carries on.
    /// `thinned`: a limit hit, logged as `logThinned` says.
    func closeConnection(_ fd: Int32, why: String?, thinned: Bool = false) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        if let why {
            var who = "connection \(fd)"
            if case let .app(app) = c.role { who += " (\(engine.bundleIdentifier(app)))" }
            if thinned { logThinned("bgx daemon: closed \(who): \(why)", reason: why) } else { log("bgx daemon: closed \(who): \(why)") }
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
            if let p = processes[app] { noteResources(p) }
        case ("ack", .app(let app)): acknowledge(message, from: app)
        case ("ctl", .ctl): control(message, on: c)
        case ("hello", _): closeConnection(c.fd, why: "a second hello")
        default: closeConnection(c.fd, why: "unexpected \(message.type) message")
        }
    }

    /// Binds a connection to its peer: an app's connection must come from the
    /// very process the daemon launched for it (SO_PEERCRED; the daemon holds
    /// that pid unreaped with a pidfd, so it cannot have been reused); ctl
    /// needs a user on the allow list (`--ctl-user`; root and the daemon's own
    /// user by default) and a process that is not an app's.
    func hello(_ message: LiveMessage, from c: Connection) {
        guard let peer = UnixSocket.peer(of: c.fd) else { closeConnection(c.fd, why: "no peer credentials"); return }
        switch message.role {
        case "ctl":
            // Who may drive the daemon is decided by the kernel's word on the peer, never by the
            // hello: a user on the allow list, and not an app's process (which may share that user
            // when the daemon cannot give apps their own).
            let refusal: String?
            if !options.ctlUsers.contains(peer.uid) {
                refusal = "uid \(peer.uid) is not on the daemon's ctl allow list"
            } else if isAppProcess(peer.pid) {
                refusal = "pid \(peer.pid) is an app's process"
            } else {
                refusal = nil
            }
            if let refusal {
                send(LiveMessage(type: "welcome", ok: false, text: "ctl refused: \(refusal)"), to: c.fd)
                closeConnection(c.fd, why: "ctl refused: \(refusal)")
                return
            }
            let ctls = connections.values.filter { $0.role == .ctl || $0.role == .follower }.count
            guard ctls < options.limits.ctl else {
                let text = "over \(options.limits.ctl) ctl connections"
                send(LiveMessage(type: "welcome", ok: false, text: text), to: c.fd)
                closeConnection(c.fd, why: text, thinned: true)
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
