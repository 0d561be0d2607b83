import ArgumentParser
import BGXCore
import BGXLive
import BGXLivePlatform
import BGXLiveStore
import BGXLiveTransfers
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
    @Option(help: "Directory for the trace, the audit log and the apps' logs.") var state: String
    @Option(help: "Path of the Unix socket apps and bgx ctl connect to.") var socket: String
    @Option(help: "Policy profile: modern, ios12, ios6 or ios26.") var profile = "modern"
    @Option(help: "How to suspend: auto, cgroup2, cgroup1 or sigstop.") var freezer = "auto"
    @Option(help: "The device's memory (e.g. 2GB); default: the machine's.") var memory: String?
    @Option(help: "The CPU monitor's limit, in percent of its window (default: the profile's).") var cpuLimit: Int?
    @Option(help: "Run the engine's time this many times faster than the clock (tests).") var timeScale = 1
    @Flag(help: "Wait for the disk on every journal write (survives a power cut).") var fsync = false
    @Option(help: "Store a snapshot of the state every this many journaled inputs (default 10000; 0: never).")
    var snapshotEvery = 10_000
    @Flag(help: "Keep the journal's entries from before the latest snapshot (by default they are deleted).")
    var keepJournal = false
    @Flag(help: "Start over on purpose on a state directory whose database is missing, emptied or another's (refused otherwise).")
    var fresh = false
    @Flag(help: "When the journal is corrupted or cut short, carry on from its last good entry, losing the inputs after it (refused otherwise).")
    var restoreToLastGood = false
    @Option(help: "Rotate the trace and each app's log at this size (default 64MB; 0: never).")
    var rotateSize = "64MB"
    @Option(help: "Room kept on the state's disk for apps' ends, completions and audit lines when it fills (default 4MB; 0: none).")
    var diskReserve = "4MB"
    @Option(help: "Seconds a new connection has to say hello before it is closed (default 5).") var helloDeadline: Double?
    @Option(help: "Seconds a frame begun may take to arrive whole before the connection is closed (default 10).")
    var frameDeadline: Double?
    @Option(help: "A user (uid or name) whose processes may use bgx ctl; repeatable (default: root and the daemon's user).")
    var ctlUser: [String] = []
    @Option(help: "Who apps run as when the daemon is root: per-app (uid 200000 + the app's number), per-app:BASE, or UID[:GID].")
    var appUser = "per-app"
    @Option(help: "Directory of the apps' data containers (default: the state directory's path with -containers after it).")
    var containers: String?
    @Option(help: "Where the platform's truth comes from: auto (each source that is there), none, or a list of systemd, upower, power-supply, networkmanager, logind, wayland.")
    var platform = "auto"
    @Option(help: "The system bus's address for upower, networkmanager and logind (default: DBUS_SYSTEM_BUS_ADDRESS, else unix:path=/run/dbus/system_bus_socket).")
    var systemBus: String?
    @Option(help: "The kernel's power-supply directory, read where no UPower runs (default /sys/class/power_supply).")
    var powerSupply = "/sys/class/power_supply"
    @Option(help: "Seconds between readings of the power-supply directory (default 30).")
    var powerSupplyInterval: Double = 30
    @Option(help: "The Wayland compositor's socket: a path, or a name in XDG_RUNTIME_DIR (default: WAYLAND_DISPLAY).")
    var waylandDisplay: String?
    @Option(help: "APP_ID=BUNDLE: the compositor's app id that stands for an installed app (repeatable; unmapped, an app id is the bundle identifier).")
    var appId: [String] = []

    func run() throws {
        var options = DaemonOptions(stateDirectory: state, socketPath: socket)
        guard let p = PolicyProfile.named(profile) else { throw fail("unknown profile \(profile)") }
        options.profile = p
        if let cpuLimit {
            guard (1...100).contains(cpuLimit) else { throw fail("--cpu-limit must be between 1 and 100 (percent)") }
            options.profile.scheduler.cpuLimitFraction = Double(cpuLimit) / 100
        }
        guard let f = FreezerMode(rawValue: freezer) else { throw fail("--freezer is auto, cgroup2, cgroup1 or sigstop") }
        options.freezer = f
        if let memory {
            guard let bytes = Units.size(memory), bytes > 0 else { throw fail("--memory: not a size: \(memory)") }
            options.memory = bytes
        }
        // Bounded so that engine time (monotonic nanoseconds × scale) cannot overflow in a century of uptime.
        guard (1...1000).contains(timeScale) else { throw fail("--time-scale must be between 1 and 1000") }
        options.timeScale = Int64(timeScale)
        guard (0...10_000_000).contains(snapshotEvery) else { throw fail("--snapshot-every must be between 0 and 10000000 inputs") }
        options.snapshotEvery = snapshotEvery
        options.keepJournal = keepJournal
        options.fresh = fresh
        options.restoreToLastGood = restoreToLastGood
        guard let rotate = rotateSize == "0" ? 0 : Units.size(rotateSize), rotate >= 0 else {
            throw fail("--rotate-size: not a size: \(rotateSize)")
        }
        options.rotateSize = rotate
        guard let reserve = diskReserve == "0" ? 0 : Units.size(diskReserve), reserve >= 0, reserve <= 1 << 40 else {
            throw fail("--disk-reserve: not a size: \(diskReserve)")
        }
        options.diskReserve = reserve
        if !ctlUser.isEmpty {
            var users: Set<uid_t> = []
            for word in ctlUser {
                if let uid = uid_t(word) { users.insert(uid); continue }
                guard let entry = getpwnam(word) else { throw fail("--ctl-user: no user \(word)") }
                users.insert(entry.pointee.pw_uid)
            }
            options.ctlUsers = users
        }
        guard let users = AppUsers.parse(appUser) else {
            throw fail("--app-user is per-app, per-app:BASE or UID[:GID] (never 0: apps never run as root)")
        }
        options.appUsers = users
        if let containers { options.containersDirectory = containers }
        for (name, seconds, keyPath) in [("--hello-deadline", helloDeadline, \ConnectionLimits.helloDeadline),
                                         ("--frame-deadline", frameDeadline, \ConnectionLimits.frameDeadline)] {
            guard let seconds else { continue }
            guard seconds > 0, seconds <= 3600 else { throw fail("\(name) must be between 0 and 3600 seconds") }
            options.limits[keyPath: keyPath] = Int64(seconds * 1e9)
        }
        guard var choice = PlatformChoice(platform) else {
            throw fail("--platform is auto, none, or a list of \(PlatformChoice.names.joined(separator: ", "))")
        }
        guard powerSupplyInterval >= 0.01, powerSupplyInterval <= 86_400 else {
            throw fail("--power-supply-interval must be between 0.01 and 86400 seconds")
        }
        for pair in appId {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw fail("--app-id takes APP_ID=BUNDLE, not \(pair)") }
            options.appIDs[parts[0]] = parts[1]
        }
        choice.systemBus = systemBus
        choice.powerSupplyDirectory = powerSupply
        choice.powerSupplyInterval = Int64(powerSupplyInterval * 1e9)
        choice.waylandDisplay = waylandDisplay
        // Descriptors this process inherited (a test harness's process-exit socket, say) are
        // not the apps': closed on exec, so an app it launches holds none of them.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        let daemon: LiveDaemon
        do {
            // What must outlive the daemon: STATE/state.sqlite (docs/live.md).
            // Made 0700, refused if another user could steer it (see PrivateDirectory).
            try PrivateDirectory(state, mode: 0o700).close()
            options.store = try SQLiteStore(path: state + "/state.sqlite", fsync: fsync)
            // Background transfers' real bytes, over real TCP (AsyncHTTPClient).
            options.transferMover = HTTPTransferMover()
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
    @Option(help: "The daemon's socket.") var socket: String
    @Flag(help: "With trace: keep printing lines as they happen.") var follow = false
    @Flag(help: "With status: the same as one JSON object, each controller's dump as data.") var json = false
    @Option(help: "Seconds to wait for the daemon's answer before giving up with a message (default 10; 0: for ever).")
    var timeout: Double = 10
    @Argument(parsing: .captureForPassthrough, help: "VERB and its arguments.") var words: [String] = []

    func run() throws {
        guard let verb = words.first else { throw fail("ctl needs a verb") }
        let args = Array(words.dropFirst())
        let client: ControlClient
        guard timeout >= 0, timeout <= 86_400 else { throw fail("--timeout must be between 0 and 86400 seconds") }
        let wait: Double? = timeout == 0 ? nil : timeout
        do { client = try ControlClient(socket: socket, timeout: wait) } catch { throw fail("\(socket): \(error)") }
        if verb == "trace" {
            let follow = follow || args.contains("--follow")
            try client.trace(follow: follow) { line in
                print(line)
                fflush(stdout)
                return true
            }
            return
        }
        let reply: LiveMessage
        do { reply = try client.send(verb, args + (json && !args.contains("--json") ? ["--json"] : [])) } catch { throw fail("\(error)") }
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
