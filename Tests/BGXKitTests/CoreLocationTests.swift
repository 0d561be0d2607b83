import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// A run tracker's background code as iOS writes it: Core Location with
/// background updates, and a spoken-audio session for its announcements.
final class RunTrackerDelegate: NSObject, UIApplicationDelegate, CLLocationManagerDelegate {
    nonisolated static let journal = Journal()
    let manager = CLLocationManager()
    var start: CLLocation?

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        manager.delegate = self
        manager.requestAlwaysAuthorization()
        manager.desiredAccuracy = kCLLocationAccuracyBest
        manager.allowsBackgroundLocationUpdates = true
        manager.startUpdatingLocation()
        manager.startMonitoring(for: CLCircularRegion(center: CLLocationCoordinate2D(latitude: 0, longitude: 0),
                                                      radius: 100, identifier: "home"))
        let session = AVAudioSession.sharedInstance()
        try? session.setCategory(.playback, mode: .spokenAudio, options: [.mixWithOthers])
        try? session.setActive(true, options: [])
        start = manager.location
        return true
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        for location in locations {
            let metres = Int(location.distance(from: start!))
            let minutes = Int(location.timestamp.timeIntervalSince(start!.timestamp) / 60)
            Self.journal.write("fix \(metres) m after \(minutes) min, \(UIApplication.shared.applicationState)")
        }
    }

    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        Self.journal.write("left \(region.identifier) (\((region as? CLCircularRegion)?.radius ?? 0) m)")
    }
}

@Suite("BGXKit — Core Location and AVAudioSession under iOS's names", .serialized)
struct CoreLocationTests {
    @Test("rules §4: CLLocationManager with allowsBackgroundLocationUpdates keeps a 'location' app running locked; each move is a CLLocation stamped with the device's time; leaving a CLCircularRegion is heard")
    func backgroundLocationUpdates() {
        RunTrackerDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.run", backgroundModes: [.location, .audio])) {
            RunTrackerDelegate()
        }
        device.perform(.launch(app))
        device.perform(.lock)
        device.advance(seconds: 600)
        device.schedule(.locationMove(meters: 250), at: device.now)
        device.advance(seconds: 600)
        device.schedule(.locationMove(meters: 250), at: device.now)
        device.advance(seconds: 1)
        #expect(device.state(of: app) == .background)
        let journal = RunTrackerDelegate.journal.entries
        #expect(journal.contains("fix 250 m after 10 min, background"), "\(journal)")
        #expect(journal.contains("fix 500 m after 20 min, background"), "\(journal)")
        #expect(journal.contains { $0.hasPrefix("left home") }, "\(journal)")
    }
}
