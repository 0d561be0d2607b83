import BGXCore
import Foundation
import Glibc

/// What the daemon holds of background transfers beyond the engine: each
/// task's request (rebuilt from the journal's calls at restart), which
/// attempts are under way, and when a failed one is tried again.
struct LiveTransfers {
    /// By engine task: the request and where its bytes go, while the engine has the task unfinished.
    var requests: [Int32: LiveTransfer] = [:]
    /// Ended tasks whose result the app has not yet been handed (a download's file is named in it).
    var ended: [Int32: LiveTransfer] = [:]
    /// Tasks with an attempt under way.
    var moving: Set<Int32> = []
    /// Failed attempts in a row, and the monotonic moment the next may start.
    var failures: [Int32: Int] = [:]
    var retryAt: [Int32: Int64] = [:]
    let inbox = TransferInbox()

    /// The wait before attempt n+1 after n failures in a row: 1 s, doubling, at most 60 s.
    static func backoff(afterFailures n: Int) -> Int64 {
        Int64(min(60, 1 << min(n - 1, 6))) * 1_000_000_000
    }
}

/// rules §8 on the live host: the engine decides which transfers run and what
/// the app is told; the daemon moves the bytes of those it lets run (through
/// the `TransferMover`, over real TCP) and feeds each attempt's end back to
/// the engine as a journaled input. What the engine stops — discretionary
/// conditions gone, no network, cancelled, force-quit, timed out — the
/// daemon stops.
extension LiveDaemon {
    /// The app's URLSession calls; false for a call that is not one.
    func transferCall(_ name: String, _ args: [String: String], from app: AppID,
                      reply: (Bool, String?, [String: String]?) -> Void) -> Bool {
        let bundle = engine.bundleIdentifier(app)
        switch name {
        case "createBackgroundSession":
            guard let identifier = args["identifier"], !identifier.isEmpty else {
                reply(false, "a background session needs an identifier", nil); return true
            }
            var config = BackgroundSessionConfiguration(identifier: identifier)
            config.isDiscretionary = args["isDiscretionary"] == "true"
            config.sessionSendsLaunchEvents = args["sessionSendsLaunchEvents"] != "false"
            config.allowsCellularAccess = args["allowsCellularAccess"] != "false"
            config.timeoutIntervalForRequest = args["timeoutIntervalForRequest"].flatMap(Double.init).map { Time.seconds(clamping: $0) }
            config.timeoutIntervalForResource = args["timeoutIntervalForResource"].flatMap(Double.init).map { Time.seconds(clamping: $0) }
            let ok = engine.createBackgroundSession(for: app, config)
            reply(ok, ok ? nil : "the session was refused (see the trace)", nil)
        case "startTransfer":
            guard options.transferMover != nil else {
                reply(false, "not yet supported: background transfers without bgx-transferd beside bgx-daemon (swift build --product bgx-transferd)", nil); return true
            }
            guard let session = args["session"], let url = args["url"], !url.isEmpty else {
                reply(false, "not yet supported: a background transfer without a request URL on the live host", nil); return true
            }
            let isUpload = args["kind"] == "upload"
            // The app's own rights decide what it may upload, not the daemon's (root reads everything).
            let user: (uid: uid_t, gid: gid_t)?
            do { user = try appUser(for: app) } catch { reply(false, "\(error)", nil); return true }
            if isUpload {
                guard let file = args["file"], UploadFile.readable(file, as: user) else {
                    reply(false, "an upload needs a regular file the app may read (uploadTask(with:fromFile:)), not \(args["file"] ?? "none")", nil)
                    return true
                }
            }
            let bytes = args["bytes"].flatMap(Int64.init) ?? -1
            var spec = TransferTaskSpec(kind: isUpload ? .upload : .download, bytes: max(0, bytes))
            spec.earliestBegin = args["earliestBegin"].flatMap(Double.init).map { engine.now + Time.seconds(clamping: $0) }
            guard let task = engine.startTransfer(for: app, session: session, spec) else {
                reply(false, "the transfer was refused (see the trace)", nil); return true
            }
            var headers: [String: String] = [:]
            for line in (args["headers"] ?? "").split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { headers[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            transfers.requests[task] = LiveTransfer(
                task: task, app: bundle, session: session, isUpload: isUpload, url: url,
                method: args["method"] ?? (isUpload ? "POST" : "GET"), headers: headers, file: args["file"],
                destination: transferDirectory + "/\(CgroupFiles.leaf(bundle))-\(task).download",
                expectedLength: bytes >= 0 ? bytes : nil,
                requestTimeout: args["requestTimeout"].flatMap(Double.init) ?? 60,
                readAsUser: user?.uid, readAsGroup: user?.gid)
            reply(true, nil, ["task": "\(task)"])
        case "cancelTransfer":
            guard let task = args["task"].flatMap(Int32.init) else { reply(false, "cancelTransfer needs a task", nil); return true }
            engine.cancelTransfer(for: app, task: task)
            reply(true, nil, nil)
        case "completeBackgroundSessionEvents":
            engine.completeBackgroundSessionEvents(for: app, session: args["identifier"] ?? "")
            reply(true, nil, nil)
        case "pendingTransfers":
            let pending = engine.pendingTransfers(for: app, session: args["session"] ?? "")
            reply(true, nil, ["tasks": pending.map { "\($0.task) \($0.kind) \($0.bytes) \($0.remaining)" }.joined(separator: "\n")])
        default:
            return false
        }
        return true
    }

    var transferDirectory: String { options.stateDirectory + "/transfers" }

    // MARK: Keeping the real transfers in step with the engine

    /// Starts an attempt for every transfer the engine lets run and has none
    /// (unless it waits to retry), and stops those the engine no longer runs.
    func reconcileTransfers() {
        guard durable.mode == .live, let mover = options.transferMover else { return }
        let runnable = engine.runnableTransfers
        let running = Set(runnable.map(\.task))
        for (task, request) in transfers.requests where !running.contains(task) {
            let wasMoving = transfers.moving.remove(task) != nil
            if wasMoving { mover.stop(task) }
            let app = engine.app(named: request.app)
            let finished = app.map { !engine.pendingTransfers(for: $0, session: request.session).contains { $0.task == task } } ?? true
            var discarded = false
            if finished {
                // Ended (delivered, cancelled, failed or timed out): bytes still partial are of no more use.
                transfers.retryAt[task] = nil
                transfers.failures[task] = nil
                discarded = unlink(request.partialPath) == 0
            }
            if finished {
                transfers.requests[task] = nil
                transfers.ended[task] = request
            }
            guard wasMoving || discarded else { continue }
            hostLine(app, "transfer.stop", [("task", .number(Double(task))), ("reason", .string(finished
                ? "the transfer ended (see the engine's line): the connection is closed and its bytes discarded"
                : "the engine no longer lets it run (see transfer.defer): the bytes so far are kept for a Range request"))])
        }
        let now = MonotonicClock.now()
        for r in runnable where !transfers.moving.contains(r.task) {
            if let at = transfers.retryAt[r.task], at > now { continue }
            guard let request = transfers.requests[r.task] else { continue }
            transfers.retryAt[r.task] = nil
            transfers.moving.insert(r.task)
            try? FileManager.default.createDirectory(atPath: transferDirectory, withIntermediateDirectories: true)
            let inbox = transfers.inbox
            mover.start(request) { inbox.post($0) }
        }
    }

    /// The next moment a failed attempt may be tried again (for the daemon's `ppoll`).
    var nextTransferRetry: Int64? {
        transfers.retryAt.filter { !transfers.moving.contains($0.key) }.values.min()
    }

    /// The mover's reports: each attempt's end becomes a journaled engine input.
    func transferReportsArrived() {
        for report in transfers.inbox.take() {
            switch report {
            case let .began(task, offset):
                guard transfers.moving.contains(task), let request = transfers.requests[task] else { continue }
                hostLine(engine.app(named: request.app), "transfer.attempt",
                         [("task", .number(Double(task))), ("offset", .number(Double(offset))), ("url", .string(request.url))])
            case let .ended(task, outcome):
                // The engine is brought to the present first (the attempt still counts as under way, so
                // nothing restarts it), then hears how it ended — unless meanwhile it stopped the transfer.
                guard transfers.moving.contains(task) else { continue }
                pump()
                guard transfers.moving.remove(task) != nil, let request = transfers.requests[task] else { continue }
                let (word, detail): (String, String)
                switch outcome {
                case let .finished(d): (word, detail) = ("finished", d)
                case let .retry(reason, offset): (word, detail) = ("retry", "\(reason) (\(offset) bytes kept)")
                case let .failed(reason): (word, detail) = ("failed", reason)
                }
                guard journal(.transfer(app: request.app, task: task, outcome: word, detail: detail)) else {
                    // Not on disk, so not told to the engine: the next attempt starts over from the kept bytes.
                    continue
                }
                applyTransferOutcome(task: task, outcome: word, detail: detail)
            }
        }
        pump()
    }

    /// A journaled attempt's end, told to the engine (live, and again in replay).
    func applyTransferOutcome(task: Int32, outcome: String, detail: String) {
        let app = (transfers.requests[task] ?? transfers.ended[task]).flatMap { engine.app(named: $0.app) }
        switch outcome {
        case "finished":
            hostLine(app, "transfer.verified", [("task", .number(Double(task))), ("detail", .string(detail))])
            transfers.failures[task] = nil
            engine.transferFinishedByHost(task)
        case "retry":
            let failures = (transfers.failures[task] ?? 0) + 1
            transfers.failures[task] = failures
            transfers.retryAt[task] = MonotonicClock.now() + LiveTransfers.backoff(afterFailures: failures)
            engine.transferAttemptFailedByHost(task, reason: "attempt \(failures) failed: \(detail)")
        default:
            transfers.failures[task] = nil
            engine.transferFailedByHost(task, reason: detail)
            if let request = transfers.requests[task] { unlink(request.partialPath) }
        }
    }

    /// A downloaded file put in the app's container for it to move, owned by
    /// its user (the state directory, where it was written, is closed to apps):
    /// made there without following a link or reusing a file the app left.
    func handOver(_ file: String, to bundle: String, task: Int32) -> String? {
        guard let app = engine.app(named: bundle) else { return nil }
        let user: (uid: uid_t, gid: gid_t)?
        do { user = try appUser(for: app) } catch { return nil }
        guard let container = try? makeContainer(for: bundle, user: user) else { return nil }
        let name = ".bgx-download-\(task)"
        let dirFD = open(container, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dirFD >= 0 else { return nil }
        defer { close(dirFD) }
        let source = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else { return nil }
        defer { close(source) }
        unlinkat(dirFD, name, 0)
        let target = openat(dirFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard target >= 0 else { return nil }
        defer { close(target) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = read(source, &buffer, buffer.count)
            if n == 0 { break }
            guard n > 0, buffer.withUnsafeBytes({ write(target, $0.baseAddress, n) }) == n else { unlinkat(dirFD, name, 0); return nil }
        }
        if let user { _ = fchown(target, user.uid, user.gid) }
        unlink(file)
        return container + "/" + name
    }

    /// A download's verified file, for `urlSessionTaskDidComplete` (the app moves it).
    func transferCallbackArgs(_ callback: Callback, _ args: inout [String: String]) {
        switch callback {
        case let .handleEventsForBackgroundURLSession(id), let .urlSessionDidFinishEvents(id):
            args["session"] = engine.text(id)
        case let .urlSessionTaskDidComplete(session, task, kind, result):
            args["session"] = engine.text(session)
            args["task"] = "\(task)"
            args["kind"] = "\(kind)"
            args["result"] = "\(result)"
            if kind == .download, result == .success, let request = transfers.ended[task] ?? transfers.requests[task],
               access(request.destination, R_OK) == 0 {
                args["file"] = handOver(request.destination, to: request.app, task: task) ?? request.destination
            }
            transfers.ended[task] = nil
        default:
            break
        }
    }
}
