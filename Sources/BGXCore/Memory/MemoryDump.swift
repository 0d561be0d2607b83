/// The memory controller's state for one app, as data and in words: its
/// footprint against the per-process limit and free memory, its jetsam band
/// and why, a kill under way, and what the responsible-background rules
/// watch (file locks into suspension, sockets).
public struct MemoryDump: ControllerDump, Equatable {
    public var concern: String { "memory" }
    /// The manifest's footprint plus what the app allocated; 0 when not running.
    public var footprint: Int64
    public var limit: Int64
    /// Device-wide: free memory, and the levels at which apps are warned and jetsam kills.
    public var free: Int64
    public var warningLevel: Int64
    public var criticalLevel: Int64
    /// The app's band (nil when not running) and the reasons it holds the app running in the background.
    public var band: JetsamBand?
    public var keptRunningBy: [String]
    /// Jetsam has chosen the app: the kill's words.
    public var jettison: String?
    public var locks: [String]
    public var sockets: [String]
    /// Busy main-thread time in the CPU monitor's trailing window, and the limit.
    public var busyInWindow: Nanoseconds
    public var cpuLimit: Nanoseconds
    public var cpuWindow: Nanoseconds

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        guard let band else { return [] }
        var lines = ["footprint \(Engine.mb(footprint)) of a per-process limit of \(Engine.mb(limit)); "
                     + "free memory \(Engine.mb(free)) (warnings below \(Engine.mb(warningLevel)), "
                     + "jetsam below \(Engine.mb(criticalLevel)))"]
        var bandLine = "jetsam band \(band) (\(band.rawValue))"
        if !keptRunningBy.isEmpty { bandLine += ": held by " + keptRunningBy.joined(separator: ", ") }
        lines.append(bandLine)
        if let jettison { lines.append("chosen by jetsam: " + jettison) }
        if !locks.isEmpty { lines.append("file locks held (fatal if suspended): " + locks.joined(separator: ", ")) }
        if !sockets.isEmpty { lines.append("sockets open: " + sockets.joined(separator: ", ")) }
        if busyInWindow > 0 {
            lines.append("CPU busy \(Time.describe(busyInWindow)) in the last \(Time.describe(cpuWindow)) "
                         + "(killed in the background at \(Time.describe(cpuLimit)))")
        }
        return lines
    }
}

extension Engine {
    /// The memory controller's state for the app now.
    public func memoryControllerDump(of app: AppID) -> MemoryDump {
        let i = Int(app.index)
        let window = schedulerSettings.cpuLimitWindow
        return MemoryDump(
            footprint: footprint(of: app), limit: appMemoryLimit, free: freeMemory,
            warningLevel: memoryWarningLevel, criticalLevel: memoryCriticalLevel,
            band: jetsamBand(of: app), keptRunningBy: apps[i].assertions.names,
            jettison: memory.apps[i].jettison?.detail, locks: memory.apps[i].locks,
            sockets: memory.apps[i].sockets.map { "\($0.name) (\($0.kind.rawValue))" },
            busyInWindow: memory.busy(app, from: now - window, to: now), cpuLimit: cpuLimitBusy, cpuWindow: window)
    }
}
