import BGXCore

/// The engine's CPU monitor and jetsam, fed from what the kernel says the
/// app's processes really use. Read whenever the app talks to the daemon
/// (each call and acknowledgement) and, while any app's process is not
/// frozen, every `resourceSampleInterval` — a frozen process uses no CPU and
/// grows no memory, so with every app frozen the daemon does not wake for
/// this.
extension LiveDaemon {
    /// Real time between samples of running processes.
    static let resourceSampleInterval: Int64 = 250_000_000

    /// When the next sample is due, if any process is running (not frozen).
    var nextResourceSample: Int64? {
        processes.values.contains { !$0.frozen && $0.killedFor == nil } ? lastResourceSample + Self.resourceSampleInterval : nil
    }

    /// Samples every running process, and the memory pressure.
    func sampleResources() {
        lastResourceSample = MonotonicClock.now()
        for p in processes.values where !p.frozen && p.killedFor == nil {
            p.resourcesReadAt = lastResourceSample
            noteCPUTime(p)
            noteResidentSize(p)
            rotateLogIfDue(p)
        }
        notePressure()
    }

    /// Reads the process's CPU time and resident size as it talks to the
    /// daemon (a call, an acknowledgement), at most once per
    /// `resourceReadInterval`: reading /proc costs more than the rest of a call.
    func noteResources(_ p: LiveProcess) {
        let now = MonotonicClock.now()
        guard now - p.resourcesReadAt >= Self.resourceReadInterval else { return }
        p.resourcesReadAt = now
        noteCPUTime(p)
        noteResidentSize(p)
    }

    static let resourceReadInterval: Int64 = 10_000_000

    /// CPU time since the last sample goes to the engine's CPU monitor
    /// (which counts it only in the background), in engine time.
    func noteCPUTime(_ p: LiveProcess) {
        guard p.epoch == engine.processEpoch(of: p.app), engine.state(of: p.app).isRunning,
              let cpu = ProcessResources.cpuTime(pid: p.pid, cgroup: p.cgroup), cpu > p.cpuSeen else { return }
        let used = cpu - p.cpuSeen
        p.cpuSeen = cpu
        journal(.busy(app: p.bundle, nanoseconds: used * options.timeScale))
        engine.noteBusy(p.app, used * options.timeScale)
    }

    /// The app's real resident size goes to the engine's memory model as it
    /// changes: above its limit, or with too little free memory left,
    /// jetsam ends it with reason `memoryPressure`.
    func noteResidentSize(_ p: LiveProcess) {
        guard p.epoch == engine.processEpoch(of: p.app), engine.state(of: p.app).isRunning,
              let bytes = ProcessResources.residentBytes(pid: p.pid, cgroup: p.cgroup), bytes != p.reportedBytes else { return }
        journal(.resident(app: p.bundle, bytes: bytes - p.reportedBytes))
        engine.allocate(for: p.app, bytes: bytes - p.reportedBytes)
        p.reportedBytes = bytes
    }

    /// PSI memory pressure — the apps' own (`memory.pressure` of the
    /// daemon's subtree) where the kernel offers it, else the machine's —
    /// becomes the device's memory pressure when its level changes.
    func notePressure() {
        guard let path = pressurePath, let stall = PressureStall.read(path) else { return }
        lastPressure = stall
        guard stall.level != pressureLevel else { return }
        pressureLevel = stall.level
        journal(.control(verb: "device", args: ["memoryPressure=\(stall.level.rawValue)"]))
        engine.schedule(.device(.memoryPressure(stall.level)), at: engine.now)
        hostLine(nil, "memory.pressure", [("level", .string(stall.level.rawValue)), ("someAvg10", .number(stall.some)),
                                          ("fullAvg10", .number(stall.full)), ("source", .string(path))])
    }

    static func pressureFile(root: String?) -> String? {
        for path in [root.map { $0 + "/memory.pressure" }, "/proc/pressure/memory"].compactMap({ $0 })
        where PressureStall.read(path) != nil {
            return path
        }
        return nil
    }
}
