import BGXCore
import Foundation

/// `bgx ctl` verbs: what the person, the device and the debugger do.
extension LiveDaemon {
    func control(_ message: LiveMessage, on c: Connection) {
        let verb = message.name ?? ""
        let args = (0..<(message.args?.count ?? 0)).compactMap { message.args?["\($0)"] }
        func reply(_ result: Result<String, LiveError>) {
            switch result {
            case let .success(text): send(.reply(to: message.seq, ok: true, text: text), to: c.fd)
            case let .failure(error): send(.reply(to: message.seq, ok: false, text: error.description), to: c.fd)
            }
        }
        func app(_ i: Int) -> Result<AppID, LiveError> {
            guard args.count > i else { return .failure(LiveError("\(verb) needs an app's bundle identifier")) }
            guard let app = engine.app(named: args[i]) else { return .failure(LiveError("no app \(args[i]) is installed")) }
            return .success(app)
        }
        func input(_ event: Result<EngineEvent, LiveError>) {
            if shuttingDown { return reply(.failure(LiveError("the daemon is shutting down: \(verb) is refused"))) }
            if case .success = event, !journal(.control(verb: verb, args: args)) {
                return reply(.failure(LiveError("the daemon could not record \(verb)")))
            }
            reply(event.map { event in
                engine.schedule(event, at: engine.now)
                pump()
                return "ok"
            })
        }
        // New work waits for room on the state's disk (ends and completions never do).
        if ["install", "launch", "switchto", "push", "simulate-launch"].contains(verb), durable.mode == .live,
           let why = disk.refusal() {
            return reply(.failure(LiveError(why)))
        }
        switch verb {
        case "install": reply(install(args))
        case "launch": input(app(0).map { .user(.launch($0)) })
        case "switchto": input(app(0).map { .user(.switchTo($0)) })
        case "forcequit": input(app(0).map { .user(.forceQuit($0)) })
        case "home": input(.success(.user(.home)))
        case "lock": input(.success(.user(.lock)))
        case "unlock": input(.success(.user(.unlock)))
        case "push":
            input(app(0).flatMap { app in
                let type = args.count > 1 ? PushType.allCases.first { "\($0)" == args[1] } : .background
                guard let type else { return .failure(LiveError("push type is background, alert or voip")) }
                let priority = args.count > 2 ? UInt8(args[2]) : (type == .background ? 5 : 10)
                guard let priority, priority == 5 || priority == 10 else { return .failure(LiveError("push priority is 5 or 10")) }
                return .success(.push(app, Push(type: type, priority: priority)))
            })
        case "move":
            guard args.count == 1, let metres = Double(args[0]), metres.isFinite, abs(metres) <= 1e9 else {
                return reply(.failure(LiveError("move takes the metres the device travels (negative: back along its route)")))
            }
            input(.success(.locationMove(meters: Int64(metres))))
        case "accessory":
            input(app(0).flatMap { app in
                let name = args.count > 1 ? args[1] : "accessory"
                guard let transport = AccessoryTransport.allCases.first(where: { "\($0)" == name }) else {
                    return .failure(LiveError("accessory data comes over accessory or bluetooth"))
                }
                return .success(.accessoryData(app, transport))
            })
        case "device":
            guard args.count == 1 else { return reply(.failure(LiveError("device takes one KEY=VALUE"))) }
            input(DeviceSetting.change(args[0]).map { .device($0) })
        case "simulate-launch", "simulate-expiration":
            reply(app(0).flatMap { app in
                guard args.count > 1 else { return .failure(LiveError("\(verb) needs a task identifier")) }
                guard journal(.control(verb: verb, args: args)) else { return .failure(LiveError("the daemon could not record \(verb)")) }
                let ok = verb == "simulate-launch" ? engine.simulateLaunch(for: app, identifier: args[1])
                    : engine.simulateExpiration(for: app, identifier: args[1])
                pump()
                return ok ? .success("ok") : .failure(LiveError("\(verb): the engine refused \(args[1]) (see the trace)"))
            })
        case "status":
            if args.contains("--json") {
                reply(Result { try statusJSON() }.mapError { LiveError("status --json: \($0)") })
            } else {
                reply(.success(status()))
            }
        case "explain":
            reply(app(0).flatMap { app in
                guard args.count > 1 else { return .failure(LiveError("explain needs a task identifier")) }
                return .success(engine.explainTask(app: app, identifier: args[1]).text)
            })
        case "trace":
            // From the file: a daemon that runs for weeks does not hold its trace in memory.
            let text = (try? String(contentsOfFile: options.stateDirectory + "/trace.jsonl", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") { send(LiveMessage(type: "trace", text: String(line)), to: c.fd) }
            if args.contains("--follow") { c.role = .follower } else { send(LiveMessage(type: "end"), to: c.fd) }
        case "shutdown" where durable.mode != .live:
            // Journaled by `terminationAsked` (SIGTERM), not a verb: replayed, the apps end again.
            engine.shutDown()
        default:
            reply(.failure(LiveError("not yet supported: ctl \(verb)")))
        }
    }

    func install(_ args: [String]) -> Result<String, LiveError> {
        guard args.count == 1 else { return .failure(LiveError("install takes one BUNDLE_DIR")) }
        let bundle: AppBundle
        do { bundle = try AppBundle(directory: args[0]) } catch { return .failure(LiveError("\(error)")) }
        guard engine.app(named: bundle.manifest.bundleIdentifier) == nil else {
            return .failure(LiveError("\(bundle.manifest.bundleIdentifier) is already installed"))
        }
        pump()
        guard journal(.install(path: bundle.path, infoPlist: bundle.infoPlist)) else {
            return .failure(LiveError("the daemon could not record the install"))
        }
        let app = engine.install(bundle.manifest)
        try? options.store?.recordInstall(app: bundle.manifest.bundleIdentifier, path: bundle.path, t: Time.toSeconds(engine.now))
        bundles[app] = bundle
        hostLine(app, "app.install", [("path", .string(bundle.path))])
        return .success("installed \(bundle.manifest.bundleIdentifier)")
    }

    /// Every app's state, assertions and pending requests, each controller's
    /// dump of it, the freezer and the device.
    func status() -> String {
        var lines = ["freezer: \(freezer.mechanism)\(freezer.root.map { " (\($0))" } ?? "")",
                     "time: \(Time.describe(engine.now))\(options.timeScale == 1 ? "" : " (×\(options.timeScale))")",
                     "next wake: " + (engine.nextEventTime.map { "in \(Time.describe(max(0, $0 - engine.now)))" } ?? "none (nothing is due)")]
        let d = engine.device
        lines.append("device: locked \(d.locked), charging \(d.charging), network \(d.network), lowPowerMode \(d.lowPowerMode), "
                     + "battery \(d.battery)%, memory \(d.memory / (1024 * 1024))MB, thermal \(d.thermal)")
        if let stall = lastPressure, let path = pressurePath {
            lines.append("memory pressure: \(pressureLevel.rawValue) (PSI some \(stall.some) %, full \(stall.full) % over 10 s, \(path))")
        }
        if let full = disk.full { lines.append("disk: " + full) }
        let platform = platformStatus
        lines.append("platform: " + (platform.isEmpty ? "none (every change comes from bgx ctl)" : "\(platform.count) source(s)"))
        lines += platform.map { "  " + $0 }
        if options.store != nil {
            var line = "state: \(durable.sinceSnapshot) input(s) journaled since "
            if let last = durable.lastSnapshot {
                line += "the snapshot at entry \(last.seq) (\(last.bytes) bytes"
                    + (last.nanoseconds.map { ", encoded in \($0 / 1_000_000) ms)" } ?? ", restored from)")
            } else {
                line += "the start (no snapshot yet)"
            }
            lines.append(line)
        }
        lines.append("front: \(engine.frontApp.map { engine.bundleIdentifier($0) } ?? "none")")
        for app in engine.appIDs {
            var line = "\(engine.bundleIdentifier(app)): \(engine.state(of: app))"
            if let p = processes[app] {
                line += ", pid \(p.pid)\(p.frozen ? ", frozen" : "")\(p.connection == nil ? ", not connected" : "")"
                if !p.awaitingAck.isEmpty { line += ", \(p.awaitingAck.count) callback(s) awaiting ack" }
            }
            if engine.isForceQuit(app) { line += ", force-quit" }
            lines.append(line)
            for task in engine.openBackgroundTasks(of: app) { lines.append("  background task \(task.id) \(task.name)") }
            for request in engine.pendingTaskRequests(for: app) {
                lines.append("  pending \(request.kind) \(request.identifier)"
                             + (request.earliestBegin.map { " earliest \(Time.describe($0))" } ?? ""))
            }
            // Each controller's dump (Engine.controllerDumps): what it holds for the app, and why.
            for dump in engine.controllerDumps(of: app) {
                let words = dump.lines(when: relativeTime)
                guard !words.isEmpty else { continue }
                lines.append("  \(dump.concern):")
                lines += words.map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension LiveDaemon {
    /// An engine moment as words relative to now ("in 5 min", "2 s ago").
    func relativeTime(_ t: Nanoseconds) -> String {
        t >= engine.now ? "in \(Time.describe(t - engine.now))" : "\(Time.describe(engine.now - t)) ago"
    }

    /// `status --json`: the same as data — each app's state and process, and
    /// every controller's dump (its concern, its lines, its state as data
    /// with times in nanoseconds of engine time).
    func statusJSON() throws -> String {
        // The dumps are Foundation's JSONEncoder's (sorted keys), as in `bgx explain --app --json`.
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys]
        func encoded(_ value: any Encodable) throws -> String { String(decoding: try foundation.encode(value), as: UTF8.self) }
        let apps = try engine.appIDs.map { app in
            let process = processes[app]
            return StatusJSON.App(
                app: engine.bundleIdentifier(app), state: "\(engine.state(of: app))",
                pid: process?.pid, frozen: process?.frozen, connected: process.map { $0.connection != nil },
                awaitingAck: process?.awaitingAck.count, residentBytes: process?.reportedBytes, cpuNanoseconds: process?.cpuSeen,
                controllers: try engine.controllerDumps(of: app).map {
                    try ControllerDumpJSON($0, when: relativeTime, encode: encoded)
                })
        }
        return try InlineJSONEncoder().encode(StatusJSON(freezer: freezer.mechanism, now: engine.now,
                                                         memoryPressure: pressureLevel.rawValue, apps: apps))
    }
}
