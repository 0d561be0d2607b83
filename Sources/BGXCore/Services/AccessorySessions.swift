/// rules §4 external accessories and Bluetooth: with the mode, the session
/// stays open in the background and new data wakes a suspended app, which
/// has ~10 s to handle it (a background task extends that). Without it, the
/// accessory disconnects when the app leaves the front and its data is not
/// delivered. Core Bluetooth state restoration relaunches a terminated app
/// for its kept connection's events (rules §11, QA1962) — not after a user
/// force-quit; an External Accessory never launches an app.
/// The app's calls, forwarded to `LongRunningServicesController`, which decides.
extension Engine {
    /// `EASession(accessory:forProtocol:)` / `CBCentralManager.connect`. With
    /// `restores` (a central manager created with a restore identifier) the
    /// system keeps a Bluetooth connection for the app after it ends.
    public mutating func openAccessorySession(for app: AppID, _ transport: AccessoryTransport, restores: Bool = false) {
        apply(services.openSession(app, transport, restores: restores, serviceView(of: app), settings: profile.longRunning))
    }

    /// The app closes its session (or cancels its peripheral connection).
    public mutating func closeAccessorySession(for app: AppID, _ transport: AccessoryTransport) {
        apply(services.closeSession(app, transport, serviceView(of: app)))
    }
}
