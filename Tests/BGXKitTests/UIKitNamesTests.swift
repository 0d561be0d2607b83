import BGXCore
@testable import BGXKit
import BGXSimulation
import Foundation
import Testing

/// An app delegate written as iOS code is written, against UIKit's names.
final class RefreshingAppDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static let refreshIdentifier = "com.example.feed.refresh"
    var saveTask: UIBackgroundTaskIdentifier = .invalid
    var observer: NSObjectProtocol?

    func application(_ application: UIApplication,
                     willFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        Self.journal.write("willFinishLaunching")
        return true
    }

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let push = (launchOptions?[.remoteNotification] as? [AnyHashable: Any])?["aps"] as? [String: Any]
        Self.journal.write("didFinishLaunching options=\(launchOptions.map { "\($0.count)" } ?? "nil")"
                           + (push.map { " push content-available=\($0["content-available"] ?? "")" } ?? ""))
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refreshIdentifier, using: nil) { task in
            self.handleAppRefresh(task as! BGAppRefreshTask)
        }
        observer = NotificationCenter.default.addObserver(
            forName: UIApplication.didEnterBackgroundNotification, object: application, queue: nil) { _ in
            Self.journal.write("observer: didEnterBackground, state \(UIApplication.shared.applicationState)")
        }
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        Self.journal.write("applicationDidEnterBackground")
        saveTask = application.beginBackgroundTask(withName: "save") {
            application.endBackgroundTask(self.saveTask)
            self.saveTask = .invalid
        }
        scheduleAppRefresh()
        application.endBackgroundTask(saveTask)
        saveTask = .invalid
    }

    func scheduleAppRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: Self.refreshIdentifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch {
            Self.journal.write("could not schedule: \(error)")
        }
    }

    func handleAppRefresh(_ task: BGAppRefreshTask) {
        Self.journal.write("refresh at \(Date().timeIntervalSince1970)")
        scheduleAppRefresh()
        task.expirationHandler = { task.setTaskCompleted(success: false) }
        task.setTaskCompleted(success: true)
    }

    deinit { observer.map(NotificationCenter.default.removeObserver) }
}

@Suite("BGXKit — iOS code with only its imports changed", .serialized)
struct UIKitNamesTests {
    let start = Date(timeIntervalSince1970: 1_767_571_200)

    func refreshManifest() -> AppManifest {
        AppManifest(bundleIdentifier: "com.example.feed", backgroundModes: [.fetch],
                    permittedTaskIdentifiers: [RefreshingAppDelegate.refreshIdentifier])
    }

    @Test("UIKit's order: willFinishLaunching, didFinishLaunching (options nil for a tap), then the delegate's didEnterBackground before the notification's observers")
    func lifecycleOrderAndNotifications() {
        RefreshingAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(refreshManifest()) { RefreshingAppDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        #expect(RefreshingAppDelegate.journal.entries == [
            "willFinishLaunching",
            "didFinishLaunching options=nil",
            "applicationDidEnterBackground",
            "observer: didEnterBackground, state background",
        ])
        #expect(device.story(of: app, only: ["bgtask.begin", "bgtask.end"]) == ["0 bgtask.begin", "0 bgtask.end"])
    }

    @Test("rules §5: earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60) is 15 device minutes away, so the refresh runs within the simulated day, never before")
    func refreshScheduledFromDateRuns() throws {
        RefreshingAppDelegate.journal.entries = []
        let device = SimulatedDevice(startDate: start)
        let app = device.install(refreshManifest()) { RefreshingAppDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        let pending = try #require(device.engine.pendingTaskRequests(for: app).first)
        #expect(pending.earliestBegin == Time.seconds(15 * 60))
        device.advance(seconds: 86_400)

        let refreshes = RefreshingAppDelegate.journal.entries.filter { $0.hasPrefix("refresh at ") }
        #expect(!refreshes.isEmpty, "\(RefreshingAppDelegate.journal.entries)")
        for entry in refreshes {
            let at = Double(entry.dropFirst("refresh at ".count))!
            #expect(at >= start.timeIntervalSince1970 + 15 * 60)
            #expect(at <= start.timeIntervalSince1970 + 86_400)
        }
    }

    @Test("rules §7: a background push that launches the app is in the launch options under .remoteNotification")
    func pushLaunchOptions() {
        RefreshingAppDelegate.journal.entries = []
        // Apple's documented push rules alone, where a restart re-enables launches
        // (the modern profile adds dasd's, which hold pushes back after a reboot).
        var profile = PolicyProfile.modern
        profile.push.judgedByDasd = false
        profile.push.pushDisallowedAfterReboot = false
        let device = SimulatedDevice(profile: profile)
        var manifest = refreshManifest()
        manifest.backgroundModes.insert(.remoteNotification)
        let app = device.install(manifest) { RefreshingAppDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.change(.reboot)
        device.perform(.unlock)
        device.push(Push(type: .background, priority: 5), to: app)
        #expect(RefreshingAppDelegate.journal.entries.contains(
            "didFinishLaunching options=1 push content-available=1"), "\(RefreshingAppDelegate.journal.entries)")
    }

    @Test("UIApplication.LaunchOptionsKey: each launch cause maps to UIKit's key, or to no options")
    func launchOptionKeys() {
        #expect(UIApplication.launchOptions(for: .user, notification: nil) == nil)
        #expect(UIApplication.launchOptions(for: .bgTask, notification: nil) == nil)
        #expect(UIApplication.launchOptions(for: .location, notification: nil)?[.location] as? Bool == true)
        #expect(UIApplication.launchOptions(for: .region, notification: nil)?[.location] as? Bool == true)
        #expect(UIApplication.launchOptions(for: .bluetooth, notification: nil)?[.bluetoothCentrals] is [String])
        #expect(UIApplication.launchOptions(for: .notification, notification: "n1")?[.localNotification] as? String == "n1")
        #expect(UIApplication.LaunchOptionsKey.remoteNotification.rawValue == "UIApplicationLaunchOptionsRemoteNotificationKey")
        #expect(UIApplication.LaunchOptionsKey.url != .shortcutItem)
    }

    @Test("UIApplication.backgroundRefreshStatus follows Settings' Background App Refresh switch")
    func backgroundRefreshStatus() {
        final class StatusApp: UIApplicationDelegate {
            static var seen: [UIBackgroundRefreshStatus] = []
            func applicationDidBecomeActive(_ application: UIApplication) {
                StatusApp.seen.append(application.backgroundRefreshStatus)
            }
        }
        StatusApp.seen = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.status")) { StatusApp() }
        device.perform(.launch(app))
        device.perform(.home)
        device.change(.backgroundAppRefresh(false))
        device.perform(.launch(app))
        #expect(StatusApp.seen == [.available, .denied])
    }
}
