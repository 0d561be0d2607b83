@testable import BGXCore
import Foundation
import Testing

/// rules §8's transfer controller on its own: no engine, no device — the
/// moment, the device's conditions and the settings in, effects out.
@Suite struct TransferControllerTests {
    let app = AppID(index: 0)
    let settings = TransferSettings()

    func controller() -> TransferController {
        var c = TransferController()
        c.appInstalled()
        return c
    }

    func task(_ id: Int32, bytes: Int64, phase: TransferTask.Phase = .running,
              discretion: TransferTask.Discretion = .no, earliestBegin: Nanoseconds? = nil) -> TransferTask {
        var t = TransferTask(id: id, app: app, session: TextID(index: 0), kind: .download, bytes: bytes, remaining: bytes,
                             created: 0, earliestBegin: earliestBegin, discretion: discretion, allowsCellular: true,
                             requestTimeout: Time.seconds(60), resourceTimeout: Time.days(7))
        t.phase = phase
        return t
    }

    @Test("rules §8: running transfers share the device's bandwidth equally; progress is settled in whole bytes")
    func bandwidthIsShared() {
        var c = controller()
        c.tasks = [task(1, bytes: 1000), task(2, bytes: 1000), task(3, bytes: 1000, phase: .waiting)]
        c.settle(now: Time.seconds(2), network: .wifi, bandwidth: 300)
        #expect(c.tasks.map(\.remaining) == [700, 700, 1000])
        c.settle(now: Time.seconds(3), network: .none, bandwidth: 300)
        #expect(c.tasks.map(\.remaining) == [700, 700, 1000])
    }

    @Test("rules §8: a discretionary transfer waits for Wi-Fi, then for power; an earliest begin date comes first")
    func discretionaryWaitsForGoodConditions() {
        var device = DeviceState()
        device.network = .cellular
        device.charging = false
        let discretionary = task(1, bytes: 10, phase: .waiting, discretion: .configured)
        #expect(TransferController.wait(discretionary, now: 0, device: device, settings: settings) == .needsWiFi)
        device.network = .wifi
        #expect(TransferController.wait(discretionary, now: 0, device: device, settings: settings) == .needsPower)
        device.charging = true
        #expect(TransferController.wait(discretionary, now: 0, device: device, settings: settings) == nil)
        #expect(TransferController.wait(task(2, bytes: 10, phase: .waiting, discretion: .no), now: 0,
                                        device: { var d = device; d.charging = false; return d }(), settings: settings) == nil)
        let later = task(3, bytes: 10, phase: .waiting, earliestBegin: Time.hours(1))
        #expect(TransferController.wait(later, now: 0, device: device, settings: settings) == .earliestBegin(Time.hours(1)))
    }

    @Test("rules §8: the daemon keeps one review, at the next completion; a review of an older generation is stale")
    func oneReviewAtTheNextCompletion() {
        var c = controller()
        c.tasks = [task(1, bytes: 1000), task(2, bytes: 3000)]
        #expect(c.scheduleReview(now: 0, bandwidth: 1000) == .schedule(.transferReview(generation: 1), at: Time.seconds(2)))
        #expect(c.scheduleReview(now: 0, bandwidth: 1000) == nil)
        c.tasks.removeFirst()
        #expect(c.scheduleReview(now: 0, bandwidth: 1000) == .schedule(.transferReview(generation: 2), at: Time.seconds(3)))
        let stale = c.takeReview(generation: 1)
        let current = c.takeReview(generation: 2)
        #expect(!stale && current && c.scheduledAt == nil)
    }

    @Test("rules §8: the relaunch rate limiter doubles the delay with each background wake and starts over in front")
    func rateLimiterDoubles() {
        var c = controller()
        let delays = (0..<3).map { _ in c.nextWakeDelay(app, settings: settings) }
        #expect(delays.map(\.delay) == [Time.seconds(60), Time.seconds(120), Time.seconds(240)])
        #expect(delays.map(\.wake) == [1, 2, 3])
        c.appCameToFront(app)
        #expect(c.nextWakeDelay(app, settings: settings).delay == Time.seconds(60))
    }

    @Test("rules §8: woken for a session's events the app is held until its completion handler, at most eventsHandlingTime")
    func eventsWakeHoldsTheApp() {
        var c = controller()
        let session = TextID(index: 4)
        #expect(c.beginEvents(app, session: session, epoch: 2, now: Time.seconds(10), settings: settings) == [
            .setAssertion(app, .transferEvents, true),
            .schedule(.transferEventsDeadline(app, Ticket(epoch: 2, number: 1)), at: Time.seconds(40)),
        ])
        let otherSession = c.endEvents(app, session: TextID(index: 5))
        #expect(otherSession == nil)
        let ended = c.endEvents(app, session: session)
        #expect(ended?.effects == [.setAssertion(app, .transferEvents, false)])
        let twice = c.endEvents(app, session: session)
        #expect(twice == nil)
        _ = c.beginEvents(app, session: session, epoch: 2, now: 0, settings: settings)
        c.processEnded(app)
        #expect(c.apps[0].eventsWake == nil)
    }
}

extension TransferControllerTests {
    @Test("the transfer controller explains itself: each transfer and why it waits, as data and in words")
    func dumpsItsState() throws {
        let dump = TransferControllerDump(
            sessions: [.init(identifier: "offline", newsstand: false, tasks: [
                .init(id: 2, kind: "download", bytes: 10, state: "waiting", wait: "no network connectivity",
                      waitingSince: Time.minutes(1), failsAt: Time.minutes(9)),
            ], resultsWait: nil)],
            handlingEventsOf: "offline", backgroundWakesSinceFront: 1)
        #expect(dump.lines { "\($0 / Time.minutes(1))m" } == [
            "background session 'offline'",
            "  task 2 (download, 10 bytes): waiting: no network connectivity (since 1m); fails at 9m (timeoutIntervalForResource)",
            "woken for session 'offline''s events; its completion handler has not been called",
            "relaunch rate limiter: 1 background wake(s) since the app was last in front",
        ])
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"state\":\"waiting\""))
    }
}
