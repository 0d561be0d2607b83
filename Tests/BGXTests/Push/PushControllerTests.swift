@testable import BGXCore
import Testing
import Foundation

/// rules §7's push controller on its own: no engine, no device — what it is
/// told in, effects out.
@Suite struct PushControllerTests {
    let app = AppID(index: 0)
    let push = Push(type: .background, priority: 5)

    func controller() -> PushController {
        var c = PushController()
        c.appInstalled()
        return c
    }

    @Test("rules §7: only the newest held push is kept; the older one is dropped with its reason")
    func onlyTheNewestIsHeld() {
        var c = controller()
        #expect(c.hold(app, push, "Low Power Mode", retryAt: nil, now: 0)
                == [.pushDrop(app, push, reason: "held: Low Power Mode", held: true)])
        let newer = Push(type: .background, priority: 10)
        #expect(c.hold(app, newer, "Low Power Mode", retryAt: Time.hours(1), now: 5) == [
            .pushDrop(app, push, reason: "replaced by a newer push while held: only the newest is kept", held: false),
            .pushDrop(app, newer, reason: "held: Low Power Mode", held: true),
            .schedule(.pushRetry(app, generation: 1), at: Time.hours(1)),
        ])
        #expect(c.heldApps == [0])
        #expect(c.takeHeld(app) == newer)
        #expect(c.takeHeld(app) == nil)
        #expect(c.heldApps.isEmpty)
    }

    @Test("rules §7: past the hourly throttle a push is held until the oldest delivery is an hour old; then the daily budget")
    func throttleThenBudget() {
        var c = controller()
        var settings = PushSettings()
        settings.silentPushesPerHour = 2
        settings.silentPushDailyBudget = 3
        let text: (Nanoseconds) -> String = { "\($0 / Time.hours(1))h" }
        _ = c.deliverInBackground(app, push, now: 0)
        #expect(c.ownHold(app, now: Time.minutes(5), settings: settings, clockText: text) == nil)
        _ = c.deliverInBackground(app, push, now: Time.minutes(10))
        let throttled = c.ownHold(app, now: Time.minutes(20), settings: settings, clockText: text)
        #expect(throttled?.retryAt == Time.hours(1))
        _ = c.deliverInBackground(app, push, now: Time.hours(2))
        let spent = c.ownHold(app, now: Time.hours(3), settings: settings, clockText: text)
        #expect(spent?.reason == "the daily budget of 3 background pushes is spent; it resets at 24h")
        #expect(spent?.retryAt == Time.hours(24))
    }

    @Test("rules §7: a background delivery wakes the app and hands it a watched push, which holds the app until completed")
    func watchedPushHoldsTheApp() {
        var c = controller()
        #expect(c.deliverInBackground(app, push, now: 0) == [
            .trace(app, .pushDeliver(type: .background, priority: 5, toApp: true)),
            .wakeIntoBackground(app, .silentPush),
            .handPushToApp(app, push, watched: true),
        ])
        let handed = c.handToApp(app, push, watched: true, epoch: 3, now: 0, completionTimeout: Time.seconds(30))
        #expect(handed == [
            .setAssertion(app, .pushCompletion, true),
            .schedule(.pushTimeout(app, Ticket(epoch: 3, number: 1)), at: Time.seconds(30)),
            .enqueue(app, .remoteNotification(1, .background)),
        ])
        #expect(c.completed(app, number: 1, result: .newData) == [
            .setAssertion(app, .pushCompletion, false),
            .trace(app, .pushComplete(result: .newData)),
            .suspendIfThreadFree(app),
        ])
        #expect(c.completed(app, number: 1, result: .newData)
                == [.log(app, "didReceiveRemoteNotification: the completion handler was called more than once")])
    }
}

extension PushControllerTests {
    @Test("the push controller explains itself: its state as data, the throttle and budget in words")
    func dumpsItsState() {
        var c = controller()
        var settings = PushSettings()
        settings.silentPushDailyBudget = 5
        _ = c.deliverInBackground(app, push, now: Time.minutes(30))
        _ = c.hold(app, push, "Low Power Mode", retryAt: nil, now: Time.minutes(40))
        let dump = c.dump(app, now: Time.minutes(45), settings: settings)
        #expect(dump.held == push && dump.heldSince == Time.minutes(40))
        #expect(dump.deliveredPastHour == 1 && dump.budgetSpent == 1 && dump.budgetResets == Time.minutes(30) + Time.days(1))
        #expect(dump.throttleText { "\($0 / Time.minutes(1))m" }
                == "throttle: 1 of 3 in the past hour; daily budget: 1 of 5 (resets at 1470m)")
    }
}

/// Every controller's dump is data (JSON for a live host's status) and words (for `explain`).
@Suite struct ControllerDumpTests {
    @Test("A held push appears in the push controller's dump, as JSON and as a line of text")
    func heldPushIsDumped() throws {
        var c = PushController()
        c.appInstalled()
        let app = AppID(index: 0)
        _ = c.hold(app, Push(type: .background, priority: 5), "Low Power Mode", retryAt: nil, now: Time.minutes(3))
        let dump = c.dump(app, now: Time.minutes(4), settings: PushSettings())
        let lines = dump.lines { "\($0 / Time.minutes(1))m" }
        #expect(lines.first == "held: a background push (priority 5) since 3m")
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"priority\":5"))
    }
}

extension PushControllerTests {
    @Test("rules §7: a held push's retry is due only for the retry last queued; then none is queued")
    func onlyTheLastRetryIsDue() {
        var c = controller()
        _ = c.hold(app, push, "throttled", retryAt: Time.minutes(10), now: 0)
        _ = c.scheduleRetry(app, at: Time.minutes(20))
        let replaced = c.retryDue(app, generation: 1), last = c.retryDue(app, generation: 2)
        #expect(!replaced && last)
        #expect(c.apps[0].retryAt == nil)
        // With none queued, a retry for the same moment is queued again.
        let again = c.scheduleRetry(app, at: Time.minutes(20))
        #expect(again == [.schedule(.pushRetry(app, generation: 3), at: Time.minutes(20))])
    }
}
