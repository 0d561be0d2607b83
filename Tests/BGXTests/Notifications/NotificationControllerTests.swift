@testable import BGXCore
import Foundation
import Testing

/// rules §9's notification controller on its own: no engine, no device — the
/// moment and the clock in, effects out.
@Suite struct NotificationControllerTests {
    let app = AppID(index: 0)
    let settings = NotificationSettings(limit: 2)
    let clock = NotificationClock(now: 0, startEpochSeconds: 0, deviceZone: .utc)

    func controller(_ settings: NotificationSettings? = nil) -> NotificationController {
        var c = NotificationController(settings: settings ?? self.settings)
        c.appInstalled()
        return c
    }

    func at(_ t: Nanoseconds, zone: TimeZoneRules = .utc) -> NotificationClock {
        NotificationClock(now: t, startEpochSeconds: 0, deviceZone: zone)
    }

    func after(_ minutes: Int, repeats: Bool = false) -> NotificationTrigger {
        .timeInterval(Time.minutes(minutes), repeats: repeats)
    }

    @Test("rules §9: past an app's limit only the soonest-firing are kept; the later one is dropped with its reason")
    func limitKeepsTheSoonest() {
        var c = controller()
        let (a, b, late) = (c.intern("a"), c.intern("b"), c.intern("late"))
        _ = c.schedule(app, a, trigger: after(10), content: .init(), clock: clock)
        _ = c.schedule(app, late, trigger: after(30), content: .init(), clock: clock)
        let effects = c.schedule(app, b, trigger: after(20), content: .init(), clock: clock)
        #expect(effects.last == .notificationDrop(app, late, reason: "only the 2 soonest-firing notifications of an app are kept"))
        #expect(c.pendingSoonestFirst(app).map(\.id) == [a, b])
    }

    @Test("rules §9 ios6: a request past the limit is refused, and the ones held stay")
    func ios6RefusesPastTheLimit() {
        var refusing = settings
        refusing.overflow = .refuseNew
        var c = controller(refusing)
        let (a, b, late) = (c.intern("a"), c.intern("b"), c.intern("c"))
        _ = c.schedule(app, a, trigger: after(10), content: .init(), clock: clock)
        _ = c.schedule(app, b, trigger: after(30), content: .init(), clock: clock)
        let effects = c.schedule(app, late, trigger: after(20), content: .init(), clock: clock)
        #expect(effects.last == .notificationDrop(app, late, reason:
            "the app already has 2 scheduled notifications: the new one is refused"))
        #expect(c.pendingSoonestFirst(app).map(\.id) == [a, b])
    }

    @Test("rules §9: a replaced request's earlier fire event finds nothing and delivers nothing")
    func replacedRequestsEventIsStale() {
        var c = controller()
        let id = c.intern("a")
        let first = c.schedule(app, id, trigger: after(10), content: .init(body: "old"), clock: clock)
        #expect(first.contains(.schedule(.notificationFire(app, id, generation: 1), at: Time.minutes(10))))
        let second = c.schedule(app, id, trigger: after(20), content: .init(body: "new"), clock: clock)
        #expect(second.first == .trace(app, .notificationSchedule(id: id, fireIn: Time.minutes(20), replaced: true)))
        #expect(c.fired(app, id, generation: 1, inFront: false, sounds: [], clock: at(Time.minutes(10))).isEmpty)
        #expect(!c.fired(app, id, generation: 2, inFront: false, sounds: [], clock: at(Time.minutes(20))).isEmpty)
    }

    @Test("rules §9: fired while the app is active in front it goes to the app quietly, and not into Notification Center")
    func inFrontGoesToTheApp() {
        var c = controller()
        let id = c.intern("a")
        _ = c.schedule(app, id, trigger: after(1), content: .init(title: "T", body: "B", sound: .default, badge: 3),
                       clock: clock)
        let effects = c.fired(app, id, generation: 1, inFront: true, sounds: [], clock: at(Time.minutes(1)))
        #expect(effects == [.notificationDeliver(app, id, toApp: true, alert: "T: B", sound: nil, badge: nil, reason: nil),
                            .enqueue(app, .notification(id))])
        #expect(c.delivered.isEmpty && c.apps[0].badge == 0 && c.apps[0].pending.isEmpty)
    }

    @Test("rules §9: otherwise it reaches the user — alert into Notification Center, sound, badge — and a repeating one comes again")
    func toTheUserAndRepeats() {
        var c = controller()
        let id = c.intern("a")
        _ = c.schedule(app, id, trigger: after(5, repeats: true), content: .init(body: "B", sound: .default, badge: 3),
                       clock: clock)
        let effects = c.fired(app, id, generation: 1, inFront: false, sounds: [], clock: at(Time.minutes(5)))
        #expect(effects == [.notificationDeliver(app, id, toApp: false, alert: "B", sound: "default", badge: 3, reason: nil),
                            .schedule(.notificationFire(app, id, generation: 1), at: Time.minutes(10))])
        #expect(c.delivered.map(\.id) == [id] && c.apps[0].badge == 3)
        #expect(c.pendingSoonestFirst(app).map(\.fireAt) == [Time.minutes(10)])
        #expect(c.takeDelivered(id) == app)
        #expect(c.takeDelivered(id) == nil)
    }

    @Test("rules §9: a custom sound the system cannot play is replaced by the default, with the reason")
    func unplayableSoundFallsBack() {
        let sounds = [BundleSound(file: "song.mp3", format: .mp3)]
        let (played, reason) = NotificationController.alertSound(.named("song.mp3"), sounds: sounds, settings: settings)
        #expect(played == "default")
        #expect(reason?.contains("alert sounds must be Linear PCM") == true)
        let ok = NotificationController.alertSound(.named("ding.caf"), sounds: [BundleSound(file: "ding.caf", format: .linearPCM)],
                                                   settings: settings)
        #expect(ok.played == "ding.caf" && ok.reason == nil)
    }

    @Test("rules §9: a time-zone change moves floating calendar triggers onto the new clock; a fixed zone's keeps its moment")
    func floatingTriggersFollowTheDevicesClock() {
        var c = controller()
        let (floating, fixed) = (c.intern("floating"), c.intern("fixed"))
        let eight = DateMatch(hour: 8)
        _ = c.schedule(app, floating, trigger: .calendar(eight, timeZone: nil, repeats: false), content: .init(),
                       clock: clock)
        _ = c.schedule(app, fixed, trigger: .calendar(eight, timeZone: .utc, repeats: false), content: .init(),
                       clock: clock)
        let plusTwo = TimeZoneRules(identifier: "Plus2", offsets: [.init(from: .min, seconds: 7200)])
        let effects = c.timeZoneChanged(clock: at(0, zone: plusTwo))
        #expect(effects == [.schedule(.notificationFire(app, floating, generation: 3), at: Time.hours(6))])
        #expect(c.pendingSoonestFirst(app).map(\.fireAt) == [Time.hours(6), Time.hours(8)])
    }
}

extension NotificationControllerTests {
    @Test("the notification controller explains itself: what is scheduled, the limit, Notification Center, the badge")
    func dumpsItsState() throws {
        var c = controller()
        let id = c.intern("standup")
        #expect(c.dump(app).isEmpty)
        _ = c.schedule(app, id, trigger: after(15, repeats: true), content: .init(badge: 1), clock: clock)
        let dump = c.dump(app)
        #expect(dump.scheduled == [.init(id: "standup", fireAt: Time.minutes(15), repeats: true)])
        #expect(dump.lines { "\($0 / Time.minutes(1))m" } == [
            "1 of 2 scheduled notifications (past the limit only the soonest-firing are kept)",
            "next: 'standup' at 15m, repeating",
        ])
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"id\":\"standup\""))
    }
}
