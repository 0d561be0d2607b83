import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Asks for authorization when it launches, then posts a reminder a minute later.
final class AskingReminderDelegate: UIResponder, UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static var options: UNAuthorizationOptions = [.alert, .sound, .badge]

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let center = UNUserNotificationCenter.current()
        center.getNotificationSettings { settings in
            Self.journal.write("before: \(settings.authorizationStatus)")
        }
        center.requestAuthorization(options: Self.options) { granted, error in
            Self.journal.write("granted=\(granted) error=\(error == nil ? "nil" : "set")")
        }
        Self.journal.write("asked")
        center.getNotificationSettings { settings in
            Self.journal.write("after: \(settings.authorizationStatus) alert=\(settings.alertSetting) "
                               + "sound=\(settings.soundSetting) badge=\(settings.badgeSetting)")
        }
        let content = UNMutableNotificationContent()
        content.title = "Water"
        content.body = "Time to drink"
        content.sound = .default
        content.badge = 3
        center.add(UNNotificationRequest(identifier: "water", content: content,
                                         trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
        return true
    }
}

/// Sets its badge and asks with the async forms once in front.
final class BadgeSetter: UIResponder, UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidBecomeActive(_ application: UIApplication) {
        let center = UNUserNotificationCenter.current()
        center.setBadgeCount(7)
        Task {
            let granted = try await center.requestAuthorization(options: [.badge])
            let settings = await center.notificationSettings()
            Self.journal.write("granted=\(granted) \(settings.authorizationStatus) badge=\(settings.badgeSetting)")
        }
    }
}

@Suite("BGXKit — notification authorization", .serialized)
struct NotificationAuthorizationTests {
    static func run(allowed: Bool?, options: UNAuthorizationOptions = [.alert, .sound, .badge])
        -> (SimulatedDevice, AppID) {
        AskingReminderDelegate.journal.entries = []
        AskingReminderDelegate.options = options
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.water")) { AskingReminderDelegate() }
        if let allowed { device.setNotificationsAllowed(allowed, for: app) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 120)
        return (device, app)
    }

    static func deliveries(_ device: SimulatedDevice) -> [String] {
        device.traceLines.filter { $0.contains("\"notification.deliver\"") || $0.contains("\"notification.drop\"") }
    }

    @Test("rules §9: a person who allows notifications gets the alert, its sound and its badge; the settings say authorized")
    func allowed() {
        let (device, app) = Self.run(allowed: nil)
        let journal = AskingReminderDelegate.journal.entries
        #expect(journal.contains("before: notDetermined"))
        #expect(journal.contains("granted=true error=nil"))
        // As on iOS, the handler is called later, on a background thread, not within the call.
        #expect(journal.firstIndex(of: "asked")! < journal.firstIndex(of: "granted=true error=nil")!)
        #expect(journal.contains("after: authorized alert=enabled sound=enabled badge=enabled"))
        let delivered = Self.deliveries(device)
        #expect(delivered.count == 1 && delivered[0].contains("\"notification.deliver\"")
                && delivered[0].contains("Water: Time to drink"), "\(delivered)")
        #expect(device.engine.badge(of: app) == 3)
        #expect(device.traceLines.contains { $0.contains("the person allowed alert, sound, badge when the app asked") })
    }

    @Test("rules §9: a person who denies authorization never sees the app's alerts — each is dropped, and the trace says why")
    func denied() {
        let (device, app) = Self.run(allowed: false)
        #expect(AskingReminderDelegate.journal.entries.contains("granted=false error=nil"))
        #expect(AskingReminderDelegate.journal.entries.contains("after: denied alert=disabled sound=disabled badge=disabled"))
        let delivered = Self.deliveries(device)
        #expect(delivered.count == 1 && delivered[0].contains("\"notification.drop\"")
                && delivered[0].contains("authorization denied"), "\(delivered)")
        #expect(device.engine.badge(of: app) == 0, "no badge either")
    }

    @Test("rules §9: an app authorized only for badges sets its badge, and the alert and sound are left out with the reason")
    func onlyWhatWasAsked() {
        let (device, app) = Self.run(allowed: true, options: [.badge])
        #expect(AskingReminderDelegate.journal.entries.contains("after: authorized alert=disabled sound=disabled badge=enabled"))
        let delivered = Self.deliveries(device)
        #expect(delivered.count == 1 && delivered[0].contains("\"notification.deliver\"")
                && delivered[0].contains("not authorized for alert, sound") && !delivered[0].contains("Time to drink"),
                "\(delivered)")
        #expect(device.engine.badge(of: app) == 3)
    }

    @Test("rules §9: turning the app's notifications off in Settings later drops what fires after")
    func turnedOffInSettings() {
        AskingReminderDelegate.journal.entries = []
        AskingReminderDelegate.options = [.alert]
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.water")) { AskingReminderDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.setNotificationsAllowed(false, for: app)
        device.advance(seconds: 120)
        let delivered = Self.deliveries(device)
        #expect(delivered.count == 1 && delivered[0].contains("authorization denied"), "\(delivered)")
        #expect(device.traceLines.contains { $0.contains("turned this app's notifications off in Settings") })
    }

    @Test("setBadgeCount sets the number on the icon; async requestAuthorization and notificationSettings answer too")
    func badgeAndAsync() {
        BadgeSetter.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.badge")) { BadgeSetter() }
        device.setNotificationsAllowed(false, for: app)
        device.perform(.launch(app))
        device.advance(seconds: 1)
        #expect(device.engine.badge(of: app) == 7)
        #expect(BadgeSetter.journal.entries == ["granted=false denied badge=disabled"])
    }

    @Test("The same run gives the same trace, byte for byte")
    func deterministic() {
        let first = Self.run(allowed: false).0.traceLines
        #expect(Self.run(allowed: false).0.traceLines == first)
    }
}
