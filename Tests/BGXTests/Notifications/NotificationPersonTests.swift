@testable import BGXCore
import Testing

/// rules §9's notification controller on its own, at the person's side: a
/// tap on a notification, their answer when the app asks, a new time zone —
/// no engine, effects out.
@Suite struct NotificationPersonTests {
    let app = AppID(index: 0)

    func controller() -> NotificationController {
        var c = NotificationController(settings: NotificationSettings(), startEpochSeconds: 0)
        c.appInstalled()
        return c
    }

    @Test("rules §9: a tap opens the app of the newest delivered notification; a tap on one never delivered opens nothing, with why")
    func tapOpensOnlyWhatIsInNotificationCenter() {
        var c = controller()
        let id = c.intern("ready")
        let clock = NotificationClock(now: 0, startEpochSeconds: 0, deviceZone: .utc)
        _ = c.schedule(app, id, trigger: .timeInterval(Time.minutes(1), repeats: false), content: .init(body: "B"),
                       clock: clock)
        let early = c.tap(id)
        #expect(early.app == nil)
        #expect(early.effects == [.notificationTap(nil, id, reason: "'ready' has not fired yet: it is not in Notification Center")])
        _ = c.fired(app, id, generation: 1, inFront: false, sounds: [],
                    clock: NotificationClock(now: Time.minutes(1), startEpochSeconds: 0, deviceZone: .utc))
        let tapped = c.tap(id)
        #expect(tapped.app == app)
        #expect(tapped.effects == [.notificationTap(app, id, reason: nil)])
        #expect(c.tap(id).app == nil)  // opened: no longer in Notification Center
    }

    @Test("rules §9: the first request asks the person and their answer stands; later requests are answered without asking")
    func firstRequestAsks() {
        var c = controller()
        let first = c.requestAuthorization(app, options: [.alert, .badge])
        #expect(first.granted)
        #expect(first.effects == [.log(app, "notifications: the person allowed alert, badge when the app asked")])
        let again = c.requestAuthorization(app, options: [.sound])
        #expect(again.granted && again.effects.isEmpty)
        #expect(c.apps[0].authorization.allowed == [.alert, .badge])
    }

    @Test("rules §9: the person's no, given before the app asks, is what the app hears; Settings turns it on later")
    func answerBeforeAskingThenSettings() {
        var c = controller()
        #expect(c.setAllowed(false, for: app)
                == [.log(app, "notifications: the person will not allow them when the app asks")])
        #expect(!c.requestAuthorization(app, options: [.alert]).granted)
        #expect(c.apps[0].authorization.status == .denied)
        _ = c.setAllowed(true, for: app)
        #expect(c.apps[0].authorization.status == .authorized)
        #expect(c.apps[0].authorization.allowed == [.alert, .sound, .badge])
    }

    @Test("rules §9: at the device's time-zone change the controller moves floating triggers itself (the change's hook)")
    func timeZoneHookMovesFloatingTriggers() {
        var c = controller()
        let id = c.intern("eight")
        let clock = NotificationClock(now: 0, startEpochSeconds: 0, deviceZone: .utc)
        _ = c.schedule(app, id, trigger: .calendar(DateMatch(hour: 8), timeZone: nil, repeats: false), content: .init(),
                       clock: clock)
        let plusTwo = TimeZoneRules(identifier: "Plus2", offsets: [.init(from: .min, seconds: 7200)])
        let context = ControllerContext(now: 0, wallClockOffset: 0, deviceMemory: 0, locationNeedsOptIn: false)
        var effects: [Effect] = []
        c.deviceChanged(.timeZone(plusTwo), context, &effects)
        #expect(effects == [.schedule(.notificationFire(app, id, generation: 2), at: Time.hours(6))])
        effects.removeAll()
        c.deviceChanged(.battery(50), context, &effects)
        #expect(effects.isEmpty)
    }
}
