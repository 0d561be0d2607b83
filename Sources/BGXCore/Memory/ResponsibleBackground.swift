/// rules §10, the responsible-background rules [S]: no GPU in the background;
/// no file lock held into suspension (0xdead10cc); listening sockets and
/// Bonjour services close on suspension and connections may be torn down
/// while suspended; the app-switcher snapshot is taken once
/// `didEnterBackground` returns. And what a kill costs the person: changes
/// not yet saved are lost.

/// What kind of socket an app opened.
public enum SocketKind: String, Sendable, CaseIterable, Codable {
    /// A listening socket: closed when the app is suspended.
    case listener
    /// A published Bonjour service (`NetService`): closed when the app is suspended.
    case bonjour
    /// A connection: may be torn down while the app is suspended.
    case connection
}

struct OpenSocket: Sendable, Codable {
    var name: String
    var kind: SocketKind
}

extension Engine {

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

    /// About to be suspended: a held lock kills the app [S] (0xdead10cc).
    /// Returns false if it did.
    mutating func releaseResourcesForSuspension(_ app: AppID) -> Bool {
        guard memory.holdsLockOrSocket(app) else { return true }
        let (suspends, effects) = memory.releaseForSuspension(app)
        carryOut(effects)
        return suspends
    }

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

    /// Back from suspension: connections left idle that long are gone; the
    /// app hears of every socket closed meanwhile.
    mutating func noteSocketsOnResume(_ app: AppID, suspendedFor: Nanoseconds) {
        guard memory.hasSocketsToReview(app) else { return }
        let (tellApp, effects) = memory.resumed(app, suspendedFor: suspendedFor,
                                                teardown: profile.memory.suspendedSocketTeardown)
        carryOut(effects)
        if tellApp { apps[Int(app.index)].jobs.append(.socketsClosed) }
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

    /// Traced here, not as an effect: it runs at every entry into the
    /// background (see `checkMemoryPressure` for what effects cost there).
    mutating func takeSnapshot(_ app: AppID) {
        record(app, .snapshot(sensitiveContentVisible: memory.apps[Int(app.index)].sensitiveContentVisible))
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
