import BGXCore
import CBGXLive
import Foundation
import Glibc

/// The engine's directives, carried out on real processes (docs/live.md, "The mapping").
extension LiveDaemon {
    func carryOut(_ directive: Directive) {
        switch directive {
        case let .launch(app, cause): spawn(app, cause: cause)
        case let .deliver(app, callback): deliver(callback, to: app)
        case let .fire(app, _, _):
            // Live apps keep their own timers, in their own process.
            log("bgx daemon: \(engine.bundleIdentifier(app)): an engine timer fired; live apps keep their own timers")
        case let .suspend(app): suspend(app)
        case let .resume(app): resume(app)
        case let .terminate(app): kill(app, reason: terminationReason(of: app))
        }
    }

    /// The reason of the `terminate` line the engine wrote for this directive.
    func terminationReason(of app: AppID) -> String {
        for event in engine.trace.reversed() where event.app == app {
            if case let .terminate(reason, _) = event.kind { return "\(reason)" }
            if case .memoryKill = event.kind { return "memoryPressure" }
        }
        return "terminated"
    }

    func spawn(_ app: AppID, cause: LaunchCause) {
        let bundle = engine.bundleIdentifier(app)
        guard let b = bundles[app] else { return }
        if let why = shuttingDown ? "the daemon is shutting down" : disk.refusal() {
            // Nothing starts while the device shuts down or the disk is full: the launch ends as a
            // process that could not start.
            hostLine(app, "process.spawnFailed", [("reason", .string(why))])
            journal(.exited(app: bundle, detail: "not started: \(why)"))
            engine.terminate(app, .exit, detail: "not started: \(why)")
            return
        }
        // The app's previous process, killed but not yet collected, stays watched; its
        // leaf is the new one's, and a process joining a frozen cgroup would freeze
        // before it could exec (and the daemon with it, waiting for the exec).
        if let old = processes.removeValue(forKey: app) {
            if old.frozen { try? freezer.thaw(old); old.frozen = false }
            exiting.append(old)
        }
        do {
            let user = try appUser(for: app)
            let container = try makeContainer(for: bundle, user: user)
            let leaf = try freezer.prepare(bundle: bundle)
            let logFD = try logsDirectory.openFile(CgroupFiles.leaf(bundle) + ".log", flags: O_WRONLY | O_APPEND)
            defer { close(logFD) }
            var environment = ProcessInfo.processInfo.environment
            // systemd's words to the daemon are not the app's (sd_notify would answer for the daemon).
            for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { environment[name] = nil }
            environment["BGX_SOCKET"] = options.socketPath
            environment["BGX_BUNDLE_IDENTIFIER"] = bundle
            environment["BGX_BUNDLE_PATH"] = b.path
            environment["BGX_LAUNCH_CAUSE"] = "\(cause)"
            // Its data container, as NSHomeDirectory() is on iOS: the one place it may write.
            environment["BGX_CONTAINER"] = container
            environment["HOME"] = container
            environment["TMPDIR"] = container
            var error: Int32 = 0
            let pid = Self.withCStrings([b.executable]) { argv in
                Self.withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
                    bgx_spawn(b.executable, argv, envp, leaf?.procs, logFD, container,
                              user == nil ? 0 : 1, user?.uid ?? 0, user?.gid ?? 0, &error)
                }
            }
            guard pid > 0 else { throw SystemError("start \(b.executable)", code: error) }
            let pidfd = bgx_pidfd_open(pid)
            guard pidfd >= 0 else { throw SystemError("pidfd_open \(pid)") }
            let p = LiveProcess(app: app, bundle: bundle, pid: pid, pidfd: pidfd, cgroup: leaf?.cgroup,
                                epoch: engine.processEpoch(of: app))
            processes[app] = p
            recordSpawn(p)
            hostLine(app, "process.spawn", [("pid", .number(Double(pid))), ("cause", .string("\(cause)")),
                                            ("cgroup", .string(leaf?.cgroup ?? "none"))])
        } catch {
            log("bgx daemon: \(bundle): \(error)")
            hostLine(app, "process.spawnFailed", [("reason", .string("\(error)"))])
            // What iOS does with an app that cannot start: it is not running.
            journal(.exited(app: bundle, detail: "the process could not start: \(error)"))
            engine.terminate(app, .exit, detail: "the process could not start: \(error)")
        }
    }

    /// The user and group the app's processes run as: nil when the daemon is
    /// not root (they run as the daemon's own user, which is not root either).
    func appUser(for app: AppID) throws -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        let ids = try options.appUsers.ids(forAppNumber: app.index).get()
        guard ids.uid != 0, ids.gid != 0 else { throw AppUserError(description: "apps never run as root") }
        guard !options.ctlUsers.contains(ids.uid) else {
            throw AppUserError(description: "the app's uid \(ids.uid) is on the ctl allow list: an app must never speak as ctl")
        }
        if case .perApp = options.appUsers, !checkedAppUsers.contains(ids.uid) {
            // A per-app uid must be nobody's: sharing it would give the app that user's files and processes.
            if let entry = getpwuid(ids.uid) {
                throw AppUserError(description: "uid \(ids.uid), the app's by --app-user per-app, belongs to user \(String(cString: entry.pointee.pw_name)); choose another base")
            }
            checkedAppUsers.insert(ids.uid)
        }
        return ids
    }

    /// The app's data container, `CONTAINERS/NAME` (the name escaped, see
    /// `BundleName`): made 0700 and given to the app's user, opened without
    /// following a link so an app cannot point it elsewhere.
    func makeContainer(for bundle: String, user: (uid: uid_t, gid: gid_t)?) throws -> String {
        let name = CgroupFiles.leaf(bundle)
        let path = containers.path + "/" + name
        if mkdirat(containers.fd, name, 0o700) != 0, errno != EEXIST { throw SystemError("mkdir \(path)") }
        let fd = openat(containers.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open the container \(path)") }
        defer { close(fd) }
        let uid = user?.uid ?? geteuid(), gid = user?.gid ?? getegid()
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SystemError("stat \(path)") }
        if st.st_uid != uid || st.st_gid != gid { guard fchown(fd, uid, gid) == 0 else { throw SystemError("chown \(path)") } }
        if st.st_mode & 0o7777 != 0o700 { _ = fchmod(fd, 0o700) }
        return path
    }

    static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }

    /// Thaw first: nothing is ever delivered to a frozen process.
    func deliver(_ callback: Callback, to app: AppID) {
        guard let p = processes[app], p.epoch == engine.processEpoch(of: app) else { return }
        if p.frozen { resume(app) }
        let seq = nextSeq
        nextSeq += 1
        var args: [String: String] = ["queue": "\(engine.queue(of: callback, for: app))"]
        switch callback {
        case let .didFinishLaunching(cause):
            args["cause"] = "\(cause)"
            if cause == .notification, let name = engine.launchNotification(of: app) { args["notification"] = name }
        case let .backgroundTaskExpired(id): args["id"] = "\(id)"
        case let .bgTask(identifier):
            args["identifier"] = engine.text(identifier)
            if let kind = engine.runningTaskKind(for: app, identifier: engine.text(identifier)) { args["kind"] = "\(kind)" }
        case let .bgTaskExpired(identifier): args["identifier"] = engine.text(identifier)
        case let .localNotification(id), let .notificationResponse(id):
            let content = engine.notificationContent(for: app, id)
            args["identifier"] = engine.notificationName(id)
            args["title"] = content.title
            args["body"] = content.body
            if let badge = content.badge { args["badge"] = "\(badge)" }
        case let .remoteNotification(number, type):
            args["number"] = "\(number)"
            args["type"] = "\(type)"
        case let .voipPush(number): args["number"] = "\(number)"
        case let .didUpdateLocations(service): args["service"] = "\(service)"
        case let .didEnterRegion(id), let .didExitRegion(id): args["region"] = engine.text(id)
        case .handleEventsForBackgroundURLSession, .urlSessionTaskDidComplete, .urlSessionDidFinishEvents:
            transferCallbackArgs(callback, &args)
        case let .accessoryData(transport), let .accessoryDidDisconnect(transport): args["transport"] = "\(transport)"
        case let .expiringActivity(id, expired):
            args["id"] = "\(id)"
            args["expired"] = "\(expired)"
        default: break
        }
        p.awaitingAck[seq] = engine.queue(of: callback, for: app)
        let message = LiveMessage(type: "callback", seq: seq, name: callback.name, args: args)
        if let fd = p.connection { send(message, to: fd) } else { p.queued.append(message) }
    }

    /// The app's callback returned: the watchdog waiting for it stands down.
    func acknowledge(_ message: LiveMessage, from app: AppID) {
        guard let p = processes[app], let seq = message.seq, let queue = p.awaitingAck.removeValue(forKey: seq),
              p.epoch == engine.processEpoch(of: app) else { return }
        noteResources(p)
        // Jetsam may have ended it for what it holds.
        guard p.epoch == engine.processEpoch(of: app) else { return }
        journal(.returned(app: p.bundle, queue: "\(queue)"))
        engine.returned(app, on: queue)
    }

    func suspend(_ app: AppID) {
        guard let p = processes[app], !p.frozen else { return }
        let began = MonotonicClock.now()
        do {
            try freezer.freeze(p)
            p.frozen = true
            hostLine(app, "process.freeze", [("pid", .number(Double(p.pid))), ("mechanism", .string(freezer.mechanism)),
                                             ("us", .number(Double((MonotonicClock.now() - began) / 1000)))])
        } catch {
            log("bgx daemon: \(p.bundle): freeze failed: \(error)")
            hostLine(app, "process.freezeFailed", [("reason", .string("\(error)"))])
        }
    }

    func resume(_ app: AppID) {
        guard let p = processes[app], p.frozen else { return }
        let began = MonotonicClock.now()
        do {
            try freezer.thaw(p)
            p.frozen = false
            hostLine(app, "process.thaw", [("pid", .number(Double(p.pid))), ("mechanism", .string(freezer.mechanism)),
                                           ("us", .number(Double((MonotonicClock.now() - began) / 1000)))])
        } catch {
            log("bgx daemon: \(p.bundle): thaw failed: \(error)")
            hostLine(app, "process.thawFailed", [("reason", .string("\(error)"))])
        }
    }

    /// SIGKILL to the app's processes, with the engine's reason; the exit is
    /// collected when its pidfd says so (`reap`).
    func kill(_ app: AppID, reason: String) {
        guard let p = processes[app], p.killedFor == nil else { return }
        p.killedFor = reason
        // The engine's `terminate` line, with its reason, is in the audit table before the kill.
        flushTrace()
        do {
            let how = try freezer.kill(p)
            hostLine(app, "process.kill", [("pid", .number(Double(p.pid))), ("signal", .string("SIGKILL")),
                                           ("mechanism", .string(how)), ("reason", .string(reason))])
        } catch {
            log("bgx daemon: \(p.bundle): kill failed: \(error)")
        }
        if let fd = p.connection { closeConnection(fd, why: nil) }
    }

    /// The process has ended (its pidfd is readable): collect it. An end the
    /// daemon did not cause is the app's own `exit`.
    func reap(_ p: LiveProcess) {
        var status: Int32 = 0
        let r = waitpid(p.pid, &status, WNOHANG)
        guard r == p.pid else { return }
        let signalled = status & 0x7f != 0
        let how = signalled ? "signal \(status & 0x7f)" : "status \((status >> 8) & 0xff)"
        if processes[p.app] === p { processes[p.app] = nil } else { exiting.removeAll { $0 === p } }
        recordReaped(p)
        close(p.pidfd)
        freezer.release(p)
        hostLine(p.app, "process.exit", [("pid", .number(Double(p.pid))), ("how", .string(how))])
        if let fd = p.connection { closeConnection(fd, why: nil) }
        if p.killedFor == nil, p.epoch == engine.processEpoch(of: p.app) {
            pump()
            journal(.exited(app: p.bundle, detail: "the process exited by itself (\(how))"))
            engine.terminate(p.app, .exit, detail: "the process exited by itself (\(how))")
            pump()
        }
    }
}
