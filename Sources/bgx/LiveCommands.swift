import ArgumentParser
import Foundation

// `bgx daemon` and `bgx ctl` hand over to `bgx-daemon`, a separate
// executable beside `bgx`: the live host's code is never built for the demo.

/// Replaces this process with `bgx-daemon` beside it, or says how to build it.
func handOverToLiveHost(_ arguments: [String]) throws -> Never {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("bgx-daemon").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw fail("error: the live host is a separate executable, not found at \(path); build it with "
                   + "`swift build --product bgx-daemon`")
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    execv(path, argv)
    throw fail("error: cannot run \(path): \(String(cString: strerror(errno)))")
}

struct Daemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the live host: the same engine governing real Linux processes.",
        discussion: "Hands over to bgx-daemon, an executable built beside bgx (docs/live.md).")
    @Option(help: "Directory for the trace, the audit log and the apps' logs.") var state: String
    @Option(help: "Path of the Unix socket apps and bgx ctl connect to.") var socket: String
    @Option(help: "Policy profile: modern, ios12, ios6 or ios26.") var profile = "modern"
    @Option(help: "How to suspend: auto, cgroup2, cgroup1 or sigstop.") var freezer = "auto"
    @Option(help: "The device's memory (e.g. 2GB); default: the machine's.") var memory: String?
    @Option(help: "The CPU monitor's limit, in percent of its window (default: the profile's).") var cpuLimit: Int?
    @Option(help: "Run the engine's time this many times faster than the clock (tests).") var timeScale = 1
    @Flag(help: "Wait for the disk on every journal write (survives a power cut).") var fsync = false
    @Option(help: "Store a snapshot of the state every this many journaled inputs (default 10000; 0: never).")
    var snapshotEvery: Int?
    @Flag(help: "Keep the journal's entries from before the latest snapshot (by default they are deleted).")
    var keepJournal = false
    @Option(help: "Seconds a new connection has to say hello before it is closed (default 5).") var helloDeadline: Double?
    @Option(help: "Seconds a frame begun may take to arrive whole before the connection is closed (default 10).")
    var frameDeadline: Double?
    @Option(help: "A user (uid or name) whose processes may use bgx ctl; repeatable (default: root and the daemon's user).")
    var ctlUser: [String] = []
    @Option(help: "Who apps run as when the daemon is root: per-app (uid 200000 + the app's number), per-app:BASE, or UID[:GID].")
    var appUser: String?
    @Option(help: "Directory of the apps' data containers (default: the state directory's path with -containers after it).")
    var containers: String?
    @Flag(help: "Start over on purpose on a state directory whose database is missing, emptied or another's (refused otherwise).")
    var fresh = false
    @Flag(help: "When the journal is corrupted or cut short, carry on from its last good entry, losing the inputs after it (refused otherwise).")
    var restoreToLastGood = false
    @Option(help: "Rotate the trace and each app's log at this size (default 64MB; 0: never).")
    var rotateSize: String?
    @Option(help: "Room kept on the state's disk for apps' ends, completions and audit lines when it fills (default 4MB; 0: none).")
    var diskReserve: String?
    @Option(help: "Where the platform's truth comes from: auto (default), none, or a list of systemd, upower, power-supply, networkmanager, logind, wayland.")
    var platform: String?
    @Option(help: "The system bus's address for upower, networkmanager and logind.") var systemBus: String?
    @Option(help: "The kernel's power-supply directory (default /sys/class/power_supply).") var powerSupply: String?
    @Option(help: "Seconds between readings of the power-supply directory (default 30).") var powerSupplyInterval: Double?
    @Option(help: "The Wayland compositor's socket: a path, or a name in XDG_RUNTIME_DIR (default: WAYLAND_DISPLAY).")
    var waylandDisplay: String?
    @Option(help: "APP_ID=BUNDLE: the compositor's app id that stands for an installed app (repeatable).") var appId: [String] = []

    func run() throws {
        var arguments = ["daemon", "--state", state, "--socket", socket, "--profile", profile, "--freezer", freezer,
                         "--time-scale", "\(timeScale)"]
        if let memory { arguments += ["--memory", memory] }
        if let cpuLimit { arguments += ["--cpu-limit", "\(cpuLimit)"] }
        if fsync { arguments.append("--fsync") }
        if let snapshotEvery { arguments += ["--snapshot-every", "\(snapshotEvery)"] }
        if keepJournal { arguments.append("--keep-journal") }
        if let helloDeadline { arguments += ["--hello-deadline", "\(helloDeadline)"] }
        if let frameDeadline { arguments += ["--frame-deadline", "\(frameDeadline)"] }
        for user in ctlUser { arguments += ["--ctl-user", user] }
        if let appUser { arguments += ["--app-user", appUser] }
        if let containers { arguments += ["--containers", containers] }
        if fresh { arguments.append("--fresh") }
        if restoreToLastGood { arguments.append("--restore-to-last-good") }
        if let rotateSize { arguments += ["--rotate-size", rotateSize] }
        if let diskReserve { arguments += ["--disk-reserve", diskReserve] }
        if let platform { arguments += ["--platform", platform] }
        if let systemBus { arguments += ["--system-bus", systemBus] }
        if let powerSupply { arguments += ["--power-supply", powerSupply] }
        if let powerSupplyInterval { arguments += ["--power-supply-interval", "\(powerSupplyInterval)"] }
        if let waylandDisplay { arguments += ["--wayland-display", waylandDisplay] }
        for pair in appId { arguments += ["--app-id", pair] }
        try handOverToLiveHost(arguments)
    }
}

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive a running live host: install, launch, home, lock, push, device, status, explain, trace …")
    @Option(help: "The daemon's socket.") var socket: String
    @Flag(help: "With trace: keep printing lines as they happen.") var follow = false
    @Flag(help: "With status: the same as one JSON object, each controller's dump as data.") var json = false
    @Option(help: "Seconds to wait for the daemon's answer before giving up with a message (default 10; 0: for ever).")
    var timeout: Double?
    @Argument(parsing: .captureForPassthrough, help: "VERB and its arguments.") var words: [String] = []

    func run() throws {
        try handOverToLiveHost(["ctl", "--socket", socket] + (follow ? ["--follow"] : []) + (json ? ["--json"] : [])
                               + (timeout.map { ["--timeout", "\($0)"] } ?? []) + words)
    }
}
