@testable import BGXCore
import Foundation
import Testing

/// rules §2's rules as the background-task controller keeps them, with no
/// engine and no device: assertions in, what holds the app out.
@Suite("The background-task controller")
struct BackgroundTaskControllerTests {
    let app = AppID(index: 0)
    /// A controller with one app installed.
    static func fresh() -> BackgroundTaskController {
        var c = BackgroundTaskController()
        c.appInstalled()
        return c
    }

    @Test("an open background task holds the app; ending the last one lets it go")
    func lastTaskEndedLetsGo() {
        var controller = Self.fresh()
        let first = controller.begin(app, name: "upload", text: TextID(index: 0), now: 0)
        let second = controller.begin(app, name: "save", text: TextID(index: 1), now: 5)
        #expect((first, second) == (1, 2))
        let endedFirst = controller.end(app, first)
        #expect(endedFirst && controller.holdsApp(app))
        let endedSecond = controller.end(app, second)
        #expect(endedSecond && !controller.holdsApp(app))
    }

    @Test("ending a task that is not open changes nothing (iOS logs it and carries on)")
    func endingAnUnknownTask() {
        var controller = Self.fresh()
        let id = controller.begin(app, name: "upload", text: TextID(index: 0), now: 0)
        let unknown = controller.end(app, id + 1)
        let known = controller.end(app, id)
        let again = controller.end(app, id)
        #expect(!unknown && known && !again)
        // An expiring activity is not ended by `endBackgroundTask`.
        let activity = controller.begin(app, name: "export", text: TextID(index: 1), now: 0, expiringActivity: true)
        let endedAsTask = controller.end(app, activity)
        let ended = controller.endActivity(app, activity)
        #expect(!endedAsTask && ended == TextID(index: 1))
    }

    @Test("each expiration handler is owed once per window, and again in the next window")
    func expirationOncePerWindow() {
        var controller = Self.fresh()
        _ = controller.begin(app, name: "upload", text: TextID(index: 0), now: 0)
        controller.openWindow(app, now: 0, budget: Time.seconds(30))
        var t = 0, again = 0
        let due = controller.expirationDue(app, from: &t)
        let dueAgain = controller.expirationDue(app, from: &again)
        #expect(due == ExpirationDue(id: 1, nameText: TextID(index: 0), isExpiringActivity: false) && dueAgain == nil)
        controller.closeWindow(app)
        controller.openWindow(app, now: Time.minutes(5), budget: Time.seconds(30))
        var next = 0
        let dueInNextWindow = controller.expirationDue(app, from: &next)
        #expect(dueInNextWindow?.id == 1)
    }

    @Test("at the warning, every open assertion is owed its handler in the order it began, tasks and expiring activities alike")
    func expirationInOrder() {
        var controller = Self.fresh()
        _ = controller.begin(app, name: "upload", text: TextID(index: 0), now: 0)
        _ = controller.begin(app, name: "export", text: TextID(index: 1), now: 1, expiringActivity: true)
        _ = controller.begin(app, name: "save", text: TextID(index: 2), now: 2)
        controller.openWindow(app, now: 3, budget: Time.seconds(30))
        var owed: [ExpirationDue] = [], t = 0
        while let due = controller.expirationDue(app, from: &t) { owed.append(due) }
        #expect(owed.map(\.id) == [1, 2, 3])
        #expect(owed.map(\.isExpiringActivity) == [false, true, false])
    }

    @Test("no new assertion once the budget is spent but for the expiration lead time")
    func budgetSpent() {
        var controller = Self.fresh()
        controller.openWindow(app, now: 0, budget: Time.seconds(30))
        #expect(!controller.windowExpired(app, now: Time.seconds(24), leadTime: Time.seconds(5)))
        #expect(controller.windowExpired(app, now: Time.seconds(25), leadTime: Time.seconds(5)))
        controller.closeWindow(app)
        #expect(!controller.windowExpired(app, now: Time.seconds(25), leadTime: Time.seconds(5)))
    }

    @Test("a window's timers are scheduled once, and a closed window's number moves on (its tickets go stale)")
    func windowTimersAndNumber() {
        var controller = Self.fresh()
        controller.openWindow(app, now: 0, budget: Time.seconds(30))
        let number = controller.apps[0].windowNumber
        let first = controller.windowNeedingTimers(app)
        let second = controller.windowNeedingTimers(app)
        #expect(first?.deadline == Time.seconds(30) && second == nil)
        controller.closeWindow(app)
        #expect(controller.apps[0].windowNumber != number)
    }

    @Test("the process's end drops its assertions and its window")
    func processEnded() {
        var controller = Self.fresh()
        _ = controller.begin(app, name: "upload", text: TextID(index: 0), now: 0)
        controller.openWindow(app, now: 0, budget: Time.seconds(30))
        let number = controller.apps[0].windowNumber
        controller.processEnded(app)
        #expect(!controller.holdsApp(app))
        #expect(controller.apps[0].window == nil && controller.apps[0].windowNumber != number)
        #expect(controller.timeRemaining(app, now: 0) == Double.greatestFiniteMagnitude)
    }

    @Test("its dump lists the open assertions and the window, as JSON and as lines of text")
    func dumped() throws {
        var controller = Self.fresh()
        _ = controller.begin(app, name: "upload", text: TextID(index: 0), now: Time.minutes(1))
        controller.openWindow(app, now: Time.minutes(2), budget: Time.seconds(30))
        let dump = controller.dump(app)
        #expect(dump.concern == "background tasks")
        let lines = dump.lines { "\($0 / Time.seconds(1))s" }
        #expect(lines == ["background task 1 \"upload\" open since 60s",
                          "background time from 120s until 150s: a task still open then ends the app"])
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"name\":\"upload\"") && json.contains("\"windowDeadline\":150000000000"))
    }
}
