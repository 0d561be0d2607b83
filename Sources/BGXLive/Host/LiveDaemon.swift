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
    /// Start over on purpose on a state directory whose database is missing,
    /// emptied or another's (`--fresh`); otherwise that is refused.
    public var fresh = false
    /// Carry on from the journal's last good entry when it is corrupted or cut
    /// short, losing the inputs after it (`--restore-to-last-good`); otherwise that is refused.
    public var restoreToLastGood = false
    /// The trace and each app's log rotate at this many bytes (`--rotate-size`); 0: never.
    public var rotateSize: Int64 = 64 * 1024 * 1024
    /// Bytes kept free on the state's disk for ends, completions and audit
    /// lines when it fills (`--disk-reserve`; see `DiskReserve`); 0: none.
    public var diskReserve: Int64 = 4 * 1024 * 1024
    /// The users whose processes may speak as `bgx ctl` (`--ctl-user`): root and the daemon's own by default.
    public var ctlUsers: Set<uid_t> = [0, geteuid()]
    /// The users apps run as, when the daemon runs as root (`--app-user`).
    public var appUsers = AppUsers.perApp(base: AppUsers.defaultBase)
    /// Where each app's data container is made (`--containers`): the only
    /// place an app may write, owned by its user. Outside the state
    /// directory, which no app may enter.
    public var containersDirectory: String
    /// Where the platform's truth comes from (`--platform`; see `PlatformSource`): none by default.
    public var platformSources: [PlatformSource] = []
    /// systemd's `Type=notify` socket, when started by systemd.
    public var systemd: SystemdNotifier?
    /// `status` lines on sources that could not be had (systemd absent, say).
    public var platformNotes: [String] = []
    /// A compositor's app id → the bundle identifier it stands for (`--app-id`); unmapped, the app id is one.
    public var appIDs: [String: String] = [:]

    public init(stateDirectory: String, socketPath: String) {
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        containersDirectory = stateDirectory + "-containers"
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
    /// SIGTERM arrived: apps are being ended; nothing new is started for `ctl`.
    var shuttingDown = false
    var traceFD: Int32 = -1
    /// Times the trace was rotated by this daemon.
    var rotations = 0
    /// The journal's side: steps run, replay after a restart (Durable/).
    var durable = DurableHost()
    var auditFD: Int32 = -1
    /// Room kept on the state's disk for what must never be refused (`DiskReserve`).
    var disk: DiskReserve
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

    /// The state directory, its `logs`, and the apps' containers' parent (see `PrivateDirectory`).
    let stateDirectory: PrivateDirectory
    let logsDirectory: PrivateDirectory
    let containers: PrivateDirectory
    /// Per-app users already checked to belong to nobody on the machine.
    var checkedAppUsers: Set<uid_t> = []
    /// Which platform sources are live now, by name.
    var platformLive: [String: Bool] = [:]
    /// The compositor's last word on its activated toplevel's app id (`.some(nil)`: none).
    var compositorFront: String??

    public init(options: DaemonOptions) throws {
        self.options = options
        stateDirectory = try PrivateDirectory(options.stateDirectory, mode: 0o700)
        logsDirectory = try PrivateDirectory("logs", mode: 0o700, in: stateDirectory)
        // Apps pass through it to their own container (each 0700, theirs) and list nothing.
        containers = try PrivateDirectory(options.containersDirectory, mode: 0o711, noSymlinks: false)
        // Before any cgroup is made: a daemon that cannot start leaves none behind.
        disk = try DiskReserve(directory: stateDirectory, size: options.diskReserve)
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
        do { try startUp(warning: warning) } catch {
            freezer.removeRoot()
            throw error
        }
    }

    /// The rest of `init`, once the freezer (and its cgroup subtree) exists:
    /// if it throws, `init` removes that subtree.
    private func startUp(warning: String?) throws {
        // A restarted daemon carries on its predecessor's trace (its lines' times continue).
        let stored = try options.store?.session()
        let resuming = stored != nil
        // Before the trace is opened (a first start empties it): a state that lost its database is refused.
        if options.store != nil { try checkNothingLost(stored: stored) }
        traceFD = try stateDirectory.openFile("trace.jsonl", flags: O_RDWR | O_APPEND | (resuming ? 0 : O_TRUNC))
        auditFD = try stateDirectory.openFile("audit.log", flags: O_WRONLY | O_APPEND)
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

    /// Brings the engine's clock up to an input's arrival without running an
    /// event: to now, or to the next event's time if that has passed — the
    /// input is taken before it (arrival order).
    func clockToInput() {
        guard durable.mode == .live else { return }
        drain()
        let target = min(engineTime(MonotonicClock.now()), engine.nextEventTime ?? .max)
        if target > engine.now { engine.advanceClock(to: target) }
    }

    /// A wake-up over `stallThreshold` late means the daemon itself did not
    /// run (stopped, or starved of a CPU): the engine's time does not count
    /// that, so an app is never charged for the daemon's absence — a budget
    /// or watchdog that would have run out meanwhile has what was left of it.
    /// Traced (`daemon.stall`) and kept in the session, so a restart agrees.
    func noteStall(late: Int64) {
        guard late > Self.stallThreshold, durable.mode == .live else { return }
        start += late
        for c in connections.values {
            c.opened += late
            c.lastFrame += late
        }
        hostLine(nil, "daemon.stall", [("seconds", .number((Double(late) / 1e6).rounded() / 1000))])
        log("bgx daemon: woke \(Time.describe(late)) late (stopped, or starved of a CPU): the engine's time does not count it")
        if let store = options.store, var session = try? store.session() {
            session.monotonicStart = start
            try? store.saveSession(session)
        }
    }
    /// Later than this, a wake-up is the daemon's stall, not scheduling's jitter.
    static let stallThreshold: Int64 = 1_000_000_000

    // MARK: The loop

    public func run() {
        // When the loop last knew it was running: a span between two such marks longer
        // than `stallThreshold`, outside the wait in ppoll, is a stall too (stopped mid-turn).
        var mark = MonotonicClock.now()
        startPlatform()
        while running {
            noteStall(late: MonotonicClock.now() - mark)
            pump()
            mark = MonotonicClock.now()
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
            for source in options.platformSources where source.descriptor >= 0 {
                fds.append(pollfd(fd: source.descriptor, events: Int16(POLLIN), revents: 0))
            }
            let now = MonotonicClock.now()
            // Exactly until the engine's next event (or the next look at running processes' CPU and
            // memory, a transfer's retry, or a connection's deadline); with none, until something
            // happens. Frames waiting from the last turn: look, do not wait.
            let wake = [engine.nextEventTime.map(monotonicTime), nextResourceSample, nextTransferRetry, nextConnectionDeadline,
                        nextPlatformWake]
                .compactMap { $0 }.min()
            let timeout = backlog ? 0 : wake.map { max(0, $0 - now) } ?? -1
            noteStall(late: now - mark)
            let ready = bgx_ppoll(&fds, nfds_t(fds.count), timeout)
            mark = MonotonicClock.now()
            // Before anything else, EINTR too: a stopped and continued daemon's ppoll may return so.
            if let wake, !backlog { noteStall(late: mark - max(wake, now)) }
            if ready < 0 { if errno == EINTR { continue }; log("error: ppoll: \(SystemError("ppoll"))"); break }
            // Arrival order: what reached the socket while the daemon waited is taken before the
            // engine's events that fell due meanwhile, so a call sent before a deadline counts
            // however late the daemon reads it (handleFrames steps no event; the loop's pump does).
            for p in fds where p.revents != 0 {
                if p.fd == listener { acceptConnections() }
                else if connections[p.fd] != nil {
                    if p.revents & Int16(POLLOUT) != 0 { flush(p.fd) }
                    if p.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrom(p.fd) }
                }
            }
            if let due = nextResourceSample, MonotonicClock.now() >= due { sampleResources() }
            enforceConnectionDeadlines()
            for p in fds where p.revents != 0 {
                if p.fd == signals { terminationAsked() }
                else if p.fd == transfers.inbox.readFD { transferReportsArrived() }
                else if let process = processes.values.first(where: { $0.pidfd == p.fd }) ?? exiting.first(where: { $0.pidfd == p.fd }) {
                    reap(process)
                }
            }
            serveBacklogs()
            if !options.platformSources.isEmpty || options.systemd != nil {
                servePlatform(ready: Set(fds.filter { $0.revents != 0 }.map(\.fd)))
            }
            if shuttingDown, processes.isEmpty, exiting.isEmpty { running = false }
        }
        shutdown()
    }

    /// SIGTERM or SIGINT: the device shuts down as iOS's does (`Engine.shutDown`:
    /// `willTerminate` for a running app whose main thread is free, the others
    /// ended at once), journaled, and the daemon stops once every app's process
    /// is gone — the willTerminate watchdog bounds the wait. A second signal stops it at once.
    func terminationAsked() {
        var info = [UInt8](repeating: 0, count: 128)
        _ = read(signals, &info, info.count)
        if shuttingDown { running = false; return }
        shuttingDown = true
        options.systemd?.stopping()
        log("bgx daemon: shutting down: apps hear willTerminate where it applies")
        pump()
        journal(.control(verb: "shutdown", args: []))
        engine.shutDown()
        pump()
    }

    /// Ends every app's process, removes the cgroups and the socket.
    func shutdown() {
        options.transferMover?.shutdown()
        stopPlatform()
        for process in Array(processes.values) + exiting {
            let first = process.killedFor == nil
            process.killedFor = "daemon shutdown"
            if let how = try? freezer.kill(process), first {
                hostLine(process.app, "process.kill", [("pid", .number(Double(process.pid))), ("signal", .string("SIGKILL")),
                                                       ("mechanism", .string(how)), ("reason", .string("daemon shutdown"))])
            }
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
        hostLine(nil, "daemon.stop", [("reason", .string(shuttingDown ? "every app ended after SIGTERM" : "stopped at once"))])
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
            switch event.kind {
            case let .terminate(reason, _): writeLine(line, audited: true, code: reason.code)
            case .memoryKill: writeLine(line, audited: true, code: nil)
            default: writeLine(line, audited: false, code: nil)
            }
        }
        engine.trace.removeAll(keepingCapacity: true)
        // Decisions only written lines referred to are let go: the daemon's size stays flat.
        engine.traceWritten()
    }

    /// A line of the host's own (`process.*`, `daemon.*`), in the trace's format and time
    /// (by hand, as `TraceRenderer.jsonLine` writes the engine's: the trace is a byte contract).
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
        writeLine(line, audited: kind == "process.kill", code: nil)
    }

    /// A trace line (and its audit line): written live; in a replay, not at
    /// all (it was written before); in the catch-up after a crash, held until
    /// the trace the dead daemon left is found to agree with the journal.
    func writeLine(_ line: String, audited: Bool, code: String?) {
        switch durable.mode {
        case .live:
            if audited { audit(line, code: code) }
            emit(line)
        case .replay:
            return
        case .catchUp:
            let written = durable.tail?.alreadyWritten(line) ?? false
            durable.caughtUp.append(.init(line: line, audited: audited, code: code, alreadyWritten: written))
        }
    }

    func emit(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        writeKeeping(bytes, to: traceFD, "the trace")
        for (fd, c) in connections where c.role == .follower {
            send(LiveMessage(type: "trace", text: line), to: fd)
        }
    }

    /// Appends a line whole; a full disk gives back the reserve and the line is written again.
    func writeKeeping(_ bytes: [UInt8], to fd: Int32, _ what: String) {
        for attempt in 0..<2 {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n == bytes.count { return }
            let error = n < 0 ? errno : ENOSPC
            if n > 0 { _ = ftruncate(fd, lseek(fd, 0, SEEK_END) - off_t(n)) }  // no half line
            guard attempt == 0, error == ENOSPC || error == EDQUOT, disk.release("\(what): \(String(cString: strerror(error)))") else {
                log("bgx daemon: could not write \(what): \(String(cString: strerror(error)))")
                return
            }
            log("bgx daemon: " + (disk.full ?? "the disk is full"))
        }
    }

    /// The audit log: every kill, with its reason and code.
    func audit(_ line: String, code: String?) {
        let text = line + (code.map { " code=\($0)" } ?? "") + "\n"
        writeKeeping(Array(text.utf8), to: auditFD, "the audit log")
        recordAudit(line, code: code)
    }
}
