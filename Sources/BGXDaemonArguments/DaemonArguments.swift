import ArgumentParser

// The live host's options, declared once: `bgx daemon` parses them (for its
// help and its errors) and hands the words over unchanged to `bgx-daemon`,
// which parses the same declaration and acts on it. This module needs only
// ArgumentParser, so the demo's build of `bgx` compiles nothing of the host.

/// `bgx daemon` / `bgx-daemon daemon`.
public struct DaemonArguments: ParsableArguments {
    public init() {}
    @Option(help: "Directory for the trace, the audit log and the apps' logs.") public var state: String
    @Option(help: "Path of the Unix socket apps and bgx ctl connect to.") public var socket: String
    @Option(help: "Policy profile: modern, ios12, ios6 or ios26.") public var profile = "modern"
    @Option(help: "How to suspend: auto, cgroup2, cgroup1 or sigstop.") public var freezer = "auto"
    @Option(help: "The device's memory (e.g. 2GB); default: the machine's.") public var memory: String?
    @Option(help: "The CPU monitor's limit, in percent of its window (default: the profile's).") public var cpuLimit: Int?
    @Option(help: "Run the engine's time this many times faster than the clock (tests).") public var timeScale = 1
    @Flag(help: "Wait for the disk on every journal write (survives a power cut).") public var fsync = false
    @Option(help: "Store a snapshot of the state every this many journaled inputs (0: never).")
    public var snapshotEvery = 10_000
    @Flag(help: "Keep the journal's entries from before the latest snapshot (by default they are deleted).")
    public var keepJournal = false
    @Flag(help: "Start over on purpose on a state directory whose database is missing, emptied or another's (refused otherwise).")
    public var fresh = false
    @Flag(help: "When the journal is corrupted or cut short, carry on from its last good entry, losing the inputs after it (refused otherwise).")
    public var restoreToLastGood = false
    @Option(help: "Rotate the trace and each app's log at this size (0: never).")
    public var rotateSize = "64MB"
    @Option(help: "Room kept on the state's disk for apps' ends, completions and audit lines when it fills (0: none).")
    public var diskReserve = "4MB"
    @Option(help: "Seconds a new connection has to say hello before it is closed (default 5).") public var helloDeadline: Double?
    @Option(help: "Seconds a frame begun may take to arrive whole before the connection is closed (default 10).")
    public var frameDeadline: Double?
    @Option(help: "A user (uid or name) whose processes may use bgx ctl; repeatable (default: root and the daemon's user).")
    public var ctlUser: [String] = []
    @Option(help: "Who apps run as when the daemon is root: per-app (uid 200000 + the app's number), per-app:BASE, or UID[:GID].")
    public var appUser = "per-app"
    @Option(help: "Directory of the apps' data containers (default: the state directory's path with -containers after it).")
    public var containers: String?
    @Option(help: "Where the platform's truth comes from: auto (each source that is there), none, or a list of systemd, upower, power-supply, networkmanager, logind, wayland.")
    public var platform = "auto"
    @Option(help: "The system bus's address for upower, networkmanager and logind (default: DBUS_SYSTEM_BUS_ADDRESS, else unix:path=/run/dbus/system_bus_socket).")
    public var systemBus: String?
    @Option(help: "The kernel's power-supply directory, read where no UPower runs.")
    public var powerSupply = "/sys/class/power_supply"
    @Option(help: "Seconds between readings of the power-supply directory.")
    public var powerSupplyInterval: Double = 30
    @Option(help: "The Wayland compositor's socket: a path, or a name in XDG_RUNTIME_DIR (default: WAYLAND_DISPLAY).")
    public var waylandDisplay: String?
    @Option(help: "APP_ID=BUNDLE: the compositor's app id that stands for an installed app (repeatable; unmapped, an app id is the bundle identifier).")
    public var appId: [String] = []
}

/// `bgx ctl` / `bgx-daemon ctl`.
public struct CtlArguments: ParsableArguments {
    public init() {}
    @Option(help: "The daemon's socket.") public var socket: String
    @Flag(help: "With trace: keep printing lines as they happen.") public var follow = false
    @Flag(help: "With status: the same as one JSON object, each controller's dump as data.") public var json = false
    @Option(help: "Seconds to wait for the daemon's answer before giving up with a message (0: for ever).")
    public var timeout: Double = 10
    @Argument(parsing: .captureForPassthrough, help: "VERB and its arguments.") public var words: [String] = []
}
