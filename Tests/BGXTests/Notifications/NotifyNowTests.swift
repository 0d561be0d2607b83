import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A messenger whose send runs in a background task; when the time runs out
/// its expiration handler posts "message not sent" with no trigger — WWDC19
/// 707's own example [S] — or, on iOS 6, `presentLocalNotificationNow:`.
final class Messenger: ApplicationDelegate {
    let legacy: Bool
    var send = BackgroundTaskIdentifier.invalid
    init(legacy: Bool = false) { self.legacy = legacy }

    func applicationDidEnterBackground(_ application: Application) {
        send = application.beginBackgroundTask(withName: "send") { [self] in
            if legacy {
                let note = UILocalNotification()
                note.alertBody = "Message not sent"
                note.soundName = UILocalNotificationDefaultSoundName
                application.presentLocalNotificationNow(note)
            } else {
                let content = UNMutableNotificationContent()
                content.body = "Message not sent"
                UNUserNotificationCenter.current().add(UNNotificationRequest(identifier: "not-sent", content: content, trigger: nil))
            }
            application.endBackgroundTask(send)
        }
        Runtime.asyncAfter(seconds: 600) { application.endBackgroundTask(self.send) }   // the congested network
    }
}

/// rules §9: a notification with no trigger is delivered at once. Apple: "trigger —
/// The condition that causes the system to deliver the notification. Specify nil
/// to deliver the notification right away."
/// https://developer.apple.com/documentation/usernotifications/unnotificationrequest/init(identifier:content:trigger:)
@Suite("rules §9 — notifications with no trigger")
struct NotifyNowTests {

    @Test("rules §9 [D]: a request with trigger nil, added as a background task expires, reaches the user at once, with the reason")
    func noTriggerDeliveredAtOnce() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.messages")) { Messenger() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(device.details(of: app, only: ["bgtask.expire", "notification.schedule", "notification.deliver"]) == [
            "25 bgtask.expire id=1 name=send",
            "25 notification.schedule id=not-sent fireIn=0",
            "25 notification.deliver id=not-sent to=user alert=Message not sent "
                + "reason=no trigger: delivered at once, to the user (the app is not active in front)",
        ])
        #expect(device.engine.deliveredNotifications(for: app).map(\.id) == ["not-sent"])
        #expect(device.engine.pendingNotifications(for: app).isEmpty)
    }

    @Test("rules §9 [D]: with the app active in front, a request with no trigger goes to the app at once (willPresent)")
    func noTriggerToTheActiveApp() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp([UNNotificationRequest(identifier: "now", content: { let c = UNMutableNotificationContent(); c.body = "Hi"; return c }(),
                                                trigger: nil)], journal: journal)
        }
        device.perform(.launch(app))
        #expect(device.details(of: app, only: ["notification.deliver"]) == [
            "0 notification.deliver id=now to=app alert=Hi reason=no trigger: delivered at once, to the app (it is active in front)",
        ])
        #expect(journal.entries == ["pending 1", "willPresent now Hi"])
    }

    @Test("rules §9 [S]: iOS 6's presentLocalNotificationNow: delivers at once, even with 128 scheduled (the cap is on scheduled ones)")
    func presentLocalNotificationNowOnIOS6() {
        let device = SimulatedDevice(profile: .ios6)
        let full = device.install(manifest("com.example.full")) { RemindersApp(latestFirst: 128, journal: Journal()) }
        device.perform(.launch(full))
        device.perform(.home)
        let app = device.install(manifest("com.example.messages")) { Messenger(legacy: true) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 700)
        // ios6: a 600 s budget, the expiration handler 5 s before its end.
        #expect(device.details(of: app, only: ["notification.deliver"]) == [
            "595 notification.deliver id=UILocalNotification-1 to=user alert=Message not sent sound=default "
                + "reason=no trigger: delivered at once, to the user (the app is not active in front)",
        ])
        // The same at once with an app already holding iOS 6's 128 (rules §9 [S]): not refused.
        let busy = device.install(manifest("com.example.busy")) { BusyPoster() }
        device.perform(.launch(busy))
        #expect(device.details(of: busy, only: ["notification.drop"]) == [])
        #expect(device.story(of: busy, only: ["notification.deliver"]) == ["700 notification.deliver UILocalNotification-1 to app"])
    }

    @Test("rules §9: in a scenario, notify without after/at has no trigger; repeat or timeZone with it, and after: 0s, are errors that say how to post at once")
    func scenarioNotifyNow() throws {
        let errors = NotificationScenarioErrorTests()
        #expect(errors.error(errors.notify("body: hello")) == nil)
        #expect(errors.error(errors.notify("body: hello, repeat: true"))?.message
                == "repeat: a notification with no trigger is delivered once, at once")
        #expect(errors.error(errors.notify("timeZone: UTC"))?.message.hasPrefix("timeZone belongs to 'at:' clock times") == true)
        #expect(errors.error(errors.notify("after: 0s"))?.message.hasSuffix("to post at once, leave out 'after' and 'at' (a request with no trigger)") == true)
        let scenario = try ScenarioParser(file: "now.yaml").parse(errors.notify("body: hello"))
        guard case let .notify(n)? = scenario.apps.first?.handlers[.didFinishLaunching]?.first?.action else {
            Issue.record("no notify action"); return
        }
        #expect(n.when == .now)
    }
}

/// An iOS 6 app that already has the 128 scheduled notifications it may keep,
/// then presents one now.
final class BusyPoster: ApplicationDelegate {
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let center = UNUserNotificationCenter.current()
        for i in 1...128 { center.add(reminder("r\(i)", after: Double(3600 + i))) }
        let note = UILocalNotification()
        note.alertBody = "now"
        application.presentLocalNotificationNow(note)
        return true
    }
}
