/// rules §4 location. Standard updates keep a `location`-mode app with
/// `allowsBackgroundLocationUpdates` running in the background; foreground-only
/// updates stop while the app is suspended. Significant changes (≥ 500 m, at
/// most once per 5 min) and region enter/exit events wake a suspended app and
/// relaunch a terminated one (rules §11) — even after a user force-quit where
/// the profile says so. The device's movement is one dimension: see
/// `SensorState`.
extension Engine {
    /// The radius a region gets when the app names none (an app's choice, not a policy).
    public static let defaultRegionRadius: Int64 = 100

    /// Metres along the device's route.
    public var devicePosition: Int64 { sensors.position }

    public mutating func startLocation(for app: AppID, _ service: LocationService) {
        let i = Int(app.index)
        // App code still running after its process ended (exit, a synchronous kill) starts nothing.
        guard apps[i].state != .notRunning else { return }
        switch service {
        case .standard:
            guard !services.apps[i].location.standard else { return }
            services.apps[i].location.standard = true
            noteBackgroundLocationAssertion(i)
        case .significant:
            guard !services.apps[i].location.significant else { return }
            services.apps[i].location.significant = true
            services.apps[i].location.metersSinceFix = 0
        case .region:
            startMonitoringRegion(for: app, identifier: "region", radius: Self.defaultRegionRadius)
            return
        }
        record(app, .locationStart(service: service))
    }

    public mutating func stopLocation(for app: AppID, _ service: LocationService) {
        let i = Int(app.index)
        switch service {
        case .standard:
            guard services.apps[i].location.standard else { return }
            services.apps[i].location.standard = false
            noteBackgroundLocationAssertion(i)
        case .significant:
            guard services.apps[i].location.significant else { return }
            services.apps[i].location.significant = false
            services.apps[i].location.significantGeneration &+= 1
            services.apps[i].location.significantDeferred = false
        case .region:
            guard !services.apps[i].location.regions.isEmpty else { return }
            services.apps[i].location.regions.removeAll()
        }
        record(app, .locationStop(service: service))
        suspendIfThreadFree(app)
    }

    /// `startMonitoring(for: CLCircularRegion)`: a circle of `radius` metres
    /// around where the device is now; the device starts inside it.
    public mutating func startMonitoringRegion(for app: AppID, identifier: String, radius: Int64) {
        guard apps[Int(app.index)].state != .notRunning else { return }
        let i = Int(app.index)
        let id = text(identifier)
        services.apps[i].location.regions.removeAll { $0.identifier == id }
        services.apps[i].location.regions.append(
            MonitoredRegion(identifier: id, center: sensors.position, radius: max(1, radius), inside: true))
        record(app, .locationStart(service: .region))
    }

    public mutating func stopMonitoringRegion(for app: AppID, identifier: String) {
        let i = Int(app.index)
        let id = text(identifier)
        let before = services.apps[i].location.regions.count
        services.apps[i].location.regions.removeAll { $0.identifier == id }
        if services.apps[i].location.regions.count != before { record(app, .locationStop(service: .region)) }
    }

    /// `allowsBackgroundLocationUpdates`. iOS refuses it without the
    /// `location` mode (it raises an exception; bgx logs and ignores it).
    public mutating func setAllowsBackgroundLocationUpdates(for app: AppID, _ allowed: Bool) {
        let i = Int(app.index)
        if allowed && !apps[i].manifest.backgroundModes.contains(.location) {
            log(app, "Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient) — "
                + "allowsBackgroundLocationUpdates needs 'location' in UIBackgroundModes")
            return
        }
        services.apps[i].location.allowsBackgroundUpdates = allowed
        noteBackgroundLocationAssertion(i)
        if !allowed { suspendIfThreadFree(app) }
    }

    /// Whether standard updates may continue (and keep the app running) in the background.
    @inline(__always) func backgroundLocationAllowed(_ i: Int) -> Bool {
        apps[i].manifest.backgroundModes.contains(.location)
            && (services.apps[i].location.allowsBackgroundUpdates || !profile.longRunning.requiresAllowsBackgroundLocationUpdates)
    }

    /// The device moves `meters` along its route (negative: back).
    public mutating func moveDevice(meters: Int64) {
        sensors.position += meters
        recordDevice("position", "\(sensors.position)m")
        for app in appIDs {
            let i = Int(app.index)
            let location = services.apps[i].location
            if location.standard { deliverStandardFix(app) }
            if location.significant {
                services.apps[i].location.metersSinceFix += Int64(clamping: meters.magnitude)
                considerSignificantChange(app)
            }
            for r in location.regions.indices {
                let region = services.apps[i].location.regions[r]
                let inside = abs(sensors.position - region.center) <= region.radius
                guard inside != region.inside else { continue }
                services.apps[i].location.regions[r].inside = inside
                regionEvent(app, region.identifier, entered: inside)
            }
        }
    }

    mutating func deliverStandardFix(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state == .suspended else {
            record(app, .locationDeliver(service: .standard, region: nil, entered: false))
            apps[i].jobs.append(.service(.didUpdateLocations(.standard)))
            pump(app)
            return
        }
        let why = apps[i].manifest.backgroundModes.contains(.location)
            ? "allowsBackgroundLocationUpdates is false: standard updates stop while the app is suspended"
            : "no 'location' in UIBackgroundModes: standard updates stop while the app is suspended"
        record(app, .locationDrop(service: .standard, reason: text(why)))
    }

    /// A significant change is due once the device has moved far enough —
    /// and no sooner than the minimum interval after the last one.
    mutating func considerSignificantChange(_ app: AppID) {
        let i = Int(app.index)
        let policy = profile.longRunning
        let location = services.apps[i].location
        guard location.metersSinceFix >= policy.significantChangeDistance, !location.significantDeferred else { return }
        if let last = location.lastSignificantFix, now - last < policy.significantChangeMinimumInterval {
            let due = last + policy.significantChangeMinimumInterval
            services.apps[i].location.significantDeferred = true
            services.apps[i].location.significantGeneration &+= 1
            queue.push(.significantChangeDue(app, generation: services.apps[i].location.significantGeneration), at: due)
            record(app, .locationDefer(service: .significant, reason: text(
                "significant-change fixes come at most once per \(Time.describe(policy.significantChangeMinimumInterval)); "
                + "this one is due at t=\(Time.format(due))s")))
            return
        }
        services.apps[i].location.metersSinceFix = 0
        services.apps[i].location.lastSignificantFix = now
        if let refusal = serviceWakeRefusal(app, cause: .location) {
            record(app, .locationDrop(service: .significant, reason: text(refusal)))
            return
        }
        record(app, .locationDeliver(service: .significant, region: nil, entered: false))
        wakeForServiceEvent(app, cause: .location, callback: .didUpdateLocations(.significant),
                            runTime: policy.locationEventRunTime)
    }

    mutating func significantChangeDue(_ app: AppID, generation: UInt32) {
        let i = Int(app.index)
        guard services.apps[i].location.significant, services.apps[i].location.significantGeneration == generation,
              services.apps[i].location.significantDeferred else { return }
        services.apps[i].location.significantDeferred = false
        considerSignificantChange(app)
    }

    mutating func regionEvent(_ app: AppID, _ region: TextID, entered: Bool) {
        if let refusal = serviceWakeRefusal(app, cause: .region) {
            record(app, .locationDrop(service: .region, reason: text(refusal)))
            return
        }
        record(app, .locationDeliver(service: .region, region: region, entered: entered))
        wakeForServiceEvent(app, cause: .region, callback: entered ? .didEnterRegion(region) : .didExitRegion(region),
                            runTime: profile.longRunning.locationEventRunTime)
    }
}
