import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A reminders app: schedules its reminders at launch (each `(id, seconds
/// from now, repeats)`) and notes what the system tells it.
final class RemindersApp: ApplicationDelegate {
    let reminders: [(id: String, after: Double, repeats: Bool)]
    let journal: Journal

    init(_ reminders: [(id: String, after: Double, repeats: Bool)], journal: Journal = Journal()) {
        self.reminders = reminders
        self.journal = journal
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let center = UserNotificationCenter.current()
        for reminder in reminders {
            do {
                try center.add(NotificationRequest(identifier: reminder.id, body: "Don't forget \(reminder.id)",
                                                   trigger: .timeInterval(reminder.after, repeats: reminder.repeats)))
            } catch {
                journal.write("\(reminder.id) refused: \(error)")
            }
        }
        journal.write("pending \(center.pendingNotificationRequestIdentifiers().count)")
        return true
    }

    func application(_ application: Application, didReceiveLocalNotification identifier: String) {
        journal.write("received \(identifier) while \(application.applicationState)")
    }
}

@Suite("SPEC §9 — local notifications")
struct NotificationTests {

    /// `count` reminders scheduled latest-first, one minute apart: r1 fires
    /// last, r`count` first.
    static func latestFirst(_ count: Int) -> [(id: String, after: Double, repeats: Bool)] {
        (1...count).map { ("r\($0)", Double(count + 1 - $0) * 60, false) }
    }

    @Test("SPEC §9: modern keeps the 64 soonest-firing notifications and drops the rest (notification.drop)")
    func modernKeeps64Soonest() {
        let device = SimulatedDevice(profile: .modern)
        let journal = Journal()
        let app = device.install(manifest("com.example.reminders")) {
            RemindersApp(NotificationTests.latestFirst(70), journal: journal)
        }
        device.perform(.launch(app))

        #expect(journal.entries == ["pending 64"])
        // The six scheduled first fire last: they are the ones dropped, even
        // though they were scheduled before the others.
        #expect(device.story(of: app, only: ["notification.drop"]) ==
                (1...6).map { "0 notification.drop r\($0)" })
        let kept = Set(device.engine.pendingNotifications(for: app).map(\.id))
        #expect(kept == Set((7...70).map { "r\($0)" }))
        #expect(device.traceLines.contains(
            #"{"t": 0, "app": "com.example.reminders", "kind": "notification.drop", "id": "r1", "reason": "only the 64 soonest-firing notifications of an app are kept"}"#))

        // The dropped ones never fire.
        device.perform(.home)
        device.advance(seconds: 80 * 60)
        let delivered = device.story(of: app, only: ["notification.deliver"])
        #expect(delivered.count == 64)
        #expect(!delivered.contains { $0.contains("r1 ") || $0.contains("r6 ") })
    }

    @Test("SPEC §9: ios6 keeps 128 notifications")
    func ios6Keeps128() {
        let device = SimulatedDevice(profile: .ios6)
        let journal = Journal()
        let app = device.install(manifest("com.example.reminders")) {
            RemindersApp(NotificationTests.latestFirst(130), journal: journal)
        }
        device.perform(.launch(app))

        #expect(journal.entries == ["pending 128"])
        #expect(device.story(of: app, only: ["notification.drop"]) == ["0 notification.drop r1", "0 notification.drop r2"])
    }

    @Test("SPEC §9: a notification firing while its app is active in front is delivered to the app")
    func deliveredToActiveApp() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp([("tea", 180, false)], journal: journal)
        }
        device.perform(.launch(app))
        device.advance(seconds: 200)

        #expect(device.story(of: app).suffix(2) == [
            "180 notification.deliver tea to app",
            "180 callback localNotification tea",
        ])
        #expect(journal.entries == ["pending 1", "received tea while active"])
        #expect(device.engine.pendingNotifications(for: app).isEmpty)
    }

    @Test("SPEC §9: otherwise — app in the background, suspended, not running, or another app in front, device locked — it goes to the user")
    func deliveredToUserOtherwise() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp([("suspended", 100, false), ("other app in front", 300, false),
                          ("locked", 500, false), ("not running", 700, false)], journal: journal)
        }
        let other = device.install(manifest("com.example.other")) { PlainApp() }
        device.perform(.launch(app))
        device.perform(.home)                 // suspended at 100
        device.advance(seconds: 200)
        device.perform(.launch(app))
        device.perform(.launch(other))        // other app in front at 300
        device.advance(seconds: 200)
        device.perform(.launch(app))
        device.perform(.lock)                 // locked at 500
        device.advance(seconds: 200)
        device.perform(.forceQuit(app))       // not running at 700
        device.advance(seconds: 200)

        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "100 notification.deliver suspended to user",
            "300 notification.deliver other app in front to user",
            "500 notification.deliver locked to user",
            "700 notification.deliver not running to user",
        ])
        #expect(!device.story(of: app, only: ["callback"]).contains { $0.contains("localNotification") })
        #expect(!journal.entries.contains { $0.hasPrefix("received") })
        _ = other
    }

    @Test("SPEC §9: a repeat interval under 60 s is refused with an error; 60 s repeats every 60 s")
    func repeatIntervalMinimum() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.nag")) {
            RemindersApp([("every 59 s", 59, true), ("every minute", 60, true)], journal: journal)
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 200)

        #expect(journal.entries == ["every 59 s refused: time interval must be at least 1m if repeating", "pending 1"])
        #expect(device.story(of: app, only: ["notification.schedule", "notification.deliver"]) == [
            "0 notification.schedule every minute",
            "60 notification.deliver every minute to user",
            "120 notification.deliver every minute to user",
            "180 notification.deliver every minute to user",
        ])
    }

    @Test("SPEC §9: the engine throws repeatIntervalTooShort for a repeat under the profile's 60 s minimum (Engine)")
    func engineRefusesShortRepeat() throws {
        var engine = Engine()
        let app = engine.install(manifest("com.example.nag"))
        #expect(throws: NotificationError.repeatIntervalTooShort(minimum: Time.seconds(60))) {
            try engine.scheduleNotification(for: app, id: "n", fireIn: Time.seconds(59),
                                            repeatInterval: Time.seconds(59), body: "")
        }
        #expect(engine.pendingNotifications(for: app).isEmpty)
        try engine.scheduleNotification(for: app, id: "n", fireIn: Time.seconds(60),
                                        repeatInterval: Time.seconds(60), body: "")
        #expect(engine.pendingNotifications(for: app).map(\.id) == ["n"])
    }
}
