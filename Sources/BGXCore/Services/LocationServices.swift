/// rules §4 location. Standard updates keep a `location`-mode app with
/// `allowsBackgroundLocationUpdates` running in the background; foreground-only
/// updates stop while the app is suspended. Significant changes (≥ 500 m, at
/// most once per 5 min) and region enter/exit events wake a suspended app and
/// relaunch a terminated one (rules §11) — even after a user force-quit where
/// the profile says so. The device's movement is one dimension: see
/// `SensorState`. The app's calls, forwarded to `LongRunningServicesController`.
extension Engine {
    /// The radius a region gets when the app names none (an app's choice, not a policy).
    public static let defaultRegionRadius: Int64 = 100

    /// Metres along the device's route.
    public var devicePosition: Int64 { sensors.position }

    public mutating func startLocation(for app: AppID, _ service: LocationService) {
        if service == .region {
            return startMonitoringRegion(for: app, identifier: "region", radius: Self.defaultRegionRadius)
        }
        apply(services.startLocation(app, service, serviceView(of: app), settings: profile.longRunning))
    }

    public mutating func stopLocation(for app: AppID, _ service: LocationService) {
        apply(services.stopLocation(app, service, serviceView(of: app), settings: profile.longRunning))
    }

    /// `startMonitoring(for: CLCircularRegion)`: a circle of `radius` metres
    /// around where the device is now; the device starts inside it.
    public mutating func startMonitoringRegion(for app: AppID, identifier: String, radius: Int64) {
        guard apps[Int(app.index)].state != .notRunning else { return }
        let id = text(identifier)
        apply(services.startMonitoringRegion(app, id, center: sensors.position, radius: radius))
    }

    public mutating func stopMonitoringRegion(for app: AppID, identifier: String) {
        let id = text(identifier)
        apply(services.stopMonitoringRegion(app, id))
    }

    /// `allowsBackgroundLocationUpdates`. iOS refuses it without the
    /// `location` mode (it raises an exception; bgx logs and ignores it).
    public mutating func setAllowsBackgroundLocationUpdates(for app: AppID, _ allowed: Bool) {
        apply(services.setAllowsBackgroundUpdates(app, allowed, serviceView(of: app), settings: profile.longRunning))
    }

    /// The device moves `meters` along its route (negative: back).
    public mutating func moveDevice(meters: Int64) {
        sensors.position += meters
        apply(.device(property: "position", value: "\(sensors.position)m"))
        apply(services.deviceMoved(meters: meters, to: sensors.position, now: now, settings: profile.longRunning))
    }
}
