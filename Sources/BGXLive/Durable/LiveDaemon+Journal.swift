import BGXCore
import CBGXLive
import Foundation
import Glibc

/// The live host's durability: every input to the engine is journaled (and
/// committed) before the engine sees it; a restarted daemon rebuilds the
/// engine by replaying the journal — the engine is a pure deterministic
/// value, so the same inputs after the same steps at the same times give the
/// same state — reaps what the dead daemon left running, and carries on in
/// the same engine time, so timers that fell due while it was down run now.
extension LiveDaemon {
    /// Journals one input before it is acted on; false when it could not be
    /// written (the caller refuses the input: nothing happens that is not on disk).
    @discardableResult
    func journal(_ input: JournalInput) -> Bool {
        guard durable.mode == .live, let store = options.store else { return true }
        // Every line the engine has made so far is in the file before the offset is taken.
        flushTrace()
        rotateTraceIfDue()
        let entry = JournalEntry(steps: durable.steps, clock: engine.now, traceOffset: Int64(lseek(traceFD, 0, SEEK_END)),
                                 monotonic: MonotonicClock.now(), wall: Date().timeIntervalSince1970, input: input)
        do {
            var snapshot: StoredSnapshot?, took: Int64 = 0
            if options.snapshotEvery > 0, durable.sinceSnapshot >= options.snapshotEvery {
                let began = MonotonicClock.now()
                snapshot = takeSnapshot()
                took = MonotonicClock.now() - began
                // Taken or not (its failure is logged), the next is a whole interval away.
                durable.sinceSnapshot = 0
            }
            if let snapshot {
                let seq = try store.append(entry, snapshot: snapshot, compact: !options.keepJournal)
                durable.lastSnapshot = (seq, snapshot.body.count, took)
                bgx_release_free_memory()
            } else {
                try store.append(entry)
            }
            durable.sinceSnapshot += 1
        } catch {
            // A full disk gives back the reserve once, and the entry is written again: an app's end
            // or completion is never refused for want of room (new work is, see DiskReserve).
            guard DiskReserve.free(stateDirectory.fd) < max(disk.size, 1 << 20) || "\(error)".contains("full"),
                  disk.release("\(error)"), (try? store.append(entry)) != nil else {
                log("bgx daemon: could not journal \(input.kind): \(error)")
                return false
            }
            log("bgx daemon: " + (disk.full ?? "the disk is full"))
            durable.sinceSnapshot += 1
        }
        if let crash = durable.crashAfter, crash.kind == input.kind {
            if crash.count <= 1 { _ = Glibc.kill(getpid(), SIGKILL) }
            durable.crashAfter = (crash.kind, crash.count - 1)
        }
        return true
    }

    // MARK: Restart

    /// Before the daemon listens: makes the engine from the stored session (or
    /// stores a new one), kills what a dead daemon left, replays the journal.
    func restore() throws {
        guard let store = options.store else { return }
        try lockStateDirectory()
        if let spec = ProcessInfo.processInfo.environment["BGX_CRASH_AFTER_JOURNAL"] {
            let parts = spec.split(separator: ":")
            durable.crashAfter = (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
        }
        let bootID = (CgroupFiles.read("/proc/sys/kernel/random/boot_id") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let monoNow = MonotonicClock.now(), wallNow = Date().timeIntervalSince1970
        try checkJournal(store)
        let lastEntry = try store.lastEntry()
        var session: DaemonSession
        if let stored = try store.session() {
            guard stored.timeScale == options.timeScale else {
                throw SystemError("\(options.stateDirectory) was made with --time-scale \(stored.timeScale)", code: EINVAL)
            }
            session = stored
            if session.profile != options.profile.name { log("bgx daemon: profile \(session.profile), as stored in the state") }
            if session.bootID != bootID {
                // Another boot: the monotonic clock restarted; the wall clock says how long the daemon was away.
                let lastClock = lastEntry?.clock ?? 0, lastWall = lastEntry?.wall ?? wallNow
                let away = Int64(max(0, wallNow - lastWall) * 1e9) * options.timeScale
                session.monotonicStart = monoNow - (lastClock + away) / options.timeScale
                session.bootID = bootID
                try store.saveSession(session)
            }
        } else {
            let epoch = Int64(wallNow)
            session = DaemonSession(seed: UInt64(truncatingIfNeeded: epoch), wallClockOffset: (epoch % 86_400) * Time.nanosecondsPerSecond,
                                    startEpochSeconds: epoch, profile: options.profile.name, memory: engine.device.memory,
                                    timeScale: options.timeScale, monotonicStart: monoNow, bootID: bootID)
            try store.saveSession(session)
        }
        try writeMarker(session)
        // The profile as given (with --cpu-limit and the like) when it is the stored one.
        guard let profile = session.profile == options.profile.name ? options.profile : PolicyProfile.named(session.profile) else {
            throw SystemError("the state's profile \(session.profile) is unknown", code: EINVAL)
        }
        var device = DeviceState()
        device.memory = session.memory
        engine = Engine(profile: profile, device: device, seed: session.seed, wallClockOffset: session.wallClockOffset,
                        startEpochSeconds: session.startEpochSeconds)
        engine.letHostMoveTransferBytes()
        // The new engine names its own texts.
        traceNames = TraceNames(apps: [], notifications: [], texts: [])
        start = session.monotonicStart
        durable.steps = 0

        // Before any policy runs: what the dead daemon left running is ended.
        durable.leftovers = reapLeftovers(store)
        if let root = freezer.root { try store.recordCgroupRoot(root) }

        guard let last = lastEntry else { return }
        durable.mode = .replay
        // From the latest snapshot, if there is one: the journal before it may be gone.
        var after: Int64 = .min, count = 1
        var from = ""
        if let snapshot = try usableSnapshot(store) {
            after = snapshot.seq - 1
            from = "the snapshot at entry \(snapshot.seq) and "
        }
        // A page at a time: an hour's journal of a busy daemon is hundreds of thousands of entries.
        while true {
            let page = try store.entries(after: after, limit: Self.replayPage)
            guard let end = page.last else { break }
            for entry in page where entry.seq != last.seq {
                replay(entry)
                count += 1
            }
            after = end.seq
        }
        durable.sinceSnapshot = count
        // The steps before the last input ran before it was journaled, so their lines are written.
        replaySteps(to: last)
        durable.tail = TraceTail(fd: traceFD, from: last.traceOffset, rotated: rotatedTrace())
        durable.mode = .catchUp
        replay(last)
        // Up to the last moment the dead daemon is known to have reached.
        let reached = min(max(last.clock, durable.tail?.lastTime ?? 0), engineTime(monoNow))
        while let next = engine.nextEventTime, next <= reached { replayStep() }
        if reached > engine.now { engine.advanceClock(to: reached) }
        try settleCatchUp(last: last)
        log("bgx daemon: restored \(from)\(count) journaled input(s) from \(options.stateDirectory), "
            + "engine time \(Time.describe(engine.now))")
    }

    // MARK: Snapshots

    /// The state just before the input being journaled (its trace lines are
    /// written, its steps run), encoded; nil, with the reason logged, when it
    /// cannot be (the input is journaled without one: a later one will do).
    func takeSnapshot() -> StoredSnapshot? {
        let snapshot = DaemonSnapshot(engine: engine, steps: durable.steps, bundles: bundles, transfers: transfers.stored)
        do {
            return StoredSnapshot(format: DaemonSnapshot.format, body: try DaemonSnapshot.encoder.encode(snapshot))
        } catch {
            log("bgx daemon: could not take a snapshot: \(error)")
            return nil
        }
    }

    /// The latest snapshot, made the daemon's state; nil when there is none.
    /// One this daemon cannot read is passed over when the journal is whole
    /// (replayed from its first entry instead), and refused when the entries
    /// before it are gone: nothing is pretended.
    func usableSnapshot(_ store: DurableStore) throws -> StoredSnapshot? {
        guard let stored = try store.latestSnapshot() else { return nil }
        var problem: String
        if stored.format == DaemonSnapshot.format {
            do {
                let snapshot = try DaemonSnapshot.decoder.decode(DaemonSnapshot.self, from: stored.body)
                engine = snapshot.engine
                durable.steps = snapshot.steps
                bundles = snapshot.bundles
                transfers.restore(snapshot.transfers)
                durable.lastSnapshot = (stored.seq, stored.body.count, nil)
                return stored
            } catch {
                problem = "its snapshot at entry \(stored.seq) does not decode (\(error))"
            }
        } else {
            problem = "its snapshot at entry \(stored.seq) is of format \(stored.format); this daemon reads format \(DaemonSnapshot.format)"
        }
        if try store.firstEntry()?.seq == 1 {
            log("bgx daemon: \(problem): replaying the whole journal instead")
            return nil
        }
        throw SystemError("\(options.stateDirectory): \(problem), and the journal before it was compacted away; "
                          + "start this daemon with a fresh --state directory, or run the bgx that made it", code: EINVAL)
    }

    /// Journal entries read at once at a restart.
    static let replayPage = 4096

    /// After `daemon.start`: the processes found left over are reported with
    /// their reason, and the engine hears that every app it thought running
    /// lost its process with the daemon that died.
    func settleAfterRestart() {
        for leftover in durable.leftovers {
            let app = engine.app(named: leftover.app)
            hostLine(app, "process.kill", [("pid", .number(Double(leftover.pid))), ("signal", .string("SIGKILL")),
                                           ("mechanism", .string(leftover.mechanism)), ("reason", .string("daemonRestart"))])
        }
        durable.leftovers.removeAll()
        for app in engine.appIDs where engine.state(of: app) != .notRunning {
            let bundle = engine.bundleIdentifier(app)
            let detail = "the daemon restarted; the process was lost with the daemon that started it"
            journal(.exited(app: bundle, detail: detail))
            engine.terminate(app, .exit, detail: detail)
        }
        drain()
        flushTrace()
    }

    /// One daemon per state directory: a second one would replay and write the same journal.
    func lockStateDirectory() throws {
        let fd = try stateDirectory.openFile("daemon.lock", flags: O_RDWR)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SystemError("another bgx daemon is using \(options.stateDirectory)", code: EBUSY)
        }
        durable.lockFD = fd
    }

    func replay(_ entry: JournalEntry) {
        replaySteps(to: entry)
        if entry.clock > engine.now, engine.nextEventTime.map({ $0 >= entry.clock }) ?? true {
            engine.advanceClock(to: entry.clock)
        }
        apply(entry.input)
        discardDirectives()
        flushTrace()
    }

    /// The engine steps the live daemon ran before the entry arrived.
    func replaySteps(to entry: JournalEntry) {
        while durable.steps < entry.steps {
            guard engine.nextEventTime != nil else {
                log("bgx daemon: the journal diverged at entry \(entry.seq): no event for step \(durable.steps + 1)")
                break
            }
            replayStep()
        }
    }

    func replayStep() {
        engine.step()
        durable.steps += 1
        discardDirectives()
        flushTrace()
    }

    /// While replaying, directives are not carried out: they were, by the dead daemon.
    func discardDirectives() {
        while engine.hasDirectives { engine.takeDirectives(into: &directives) }
    }

    /// An input as the live daemon took it, through the same code.
    func apply(_ input: JournalInput) {
        switch input {
        case let .install(path, plist):
            do {
                let bundle = try AppBundle(directory: path, infoPlist: plist)
                let app = engine.install(bundle.manifest)
                bundles[app] = bundle
                hostLine(app, "app.install", [("path", .string(bundle.path))])
            } catch {
                log("bgx daemon: the journal's install of \(path) failed: \(error)")
            }
        case let .control(verb, args):
            var dictionary: [String: String] = [:]
            for (i, arg) in args.enumerated() { dictionary["\(i)"] = arg }
            control(LiveMessage(type: "ctl", seq: 0, name: verb, args: dictionary), on: Connection(fd: -1))
        case let .call(bundle, name, args):
            guard let app = engine.app(named: bundle) else { return }
            call(LiveMessage(type: "call", seq: 0, name: name, args: args), from: app, on: -1)
        case let .returned(bundle, queue):
            guard let app = engine.app(named: bundle) else { return }
            engine.returned(app, on: queue == "main" ? .main : .background)
        case let .resident(bundle, bytes):
            guard let app = engine.app(named: bundle) else { return }
            engine.allocate(for: app, bytes: bytes)
        case let .busy(bundle, nanoseconds):
            guard let app = engine.app(named: bundle) else { return }
            engine.noteBusy(app, nanoseconds)
        case let .exited(bundle, detail):
            guard let app = engine.app(named: bundle) else { return }
            engine.terminate(app, .exit, detail: detail)
        case let .transfer(_, task, outcome, detail):
            applyTransferOutcome(task: task, outcome: outcome, detail: detail)
        }
    }

    /// The engine's lines while not live: none in replay; in catch-up, those
    /// the dead daemon had not yet written.
    /// After the catch-up: the lines it held are written — those the dead
    /// daemon had not. If the trace it left holds engine lines that replaying
    /// the journal does not give, inputs it acted on are missing from the
    /// journal (cut short: a damaged WAL); the daemon refuses to carry on over
    /// them, or with `--restore-to-last-good` keeps that part of the trace in
    /// `trace.jsonl.lost`, cuts the trace back to the last entry's offset and
    /// writes what the journal gives.
    func settleCatchUp(last: JournalEntry) throws {
        let held = durable.caughtUp
        durable.caughtUp = []
        let unexplained = durable.tail?.unmatchedEngineLines ?? []
        durable.tail = nil
        durable.mode = .live
        if unexplained.isEmpty {
            for l in held where !l.alreadyWritten { writeLine(l.line, audited: l.audited, code: l.code) }
            return
        }
        guard options.restoreToLastGood else {
            throw PrivateDirectory.Refused(description: "the trace holds \(unexplained.count) line(s) after journal entry \(last.seq) that replaying "
                + "the journal does not give (the first: \(unexplained[0])): inputs the daemon acted on are missing from the "
                + "journal (the database was cut short or damaged). Nothing was changed. Restore the state from a backup, or start "
                + "with --restore-to-last-good to carry on from entry \(last.seq), losing them")
        }
        try moveTraceAside(from: last.traceOffset)
        log("bgx daemon: restored to journal entry \(last.seq) on purpose (--restore-to-last-good): the trace held \(unexplained.count) "
            + "line(s) after it that the journal does not explain (its inputs were lost); they are in trace.jsonl.lost")
        for l in held { writeLine(l.line, audited: l.audited, code: l.code) }
    }

    /// The trace before the last rotation, open for reading, if there is one.
    func rotatedTrace() -> Int32? {
        let fd = openat(stateDirectory.fd, "trace.jsonl.1", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    /// Moves the trace from `offset` on into `trace.jsonl.lost` (appended) and cuts it there.
    func moveTraceAside(from offset: Int64) throws {
        let end = lseek(traceFD, 0, SEEK_END)
        guard end > offset else { return }
        var bytes = [UInt8](repeating: 0, count: Int(end - off_t(offset)))
        let n = pread(traceFD, &bytes, bytes.count, off_t(offset))
        let lost = try stateDirectory.openFile("trace.jsonl.lost", flags: O_WRONLY | O_APPEND)
        defer { close(lost) }
        guard n == bytes.count, write(lost, bytes, bytes.count) == bytes.count, fsync(lost) == 0 else {
            throw SystemError("keep the trace's lost part in \(stateDirectory.path)/trace.jsonl.lost")
        }
        guard ftruncate(traceFD, off_t(offset)) == 0 else { throw SystemError("cut the trace") }
    }

    /// Reads the whole journal before anything is replayed: every entry's
    /// checksum, and no gap in the sequence. A corrupted or missing entry
    /// stops the start (nothing changed), unless `--restore-to-last-good`
    /// deletes it and everything after, saying how many inputs were lost.
    func checkJournal(_ store: DurableStore) throws {
        var after: Int64 = .min, expected: Int64?
        do {
            while true {
                let page = try store.entries(after: after, limit: Self.replayPage)
                guard let end = page.last else { break }
                for entry in page {
                    if let expected, entry.seq != expected {
                        throw JournalCorruption(seq: expected, why: "is missing (the next is \(entry.seq))")
                    }
                    expected = entry.seq + 1
                }
                after = end.seq
            }
        } catch let corruption as JournalCorruption {
            let total = max(0, (try store.lastSequence() ?? corruption.seq) - corruption.seq + 1)
            guard options.restoreToLastGood else {
                throw PrivateDirectory.Refused(description: "\(corruption): the journal's \(total) input(s) from entry \(corruption.seq) on "
                    + "cannot be trusted. Nothing was changed. Restore the state from a backup, or start with "
                    + "--restore-to-last-good to carry on from entry \(corruption.seq - 1), losing them")
            }
            let good = try? store.entries(after: corruption.seq - 2, limit: 1).first.flatMap { $0.seq == corruption.seq - 1 ? $0 : nil }
            let lost = try store.discardEntries(from: corruption.seq)
            if let good { try moveTraceAside(from: good.traceOffset) }
            log("bgx daemon: restored to journal entry \(corruption.seq - 1) on purpose (--restore-to-last-good): \(corruption); "
                + "\(lost) journaled input(s) from it on were lost" + (good == nil ? "" : "; the trace after entry \(corruption.seq - 1) is in trace.jsonl.lost"))
        }
    }

    // MARK: Leftovers

    /// Kills every process a dead daemon left: those it recorded (if the pid
    /// is still the same process: its start time matches) and whatever is
    /// still in the cgroup subtrees it made (an app's children, a process
    /// started but not yet recorded). Returns what it killed.
    func reapLeftovers(_ store: DurableStore) -> [DurableHost.Leftover] {
        var killed: [DurableHost.Leftover] = []
        for record in (try? store.processes()) ?? [] {
            defer { try? store.forgetProcess(app: record.app, pid: record.pid) }
            guard Self.startTime(of: record.pid) == record.startTime else { continue }
            let fd = bgx_pidfd_open(record.pid)
            guard fd >= 0 else { continue }
            var mechanism = "pidfd SIGKILL"
            if let cgroup = record.cgroup, FileManager.default.fileExists(atPath: cgroup + "/cgroup.kill") {
                try? CgroupFiles.write("1", to: cgroup + "/cgroup.kill")
                mechanism = "cgroup.kill"
            }
            _ = bgx_pidfd_send_signal(fd, SIGKILL)
            if let cgroup = record.cgroup, FileManager.default.fileExists(atPath: cgroup + "/freezer.state") {
                try? CgroupFiles.write("THAWED", to: cgroup + "/freezer.state")
            }
            Self.waitForExit(pidfd: fd)
            close(fd)
            killed.append(.init(app: record.app, pid: record.pid, mechanism: mechanism))
        }
        for root in (try? store.cgroupRoots()) ?? [] where root != freezer.root {
            let leaves = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            for leaf in leaves {
                let dir = root + "/" + leaf
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
                let pids = (CgroupFiles.read(dir + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { pid_t($0) }
                for pid in pids {
                    let fd = bgx_pidfd_open(pid)
                    guard fd >= 0 else { continue }
                    _ = bgx_pidfd_send_signal(fd, SIGKILL)
                    if FileManager.default.fileExists(atPath: dir + "/freezer.state") {
                        try? CgroupFiles.write("THAWED", to: dir + "/freezer.state")
                    }
                    if FileManager.default.fileExists(atPath: dir + "/cgroup.freeze") {
                        try? CgroupFiles.write("0", to: dir + "/cgroup.freeze")
                    }
                    Self.waitForExit(pidfd: fd)
                    close(fd)
                    killed.append(.init(app: leaf, pid: pid, mechanism: "pidfd SIGKILL (left in \(dir))"))
                }
                CgroupFiles.remove(dir)
            }
            CgroupFiles.remove(root)
            if !FileManager.default.fileExists(atPath: root) { try? store.forgetCgroupRoot(root) }
        }
        return killed
    }

    /// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
    static func startTime(of pid: pid_t) -> UInt64? {
        guard let stat = CgroupFiles.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// Waits (bounded) for a process to end: its pidfd becomes readable.
    static func waitForExit(pidfd: Int32) {
        var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, Int32(freezeDeadline / 1_000_000))
    }

    /// Records a process the daemon started, so that a restarted daemon can find it.
    func recordSpawn(_ p: LiveProcess) {
        guard let store = options.store else { return }
        do {
            try store.recordProcess(ProcessRecord(app: p.bundle, pid: p.pid, startTime: Self.startTime(of: p.pid) ?? 0,
                                                  cgroup: p.cgroup))
        } catch {
            log("bgx daemon: could not record process \(p.pid): \(error)")
        }
    }

    func recordReaped(_ p: LiveProcess) {
        try? options.store?.forgetProcess(app: p.bundle, pid: p.pid)
    }

    /// A kill's line in the audit table (before the kill itself, for the engine's `terminate`).
    func recordAudit(_ line: String, code: String?) {
        guard let store = options.store, durable.mode != .replay else { return }
        let t = TraceTail.time(of: line).map { Double($0) / 1e9 } ?? 0
        let app = Self.field("app", of: line)
        let reason = Self.field("reason", of: line) ?? "unknown"
        do { try store.audit(AuditRecord(t: t, app: app, reason: reason, code: code, line: line)) } catch {
            log("bgx daemon: could not record a kill in the audit table: \(error)")
        }
    }

    /// A string field of a trace line.
    static func field(_ name: String, of line: String) -> String? {
        guard let data = line.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object[name] as? String
    }
}
