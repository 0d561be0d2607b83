import BGXCore
import Foundation

/// `CLLocation`, reduced: where the device is along its route (bgx's device
/// moves in one dimension; see the scenario's `location: {moveMeters}`).
public struct Location: Sendable, Equatable {
    public var metersAlongRoute: Double
    public var timestamp: Date
}

/// `CLCircularRegion` around where the device is when monitoring starts.
public struct CircularRegion: Sendable, Hashable {
    public var identifier: String
    public var radius: Double
    public init(identifier: String, radius: Double = 100) {
        self.identifier = identifier
        self.radius = radius
    }
}

/// `CLLocationManagerDelegate`. Every method has a default that does nothing.
public protocol LocationManagerDelegate: AnyObject {
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location])
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion)
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion)
}

extension LocationManagerDelegate {
    public func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {}
    public func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) {}
    public func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) {}
}

/// `CLLocationManager` (rules §4). Significant-change and region monitoring
/// outlive the process: after a relaunch (launch options cause `location` or
/// `region`) the app creates a manager with a delegate to receive the event,
/// as on iOS.
public final class LocationManager {
    unowned let application: Application
    public weak var delegate: LocationManagerDelegate?
    public private(set) var isUpdatingLocation = false
    public private(set) var monitoredRegions: Set<CircularRegion> = []

    public init(application: Application = .shared) {
        self.application = application
        application.locationManagers.append(self)
    }

    var connection: SystemConnection { application.connection }

    /// Needs `location` in UIBackgroundModes (iOS raises an exception otherwise).
    public var allowsBackgroundLocationUpdates = false {
        didSet { connection.setAllowsBackgroundLocationUpdates(allowsBackgroundLocationUpdates) }
    }
    public func startUpdatingLocation() {
        isUpdatingLocation = true
        connection.startLocation(.standard)
    }
    public func stopUpdatingLocation() {
        isUpdatingLocation = false
        connection.stopLocation(.standard)
    }
    public func startMonitoringSignificantLocationChanges() { connection.startLocation(.significant) }
    public func stopMonitoringSignificantLocationChanges() { connection.stopLocation(.significant) }
    public func startMonitoring(for region: CircularRegion) {
        monitoredRegions.insert(region)
        connection.startMonitoringRegion(identifier: region.identifier, radius: region.radius)
    }
    public func stopMonitoring(for region: CircularRegion) {
        monitoredRegions.remove(region)
        connection.stopMonitoringRegion(identifier: region.identifier)
    }
    public var location: Location {
        Location(metersAlongRoute: connection.devicePosition, timestamp: connection.now)
    }
}
