import BGXCore
import Foundation

/// The platform feeds the engine: what its sources report becomes the same
/// input a `bgx ctl` verb would be — journaled, so a restart replays it —
/// given only when it differs from what the engine holds, each with a
/// `platform.input` line saying which source it came from.
extension LiveDaemon {
    /// Starts every source and, last, tells systemd the daemon is ready.
    func startPlatform() {
        for source in options.platformSources { handlePlatform(source.start()) }
        options.systemd?.ready(status: "\(engine.appIDs.count) app(s) installed, socket \(options.socketPath)", now: MonotonicClock.now())
        if let systemd = options.systemd {
            log("bgx daemon: told systemd READY=1 at \(systemd.socketName)"
                + (systemd.watchdogInterval.map { ", watchdog pings every \(Time.describe($0))" } ?? ""))
        }
    }

    /// The soonest moment a source or systemd's watchdog wants the loop awake.
    var nextPlatformWake: Int64? {
        (options.platformSources.compactMap(\.nextWake) + [options.systemd?.nextPing].compactMap { $0 }).min()
    }

    /// After a turn's wait: sources with input, sources whose moment came, the watchdog.
    func servePlatform(ready: Set<Int32>) {
        let now = MonotonicClock.now()
        for source in options.platformSources {
            if source.descriptor >= 0, ready.contains(source.descriptor) { handlePlatform(source.readable()) }
            if let due = source.nextWake, now >= due { handlePlatform(source.woken(now: now)) }
        }
        // The loop came round: it is alive.
        options.systemd?.ping(now: now)
    }

    func stopPlatform() {
        options.systemd?.stopping()
        for source in options.platformSources { source.close() }
    }

    /// `status`'s lines on the platform.
    var platformStatus: [String] {
        var lines = options.platformNotes
        if let systemd = options.systemd {
            lines.append("systemd: notified at \(systemd.socketName)"
                         + (systemd.watchdogInterval.map { ", watchdog pings every \(Time.describe($0))" } ?? ", no watchdog")
                         + (systemd.failures > 0 ? ", \(systemd.failures) datagram(s) not delivered" : ""))
        }
        for source in options.platformSources { lines += source.statusLines }
        return lines
    }

    func handlePlatform(_ reports: [PlatformReport]) {
        for report in reports {
            switch report {
            case let .source(name, live, detail):
                platformLive[name] = live
                hostLine(nil, "platform.source", [("source", .string(name)), ("state", .string(live ? "live" : "absent")),
                                                       ("detail", .string(detail))])
                log("bgx daemon: platform source \(name) \(live ? "live" : "absent"): \(detail)")
            case let .device(source, setting):
                // The kernel's directory stands in for UPower only while UPower is not there.
                if source == "power-supply", platformLive["upower"] == true { continue }
                guard case let .success(change) = DeviceSetting.change(setting), !Self.holds(engine.device, change) else { continue }
                platformInput(source, "device", [setting], .device(change))
            case let .locked(source, locked):
                guard engine.device.locked != locked else { continue }
                platformInput(source, locked ? "lock" : "unlock", [], .user(locked ? .lock : .unlock))
                // Unlocked: the compositor's front app, if it differs from the one the lock left.
                if !locked, let front = compositorFront { applyFront("wayland", front) }
            case let .front(source, appID):
                compositorFront = .some(appID)
                applyFront(source, appID)
            }
        }
    }

    /// The compositor's activated toplevel made the engine's front app: the
    /// installed app whose bundle identifier is its app id (or is mapped to it
    /// with `--app-id`); a toplevel of no installed app, or none, is home.
    /// While locked, nothing is in front: the report waits for the unlock.
    func applyFront(_ source: String, _ appID: String?) {
        guard !engine.device.locked else { return }
        let bundle = appID.map { options.appIDs[$0] ?? $0 }
        if let bundle, let app = engine.app(named: bundle) {
            guard engine.frontApp != app else { return }
            if let why = disk.refusal() {
                log("bgx daemon: \(source): \(bundle) came to the front, but \(why)")
                return
            }
            platformInput(source, "switchto", [bundle], .user(.switchTo(app)))
        } else if engine.frontApp != nil {
            platformInput(source, "home", [], .user(.home))
        }
    }

    /// One input from the platform, as `ctl` gives one: journaled, then to the engine.
    func platformInput(_ source: String, _ verb: String, _ args: [String], _ event: EngineEvent) {
        guard durable.mode == .live, !shuttingDown else { return }
        clockToInput()
        guard journal(.control(verb: verb, args: args)) else {
            log("bgx daemon: \(source) said \(([verb] + args).joined(separator: " ")), but the daemon could not record it")
            return
        }
        hostLine(nil, "platform.input", [("source", .string(source)), ("input", .string(([verb] + args).joined(separator: " ")))])
        engine.schedule(event, at: engine.now)
        pump()
    }

    /// Whether the device already reads as the change says.
    static func holds(_ device: DeviceState, _ change: DeviceChange) -> Bool {
        switch change {
        case let .charging(on): return device.charging == on
        case let .battery(level): return device.battery == level
        case let .network(network): return device.network == network
        default: return false
        }
    }
}
