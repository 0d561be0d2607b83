import BGXApp
import Foundation

// Core Location's background parts under iOS's names, over BGXApp's
// `LocationManager`. bgx's device moves along one route (metres from where it
// started): a `CLLocation`'s coordinate puts that route on the meridian 0°
// east, north from 0° 0° (about 111 km per degree of latitude).

public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double
public typealias CLLocationAccuracy = Double

public struct CLLocationCoordinate2D: Sendable, Equatable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees
    public init() { self.init(latitude: 0, longitude: 0) }
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

public let kCLLocationAccuracyBest: CLLocationAccuracy = -1
public let kCLLocationAccuracyNearestTenMeters: CLLocationAccuracy = 10
public let kCLLocationAccuracyHundredMeters: CLLocationAccuracy = 100
public let kCLLocationAccuracyKilometer: CLLocationAccuracy = 1_000
public let kCLDistanceFilterNone: CLLocationDistance = -1

public class CLLocation: NSObject {
    static let metresPerDegree = 111_195.0
    public let coordinate: CLLocationCoordinate2D
    public let timestamp: Date
    /// How far along bgx's route the device was.
    public let metersAlongRoute: Double

    init(_ location: Location) {
        metersAlongRoute = location.metersAlongRoute
        coordinate = CLLocationCoordinate2D(latitude: location.metersAlongRoute / Self.metresPerDegree, longitude: 0)
        timestamp = location.timestamp
    }

    /// Metres between two fixes on the route.
    public func distance(from location: CLLocation) -> CLLocationDistance {
        abs(metersAlongRoute - location.metersAlongRoute)
    }
}

public class CLRegion: NSObject {
    public let identifier: String
    public var notifyOnEntry = true
    public var notifyOnExit = true
    let regionRadius: CLLocationDistance
    init(identifier: String, radius: CLLocationDistance) {
        self.identifier = identifier
        self.regionRadius = radius
    }
    public override var hash: Int { identifier.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? CLRegion)?.identifier == identifier }
}

/// A geofence. bgx models the device's distance from the region along its
/// route, so only the radius and identifier matter; the centre is kept for
/// the app.
public class CLCircularRegion: CLRegion {
    public let center: CLLocationCoordinate2D
    public var radius: CLLocationDistance { regionRadius }
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        super.init(identifier: identifier, radius: radius)
    }
}

public enum CLAuthorizationStatus: Int32, Sendable {
    case notDetermined, restricted, denied, authorizedAlways, authorizedWhenInUse
}

/// Every method optional, as in Core Location.
public protocol CLLocationManagerDelegate: AnyObject {
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didFailWithError error: Error)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
}

extension CLLocationManagerDelegate {
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {}
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
}

/// `CLLocationManager`: made in app code, it belongs to the process whose
/// code made it. Authorization is always granted (bgx does not model the
/// prompt); accuracy, distance filter and automatic pausing are kept but do
/// not change what the device delivers.
public class CLLocationManager: NSObject {
    private let manager = LocationManager()
    private let bridge = CLLocationBridge()
    public weak var delegate: CLLocationManagerDelegate?
    public var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest
    public var distanceFilter: CLLocationDistance = kCLDistanceFilterNone
    public var pausesLocationUpdatesAutomatically = true
    public var showsBackgroundLocationIndicator = false
    public private(set) var monitoredRegions: Set<CLRegion> = []

    public override init() {
        super.init()
        bridge.owner = self
        manager.delegate = bridge
    }

    public var authorizationStatus: CLAuthorizationStatus { .authorizedAlways }
    public static func authorizationStatus() -> CLAuthorizationStatus { .authorizedAlways }
    public static func significantLocationChangeMonitoringAvailable() -> Bool { true }
    public static func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { true }
    public func requestAlwaysAuthorization() {}
    public func requestWhenInUseAuthorization() {}

    /// Needs `location` in UIBackgroundModes, as on iOS.
    public var allowsBackgroundLocationUpdates: Bool {
        get { manager.allowsBackgroundLocationUpdates }
        set { manager.allowsBackgroundLocationUpdates = newValue }
    }
    public func startUpdatingLocation() { manager.startUpdatingLocation() }
    public func stopUpdatingLocation() { manager.stopUpdatingLocation() }
    public func startMonitoringSignificantLocationChanges() { manager.startMonitoringSignificantLocationChanges() }
    public func stopMonitoringSignificantLocationChanges() { manager.stopMonitoringSignificantLocationChanges() }
    public func startMonitoring(for region: CLRegion) {
        monitoredRegions.insert(region)
        manager.startMonitoring(for: CircularRegion(identifier: region.identifier, radius: region.regionRadius))
    }
    public func stopMonitoring(for region: CLRegion) {
        monitoredRegions.remove(region)
        manager.stopMonitoring(for: CircularRegion(identifier: region.identifier, radius: region.regionRadius))
    }
    public var location: CLLocation? { CLLocation(manager.location) }

    func region(_ region: CircularRegion) -> CLRegion {
        monitoredRegions.first { $0.identifier == region.identifier }
            ?? CLCircularRegion(center: CLLocationCoordinate2D(), radius: region.radius, identifier: region.identifier)
    }
}

/// Hears BGXApp's manager and tells the app's delegate in Core Location's words.
private final class CLLocationBridge: LocationManagerDelegate {
    weak var owner: CLLocationManager?
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
        guard let owner else { return }
        owner.delegate?.locationManager(owner, didUpdateLocations: locations.map(CLLocation.init))
    }
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) {
        guard let owner else { return }
        owner.delegate?.locationManager(owner, didEnterRegion: owner.region(region))
    }
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) {
        guard let owner else { return }
        owner.delegate?.locationManager(owner, didExitRegion: owner.region(region))
    }
}
