/// rules §10: the app's calls into the memory controller, each a forwarder —
/// take the input, ask the controller, carry out what it returns. What the
/// coordinator reads for the controller and carries out of its decisions is
/// in `Engine/MemorySteps.swift`.
extension Engine {
    // MARK: Memory

    /// The app allocates (or, negative, frees) memory. Above its limit it
    /// is killed at once; otherwise the system looks at free memory.
    public mutating func allocate(for app: AppID, bytes: Int64) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        memory.allocate(app, bytes: bytes)
        guard bytes > 0 else {
            if freeMemory >= memoryWarningLevel { memory.lowMemoryEnded() }
            return
        }
        if enforceLimit(app) { checkMemoryPressure() }
    }

    // MARK: CPU

    // rules §10: a background app above 80 % CPU over 60 s is killed
    // (`cpuLimit`) [O]; processing tasks with `requiresExternalPower` are
    // exempt [D]. Busy main-thread work (`work`) is CPU. Event-driven: the
    // monitor computes when the limit would be crossed and checks then.

    /// The app's main thread is busy from now for `duration`.
    public mutating func noteBusy(_ app: AppID, _ duration: Nanoseconds) {
        let i = Int(app.index)
        guard duration > 0, apps[i].state == .background, !isExemptFromCPUMonitor(app) else { return }
        memory.noteBusy(app, now: now, for: duration, window: schedulerSettings.cpuLimitWindow)
        scheduleCPUCheck(app)
    }

    // MARK: GPU

    /// The app renders with the GPU (OpenGL ES / Metal): in the background
    /// that is fatal at once [S].
    public mutating func useGPU(for app: AppID) {
        guard apps[Int(app.index)].state == .background else { return }
        terminate(app, .gpuInBackground, detail: "used the GPU while in the background")
    }

    // MARK: File locks

    /// The app takes a file lock (a SQLite database, a shared container file).
    public mutating func holdLock(for app: AppID, _ name: String) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        memory.holdLock(app, name)
    }

    public mutating func releaseLock(for app: AppID, _ name: String) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        if !memory.releaseLock(app, name) { log(app, "releaseLock: the lock '\(name)' is not held") }
    }

    public func heldLocks(of app: AppID) -> [String] { memory.apps[Int(app.index)].locks }

    // MARK: Sockets

    public mutating func openSocket(for app: AppID, name: String, kind: SocketKind) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        memory.openSocket(app, name, kind)
    }

    public mutating func closeSocket(for app: AppID, name: String) {
        memory.closeSocket(app, name)
    }

    public func openSockets(of app: AppID) -> [(name: String, kind: SocketKind)] {
        memory.apps[Int(app.index)].sockets.map { ($0.name, $0.kind) }
    }

    /// The sockets closed while the app was suspended (the host tells the app's objects).
    public mutating func takeClosedSockets(of app: AppID) -> [(name: String, reason: String)] {
        memory.takeClosedSockets(app).map { ($0.name, $0.reason) }
    }

    // MARK: The snapshot

    /// What the UI shows now: the snapshot captures it.
    public mutating func setSensitiveContentVisible(for app: AppID, _ visible: Bool) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        memory.setSensitiveContentVisible(app, visible)
    }

    public func isSensitiveContentVisible(_ app: AppID) -> Bool { memory.apps[Int(app.index)].sensitiveContentVisible }

    /// `requestSceneSessionRefresh`: in the background, the app-switcher
    /// snapshot is taken again with what the UI shows now.
    public mutating func refreshSnapshot(for app: AppID) {
        guard apps[Int(app.index)].state == .background else { return }
        takeSnapshot(app)
    }

    // MARK: Unsaved changes

    /// `UIDocument.hasUnsavedChanges`-style: true when the person's work is
    /// not saved yet; set to false when saved (traced `changes.save`).
    public mutating func setUnsavedChanges(for app: AppID, _ unsaved: Bool) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        if let saved = memory.setUnsavedChanges(app, unsaved) { apply(saved) }
    }

    public func hasUnsavedChanges(_ app: AppID) -> Bool { memory.apps[Int(app.index)].hasUnsavedChanges }
}
