/// rules §4 external accessories and Bluetooth: with the mode, the session
/// stays open in the background and new data wakes a suspended app, which
/// has ~10 s to handle it (a background task extends that). Without it, the
/// accessory disconnects when the app leaves the front and its data is not
/// delivered. Core Bluetooth state restoration relaunches a terminated app
/// for its kept connection's events (rules §11, QA1962) — not after a user
/// force-quit; an External Accessory never launches an app.
extension Engine {
    /// `EASession(accessory:forProtocol:)` / `CBCentralManager.connect`. With
    /// `restores` (a central manager created with a restore identifier) the
    /// system keeps a Bluetooth connection for the app after it ends.
    public mutating func openAccessorySession(for app: AppID, _ transport: AccessoryTransport, restores: Bool = false) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        if transport == .bluetooth {
            services.apps[i].bluetoothRestores = restores && profile.longRunning.bluetoothStateRestoration
        }
        guard services.apps[i].session(transport) != .open else { return }
        services.apps[i].setSession(transport, .open)
        record(app, .accessoryConnect(transport: transport))
        noteAudioOrAccessoryAssertion(app)
    }

    /// The app closes its session (or cancels its peripheral connection).
    public mutating func closeAccessorySession(for app: AppID, _ transport: AccessoryTransport) {
        let i = Int(app.index)
        if transport == .bluetooth { services.apps[i].bluetoothRestores = false }
        guard services.apps[i].session(transport) != .none else { return }
        services.apps[i].setSession(transport, .none)
        record(app, .accessoryDisconnect(transport: transport, reason: text("closed by the app")))
        noteAudioOrAccessoryAssertion(app)
    }

    /// The accessory (or peripheral) has new data for the app.
    mutating func accessoryDataArrived(for app: AppID, _ transport: AccessoryTransport) {
        let i = Int(app.index)
        if let refusal = accessoryDataRefusal(i, transport) {
            record(app, .accessoryDrop(transport: transport, reason: text(refusal)))
            return
        }
        record(app, .accessoryDeliver(transport: transport))
        wakeForServiceEvent(app, cause: transport.cause, callback: .accessoryData(transport),
                            runTime: profile.longRunning.accessoryEventRunTime)
    }

    func accessoryDataRefusal(_ i: Int, _ transport: AccessoryTransport) -> String? {
        let app = AppID(index: Int32(i))
        let mode = accessoryModeName(transport)
        if apps[i].state == .notRunning {
            guard transport == .bluetooth else { return "the app is not running; accessory data never launches an app" }
            guard services.apps[i].bluetoothRestores else {
                return "the app is not running and the system keeps no Bluetooth connection for it "
                    + "(state restoration needs a restore identifier and a pending connection)"
            }
            return serviceWakeRefusal(app, cause: .bluetooth)
        }
        switch services.apps[i].session(transport) {
        case .open: break
        case .disconnected:
            return "the \(transport) was disconnected when the app left the front (no '\(mode)' in UIBackgroundModes)"
        case .none: return "the app has no open \(transport) session"
        }
        if !apps[i].state.isForeground && !hasAccessoryMode(i, transport) {
            return "no '\(mode)' in UIBackgroundModes: data is not delivered in the background"
        }
        return serviceWakeRefusal(app, cause: transport.cause)
    }

    func hasAccessoryMode(_ i: Int, _ transport: AccessoryTransport) -> Bool {
        let modes = apps[i].manifest.backgroundModes
        switch transport {
        case .accessory: return modes.contains(.externalAccessory)
        case .bluetooth: return modes.contains(.bluetoothCentral) || modes.contains(.bluetoothPeripheral)
        }
    }

    /// The mode's name as messages quote it (Bluetooth: either role's mode).
    func accessoryModeName(_ transport: AccessoryTransport) -> String {
        transport == .accessory ? BackgroundMode.externalAccessory.rawValue
            : "\(BackgroundMode.bluetoothCentral.rawValue)' or '\(BackgroundMode.bluetoothPeripheral.rawValue)"
    }
}
