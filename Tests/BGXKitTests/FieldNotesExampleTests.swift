import BGXCore
import BGXKit
import BGXSimulation
import FieldNotesExample
import Foundation
import Testing

/// Examples/FieldNotes: a scene-based notes app (Swift 6 language mode) whose
/// notes are synced by a BGAppRefreshTask that tells the person in a notification.
@Suite("Examples — FieldNotes, a scene-based app, for a simulated week")
struct FieldNotesExampleTests {
    final class Launches { var stores: [NoteStore] = [] }

    /// The person opens the app at 08:00 and 18:00 for five minutes every day of a week;
    /// `allowsNotifications` is their answer when the app asks.
    static func aWeek(allowsNotifications: Bool) -> (SimulatedDevice, AppID, Launches) {
        let device = SimulatedDevice()
        let launches = Launches()
        let manifest = AppManifest(bundleIdentifier: "com.example.fieldnotes", backgroundModes: [.fetch],
                                   permittedTaskIdentifiers: [FieldNotesAppDelegate.syncIdentifier])
        let app = device.install(manifest, delegate: {
            let delegate = FieldNotesAppDelegate()
            launches.stores.append(delegate.store)
            return delegate
        }, sceneDelegate: { FieldNotesSceneDelegate() })
        device.setNotificationsAllowed(allowsNotifications, for: app)
        for day in 0..<7 {
            for hour in [8.0, 18.0] {
                device.run(until: Time.seconds(Double(day) * 86_400 + hour * 3_600))
                device.perform(.launch(app))
                device.advance(seconds: 300)
                device.perform(.home)
            }
        }
        device.run(until: Time.seconds(7 * 86_400))
        return (device, app, launches)
    }

    @Test("A scene-based app: the scene delegate hears of the foreground and the background, never the app delegate; each sync runs in the background and completes; every note reaches the server and the person hears of it")
    func aSimulatedWeek() throws {
        let (device, app, launches) = Self.aWeek(allowsNotifications: true)
        let log = launches.stores.flatMap(\.log)
        #expect(!log.contains("app delegate: didEnterBackground"))
        // The first launch, in UIKit's order for scenes.
        #expect(Array(log.filter { $0 != "notifications allowed" }.prefix(8)) == [
            "didFinishLaunching", "configurationForConnecting", "willConnect", "willEnterForeground", "didBecomeActive",
            "willResignActive", "didEnterBackground", "draft saved",
        ])
        #expect(log.contains("notifications allowed"))
        let events = device.events(of: app)
        let starts = events.filter { $0.kindName == "task.start" }
        let completions = events.filter { $0.kindName == "task.complete" }
        #expect(starts.count >= 7, "\(starts.count) syncs")
        #expect(completions.count == starts.count)
        #expect(completions.allSatisfy { device.renderer.jsonLine($0).contains("\"success\": true") })
        #expect(!events.contains { $0.kindName == "terminate" }, "\(device.traceLines.filter { $0.contains("terminate") })")
        // 14 notes written; the last syncs after the week's last visit put them all on the server.
        let store = try #require(launches.stores.last)
        #expect(store.count == 14 || launches.stores.count > 1)
        let synced = device.traceLines.filter { $0.contains("\"notification.deliver\"") && $0.contains("synced\"") }
        #expect(synced.count == completions.count - log.filter { $0.hasPrefix("sync 0") }.count,
                "one alert per sync that uploaded notes")
        #expect(!device.traceLines.contains { $0.contains("\"notification.drop\"") })
    }

    @Test("rules §9: a person who did not allow notifications never sees the sync's alerts: each is dropped with its reason, and the syncs still run")
    func notificationsDenied() {
        let (device, app, launches) = Self.aWeek(allowsNotifications: false)
        #expect(launches.stores.flatMap(\.log).contains("notifications not allowed"))
        let drops = device.traceLines.filter { $0.contains("\"notification.drop\"") }
        #expect(!drops.isEmpty && drops.allSatisfy { $0.contains("authorization denied") }, "\(drops.prefix(2))")
        #expect(!device.traceLines.contains { $0.contains("\"notification.deliver\"") })
        let completions = device.events(of: app).filter { $0.kindName == "task.complete" }
        #expect(!completions.isEmpty && completions.allSatisfy { device.renderer.jsonLine($0).contains("\"success\": true") })
    }

    @Test("The week runs the same, byte for byte")
    func deterministic() {
        let first = Self.aWeek(allowsNotifications: true).0.traceLines
        #expect(Self.aWeek(allowsNotifications: true).0.traceLines == first)
    }
}
