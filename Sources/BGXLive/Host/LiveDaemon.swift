import BGXCore
import CBGXLive
import Foundation
import Glibc

/// What `bgx daemon` is started with.
public struct DaemonOptions: Sendable {
    public var stateDirectory: String
    public var socketPath: String
    public var profile: PolicyProfile = .modern
    public var freezer: FreezerMode = .auto
    /// The device's memory in bytes (`--memory`); nil: the machine's.
    public var memory: Int64?
    /// The engine's time runs this many times faster than the monotonic
    /// clock (1 in use; tests shrink a 30 s budget to seconds with it).
    public var timeScale: Int64 = 1
    /// Where the state that outlives the daemon is kept (`BGXLiveStore`'s
    /// SQLite file); nil: in memory only, gone with the daemon.
    public var store: DurableStore?
    /// What moves background transfers' real bytes (BGXLiveTransfers' in
    /// bgx-daemon); nil: background transfers are refused.
    public var transferMover: TransferMover?
    /// What one client of the socket may take of the daemon.
    public var limits = ConnectionLimits()
    /// A snapshot of the state is stored with every this many journaled
    /// inputs, so a restart replays at most this many (`--snapshot-every`); 0: never.
    public var snapshotEvery = 10_000
    /// The journal's entries before the latest snapshot are kept (`--keep-journal`);
    /// by default they are deleted with each snapshot, so the file stays the size of one.
    public var keepJournal = false

    public init(stateDirectory: String, socketPath: String) {
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
    }
}

/// The live host: the engine in real time, carrying its directives out on
/// real processes (SWIM's shell around its pure instance). One thread, one
/// `ppoll` over the listening socket, the connections, each process's pidfd
/// and a signalfd; its timeout is exactly the engine's next event, so the
/// daemon sleeps until something happens and never polls.
public final class LiveDaemon {
    let options: DaemonOptions
    var engine: Engine
    /// The engine's names as of the last trace written, brought up to date before each write.
    var traceNames = TraceNames(apps: [], notifications: [], texts: [])
    let freezer: Freezer
    /// Monotonic nanoseconds at engine time 0.
    var start: Int64
    var listener: Int32 = -1
    var signals: Int32 = -1
    var connections: [Int32: Connection] = [:]
    var bundles: [AppID: AppBundle] = [:]
    var processes: [AppID: LiveProcess] = [:]
    /// Killed processes an app's next launch replaced before their exit was
    /// collected: still watched, so they are reaped (no zombie, no leaked pidfd).
    var exiting: [LiveProcess] = []
    var directives: [Directive] = []
    var nextSeq = 1
    var running = true
    let traceFD: Int32
    /// The journal's side: steps run, replay after a restart (Durable/).
    var durable = DurableHost()
    let auditFD: Int32
    /// One buffer for every read from a connection (the daemon has one thread).
    var readBuffer = [UInt8](repeating: 0, count: LiveDaemon.readSize)
    static let readSize = 16 * 1024
    /// Turns of the loop, so that each connection's frames are handled once a turn.
    var turn = 0
    /// Limits hit, by reason (what standard error is told of them is thinned).
    var limitsHit: [String: Int] = [:]
    /// Monotonic time of the last sample of running processes' CPU and memory.
    var lastResourceSample: Int64 = 0
    /// Where memory pressure is read (PSI), its last reading, and the level last told to the engine.
    var pressurePath: String?
    var lastPressure: PressureStall?
    var pressureLevel = DeviceState.MemoryPressure.normal
    /// Background transfers' requests and attempts (Transfers/).
    var transfers = LiveTransfers()

    public init(options: DaemonOptions) throws {
        self.options = options
        try FileManager.default.createDirectory(atPath: options.stateDirectory + "/logs", withIntermediateDirectories: true)
        let (freezer, warning) = try FreezerChoice.make(options.freezer)
        self.freezer = freezer
        var device = DeviceState()
        if let memory = options.memory { device.memory = memory } else { device.memory = Self.machineMemory() ?? device.memory }
        // Time of day at t = 0, for the scheduler's predictor: read once, here, by the host.
        let wall = Date().timeIntervalSince1970
        let epoch = Int64(wall)
        engine = Engine(profile: options.profile, device: device, seed: UInt64(truncatingIfNeeded: epoch),
                        wallClockOffset: (epoch % 86_400) * Time.nanosecondsPerSecond, startEpochSeconds: epoch)
        // Real bytes over real connections: a transfer ends when the host says so.
        engine.letHostMoveTransferBytes()
        start = MonotonicClock.now()
        // A restarted daemon carries on its predecessor's trace (its lines' times continue).
        let resuming = try options.store?.session() != nil
        traceFD = open(options.stateDirectory + "/trace.jsonl", O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | (resuming ? 0 : O_TRUNC), 0o644)
        auditFD = open(options.stateDirectory + "/audit.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard traceFD >= 0, auditFD >= 0 else { throw SystemError("open the trace in \(options.stateDirectory)") }
        if let warning { log(warning) }
        try restore()
        listener = try UnixSocket.listen(at: options.socketPath)
        signals = bgx_termination_signalfd()
        pressurePath = Self.pressureFile(root: freezer.root)
        log("bgx daemon: freezer \(freezer.mechanism)\(freezer.root.map { " at \($0)" } ?? ""), socket \(options.socketPath), "
            + "profile \(options.profile.name)\(options.timeScale == 1 ? "" : ", time ×\(options.timeScale)")")
        hostLine(nil, "daemon.start", [("freezer", .string(freezer.mechanism)), ("profile", .string(options.profile.name))])
        settleAfterRestart()
    }

    static func machineMemory() -> Int64? {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        return pages > 0 && size > 0 ? Int64(pages) * Int64(size) : nil
    }

    /// Diagnostics on standard error.
    func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    // MARK: Time

    /// The engine's now for this moment of the monotonic clock.
    func engineTime(_ mono: Int64) -> Nanoseconds { (mono - start) * options.timeScale }
    /// The monotonic moment the engine reaches `t` (rounded up, so waking then finds it due).
    func monotonicTime(_ t: Nanoseconds) -> Int64 { start + (t + options.timeScale - 1) / options.timeScale }

    /// Brings the engine up to the present: every event due by now runs, in order.
    func pump() {
        // While the journal is replayed, its step counts say when the engine ran.
        guard durable.mode == .live else { return }
        let target = engineTime(MonotonicClock.now())
        drain()
        while let next = engine.nextEventTime, next <= target {
            engine.step()
            durable.steps += 1
            drain()
        }
        if target > engine.now { engine.advanceClock(to: target) }
        reconcileTransfers()
        flushTrace()
    }

    /// Carries out the engine's directives until it has none left.
    func drain() {
        while engine.hasDirectives {
            engine.takeDirectives(into: &directives)
            guard durable.mode == .live else { continue }
            let batch = directives
            for directive in batch { carryOut(directive) }
        }
    }

    // MARK: The loop

    public func run() {
        while running {
            pump()
            turn += 1
            var fds: [pollfd] = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                                 pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                                 pollfd(fd: transfers.inbox.readFD, events: Int16(POLLIN), revents: 0)]
            var backlog = false
            for (fd, c) in connections {
                // One with whole frames still waiting is not read from: the kernel's buffer
                // fills and its sender waits, and the daemon's memory does not grow for it.
                backlog = backlog || c.hasBacklog
                let events = (c.hasBacklog ? 0 : Int16(POLLIN)) | (c.out.isEmpty ? 0 : Int16(POLLOUT))
                fds.append(pollfd(fd: fd, events: events, revents: 0))
            }
            for p in processes.values { fds.append(pollfd(fd: p.pidfd, events: Int16(POLLIN), revents: 0)) }
            for p in exiting { fds.append(pollfd(fd: p.pidfd, events: Int16(POLLIN), revents: 0)) }
            let now = MonotonicClock.now()
            // Exactly until the engine's next event (or the next look at running processes' CPU and
            // memory, a transfer's retry, or a connection's deadline); with none, until something
            // happens. Frames waiting from the last turn: look, do not wait.
            let wake = [engine.nextEventTime.map(monotonicTime), nextResourceSample, nextTransferRetry, nextConnectionDeadline]
                .compactMap { $0 }.min()
            let timeout = backlog ? 0 : wake.map { max(0, $0 - now) } ?? -1
            let ready = bgx_ppoll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 { if errno == EINTR { continue }; log("error: ppoll: \(SystemError("ppoll"))"); break }
            if let due = nextResourceSample, MonotonicClock.now() >= due { sampleResources() }
            enforceConnectionDeadlines()
            for p in fds where p.revents != 0 {
                if p.fd == listener { acceptConnections() }
                else if p.fd == signals { running = false }
                else if p.fd == transfers.inbox.readFD { transferReportsArrived() }
                else if let process = processes.values.first(where: { $0.pidfd == p.fd }) ?? exiting.first(where: { $0.pidfd == p.fd }) {
                    reap(process)
                }
                else if connections[p.fd] != nil {
                    if p.revents & Int16(POLLOUT) != 0 { flush(p.fd) }
                    if p.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrom(p.fd) }
                }
            }
            serveBacklogs()
        }
        shutdown()
    }

    /// Ends every app's process, removes the cgroups and the socket.
    func shutdown() {
        options.transferMover?.shutdown()
        for process in Array(processes.values) + exiting {
            process.killedFor = "daemon shutdown"
            _ = try? freezer.kill(process)
            var status: Int32 = 0
            while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
            freezer.release(process)
            recordReaped(process)
            close(process.pidfd)
        }
        processes.removeAll()
        exiting.removeAll()
        freezer.removeRoot()
        if let root = freezer.root { try? options.store?.forgetCgroupRoot(root) }
        for fd in connections.keys { close(fd) }
        connections.removeAll()
        unlink(options.socketPath)
        close(listener)
        log("bgx daemon: stopped")
    }

    // MARK: Trace

    /// Writes the engine's new trace events (the trace file, followers).
    func flushTrace() {
        guard !engine.trace.isEmpty else { return }
        engine.updateTraceNames(&traceNames)
        let renderer = TraceRenderer(names: traceNames)
        for event in engine.trace {
            let line = renderer.jsonLine(event)
            if durable.mode != .live, !writeReplayedLine(line) { continue }
            if case let .terminate(reason, _) = event.kind { audit(line, code: reason.code) }
            if case .memoryKill = event.kind { audit(line, code: nil) }
            emit(line)
        }
        engine.trace.removeAll(keepingCapacity: true)
        // Decisions only written lines referred to are let go: the daemon's size stays flat.
        engine.traceWritten()
    }

    /// A line of the host's own (`process.*`, `daemon.*`), in the trace's format and time.
    func hostLine(_ app: AppID?, _ kind: String, _ fields: [(String, TraceField)]) {
        flushTrace()
        var line = "{\"t\": " + Time.format(engine.now)
        if let app {
            line += ", \"app\": "
            TraceRenderer.appendJSONString(engine.bundleIdentifier(app), to: &line)
        }
        line += ", \"kind\": \"" + kind + "\""
        for (name, value) in fields {
            line += ", \"" + name + "\": "
            switch value {
            case let .string(s): TraceRenderer.appendJSONString(s, to: &line)
            case let .bool(b): line += b ? "true" : "false"
            case let .number(n): line += n == n.rounded() ? String(Int64(n)) : "\(n)"
            }
        }
        line += "}"
        if durable.mode != .live, !writeReplayedLine(line) { return }
        if kind == "process.kill" { audit(line, code: nil) }
        emit(line)
    }

    func emit(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(traceFD, $0.baseAddress, $0.count) }
        for (fd, c) in connections where c.role == .follower {
            send(LiveMessage(type: "trace", text: line), to: fd)
        }
    }

    /// The audit log: every kill, with its reason and code.
    func audit(_ line: String, code: String?) {
        let text = line + (code.map { " code=\($0)" } ?? "") + "\n"
        _ = Array(text.utf8).withUnsafeBytes { write(auditFD, $0.baseAddress, $0.count) }
        recordAudit(line, code: code)
    }
}
