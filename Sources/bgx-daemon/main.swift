import ArgumentParser
import BGXCore
import BGXDaemonArguments
import BGXLive
import BGXLivePlatform
import BGXLiveStore
import BGXSimulation
import Foundation

/// The live host's executable: `bgx daemon …` and `bgx ctl …` hand over to it.
struct BGXDaemonTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgx-daemon",
        abstract: "The live host: the bgx engine governing real Linux processes.",
        subcommands: [Daemon.self, Ctl.self, Bench.self])
}

/// Bad input: `error: message` on stderr, exit code 2 (as bgx does).
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode(2)
}

struct Daemon: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the live host.")
    @OptionGroup var arguments: DaemonArguments

    func run() throws {
        var options = DaemonOptions(stateDirectory: arguments.state, socketPath: arguments.socket)
        guard let p = PolicyProfile.named(arguments.profile) else { throw fail("unknown profile \(arguments.profile)") }
        options.profile = p
        if let cpuLimit = arguments.cpuLimit {
            guard (1...100).contains(cpuLimit) else { throw fail("--cpu-limit must be between 1 and 100 (percent)") }
            options.profile.scheduler.cpuLimitFraction = Double(cpuLimit) / 100
        }
        guard let f = FreezerMode(rawValue: arguments.freezer) else { throw fail("--freezer is auto, cgroup2, cgroup1 or sigstop") }
        options.freezer = f
        if let memory = arguments.memory {
            guard let bytes = Units.size(memory), bytes > 0 else { throw fail("--memory: not a size: \(memory)") }
            options.memory = bytes
        }
        // Bounded so that engine time (monotonic nanoseconds × scale) cannot overflow in a century of uptime.
        guard (1...1000).contains(arguments.timeScale) else { throw fail("--time-scale must be between 1 and 1000") }
        options.timeScale = Int64(arguments.timeScale)
        guard (0...10_000_000).contains(arguments.snapshotEvery) else { throw fail("--snapshot-every must be between 0 and 10000000 inputs") }
        options.snapshotEvery = arguments.snapshotEvery
        options.keepJournal = arguments.keepJournal
        options.fresh = arguments.fresh
        options.restoreToLastGood = arguments.restoreToLastGood
        guard let rotate = arguments.rotateSize == "0" ? 0 : Units.size(arguments.rotateSize), rotate >= 0 else {
            throw fail("--rotate-size: not a size: \(arguments.rotateSize)")
        }
        options.rotateSize = rotate
        guard let reserve = arguments.diskReserve == "0" ? 0 : Units.size(arguments.diskReserve), reserve >= 0, reserve <= 1 << 40 else {
            throw fail("--disk-reserve: not a size: \(arguments.diskReserve)")
        }
        options.diskReserve = reserve
        if !arguments.ctlUser.isEmpty {
            var users: Set<uid_t> = []
            for word in arguments.ctlUser {
                if let uid = uid_t(word) { users.insert(uid); continue }
                guard let entry = getpwnam(word) else { throw fail("--ctl-user: no user \(word)") }
                users.insert(entry.pointee.pw_uid)
            }
            options.ctlUsers = users
        }
        guard let users = AppUsers.parse(arguments.appUser) else {
            throw fail("--app-user is per-app, per-app:BASE or UID[:GID] (never 0: apps never run as root)")
        }
        options.appUsers = users
        if let containers = arguments.containers { options.containersDirectory = containers }
        for (name, seconds, keyPath) in [("--hello-deadline", arguments.helloDeadline, \ConnectionLimits.helloDeadline),
                                         ("--frame-deadline", arguments.frameDeadline, \ConnectionLimits.frameDeadline)] {
            guard let seconds else { continue }
            guard seconds > 0, seconds <= 3600 else { throw fail("\(name) must be between 0 and 3600 seconds") }
            options.limits[keyPath: keyPath] = Int64(seconds * 1e9)
        }
        guard var choice = PlatformChoice(arguments.platform) else {
            throw fail("--platform is auto, none, or a list of \(PlatformChoice.names.joined(separator: ", "))")
        }
        guard arguments.powerSupplyInterval >= 0.01, arguments.powerSupplyInterval <= 86_400 else {
            throw fail("--power-supply-interval must be between 0.01 and 86400 seconds")
        }
        for pair in arguments.appId {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw fail("--app-id takes APP_ID=BUNDLE, not \(pair)") }
            options.appIDs[parts[0]] = parts[1]
        }
        choice.systemBus = arguments.systemBus
        choice.powerSupplyDirectory = arguments.powerSupply
        choice.powerSupplyInterval = Int64(arguments.powerSupplyInterval * 1e9)
        choice.waylandDisplay = arguments.waylandDisplay
        // Descriptors this process inherited (a test harness's process-exit socket, say) are
        // not the apps': closed on exec, so an app it launches holds none of them.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        let daemon: LiveDaemon
        do {
            // What must outlive the daemon: STATE/state.sqlite (docs/live.md).
            // Made 0700, refused if another user could steer it (see PrivateDirectory).
            try PrivateDirectory(arguments.state, mode: 0o700).close()
            options.store = try SQLiteStore(path: arguments.state + "/state.sqlite", fsync: arguments.fsync)
            // Background transfers' real bytes, over real TCP, in the transfer process beside
            // this executable (without it, transfers are refused with why).
            options.transferMover = TransferProcessMover.besideThisExecutable()
            // Last, once nothing else can refuse the start: the sources connect.
            let made = choice.make()
            options.platformSources = made.sources
            options.systemd = made.systemd
            options.platformNotes = made.systemdStatus.map { [$0] } ?? []
            daemon = try LiveDaemon(options: options)
        } catch { throw fail("\(error)") }
        daemon.run()
    }
}

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Drive a running live host.")
    @OptionGroup var arguments: CtlArguments

    func run() throws {
        guard let verb = arguments.words.first else { throw fail("ctl needs a verb") }
        let args = Array(arguments.words.dropFirst())
        let client: ControlClient
        guard arguments.timeout >= 0, arguments.timeout <= 86_400 else { throw fail("--timeout must be between 0 and 86400 seconds") }
        let wait: Double? = arguments.timeout == 0 ? nil : arguments.timeout
        do { client = try ControlClient(socket: arguments.socket, timeout: wait) } catch { throw fail("\(arguments.socket): \(error)") }
        if verb == "trace" {
            let follow = arguments.follow || args.contains("--follow")
            try client.trace(follow: follow) { line in
                print(line)
                fflush(stdout)
                return true
            }
            return
        }
        let reply: LiveMessage
        do { reply = try client.send(verb, args + (arguments.json && !args.contains("--json") ? ["--json"] : [])) } catch { throw fail("\(error)") }
        if reply.ok == true {
            if let text = reply.text, text != "ok" { print(text) }
        } else {
            throw fail(reply.text ?? "refused")
        }
    }
}

if ProcessInfo.processInfo.environment["BGX_BENCH_APP"] == "1", ProcessInfo.processInfo.environment["BGX_SOCKET"] != nil {
    try BenchApp.run()
}
BGXDaemonTool.main()
