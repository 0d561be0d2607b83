@testable import BGXCore
import Foundation
import Testing

/// rules §8's transfer controller on its own: no engine, no device — the
/// moment, the device's conditions and the settings in, effects out.
@Suite struct TransferControllerTests {
    let app = AppID(index: 0)
    let settings = TransferSettings()

    let session = TextID(index: 0)

    func controller() -> TransferController {
        var c = TransferController()
        c.appInstalled()
        return c
    }

    /// The app's process: running in front unless said otherwise, in its first lifetime.
    func view(_ state: ProcessState = .active, epoch: UInt32 = 1, launchRefusal: String? = nil) -> TransferAppView {
        TransferAppView(state: state, epoch: epoch, launchRefusal: launchRefusal, sessionName: "podcasts")
    }

    func conditions(at now: Nanoseconds, network: DeviceState.Network = .wifi, bandwidth: Int64 = 1000) -> TransferConditions {
        var device = DeviceState()
        device.network = network
        device.bandwidth = bandwidth
        device.charging = true
        return TransferConditions(now: now, device: device, wallClockOffset: 0)
    }

    /// A controller whose app created session "podcasts" and started downloads of these sizes at t = 0.
    func downloading(_ sizes: [Int64], bandwidth: Int64 = 1000) -> TransferController {
        var c = controller()
        _ = c.createSession(app, session, BackgroundSessionConfiguration(identifier: "podcasts"), view(), settings: settings)
        for bytes in sizes {
            _ = c.startTransfer(app, session, name: "podcasts", TransferTaskSpec(bytes: bytes), view(),
                                conditions(at: 0, bandwidth: bandwidth), settings: settings)
        }
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
        var c = downloading([1000, 1000], bandwidth: 300)
        var later = TransferTaskSpec(bytes: 1000)
        later.earliestBegin = Time.hours(1)
        _ = c.startTransfer(app, session, name: "podcasts", later, view(), conditions(at: 0, bandwidth: 300), settings: settings)
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
        var c = downloading([1000])         // alone at 1000 B/s: done at 1 s (review 1)
        let started = c.startTransfer(app, session, name: "podcasts", TransferTaskSpec(bytes: 3000), view(),
                                      conditions(at: 0), settings: settings)
        // Sharing the bandwidth, the first finishes at 2 s: review 2 replaces review 1.
        #expect(started.effects.last == .schedule(.transferReview(generation: 2), at: Time.seconds(2)))
        #expect(c.scheduleReview(now: 0, bandwidth: 1000) == nil)
        #expect(c.reviewFired(generation: 1, conditions(at: Time.seconds(1)), settings: settings).isEmpty)
        let current = c.reviewFired(generation: 2, conditions(at: Time.seconds(2)), settings: settings)
        #expect(current.contains(.trace(app, .transferComplete(session: session, task: 1))))
        #expect(current.last == .schedule(.transferReview(generation: 3), at: Time.seconds(4)))
    }

    @Test("rules §8: the relaunch rate limiter doubles the delay with each background wake and starts over in front")
    func rateLimiterDoubles() {
        var c = controller()
        let delays = (0..<3).map { _ in c.nextWakeDelay(app, settings: settings) }
        #expect(delays.map(\.delay) == [Time.seconds(60), Time.seconds(120), Time.seconds(240)])
        #expect(delays.map(\.wake) == [1, 2, 3])
        var effects: [Effect] = []
        c.appCameToFront(app, state: .active, epoch: 1, &effects)
        #expect(effects.isEmpty)
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
    @Test("rules §8: a suspended app's finished download waits for the whole session, then the app is woken after the rate limiter's delay and handed its events, the result and didFinishEvents")
    func suspendedAppIsWokenForTheResults() {
        var c = downloading([1000])
        let done = c.review(conditions(at: Time.seconds(1)), settings: settings)
        #expect(done == [.trace(app, .transferComplete(session: session, task: 1)),
                         .continueTransfers(.finished(session: 0))])
        // Handed over only to a running process: the suspended one gets nothing yet.
        #expect(c.resume(.finished(session: 0), view(.suspended), now: Time.seconds(1), settings: settings)
                == [.pump(app), .continueTransfers(.settled(session: 0))])
        let settled = c.resume(.settled(session: 0), view(.suspended), now: Time.seconds(1), settings: settings)
        #expect(settled.first == .schedule(.transferWake(app, session: session, number: 1), at: Time.seconds(61)))
        #expect(c.wakeFired(app, session: session, number: 1, view(.suspended), now: Time.seconds(61), settings: settings)
                == [.continueTransfers(.wake(session: 0, cause: .transfer))])
        #expect(c.woke(0, cause: .transfer, running: true, view(.background), now: Time.seconds(61), settings: settings) == [
            .setAssertion(app, .transferEvents, true),
            .schedule(.transferEventsDeadline(app, Ticket(epoch: 1, number: 1)), at: Time.seconds(91)),
            .queueJob(app, .transfer(.events(session))),
            .queueJob(app, .transfer(.result(1))),
            .queueJob(app, .transfer(.finishEvents(session))),
            .pump(app),
        ])
        #expect(c.callback(for: .result(1), app, epoch: 1)
                == .urlSessionTaskDidComplete(session: session, task: 1, kind: .download, result: .success))
        #expect(c.callback(for: .result(1), app, epoch: 1) == nil)   // delivered once
    }

    @Test("rules §8, §11: a wake the launch policy refuses holds the results, traced once; a change of conditions looks at the session again")
    func refusedLaunchHoldsTheResults() {
        var c = downloading([1000])
        _ = c.review(conditions(at: Time.seconds(1)), settings: settings)
        let refused = view(.notRunning, launchRefusal: "the user force-quit the app")
        let held = c.resume(.settled(session: 0), refused, now: Time.seconds(1), settings: settings)
        #expect(held == [.transferNote(app, .hold(session: session,
                                                  reason: "not woken for the session's events: the user force-quit the app"))])
        #expect(c.sessions[0].launchHeld)
        #expect(c.reviewHeld() == [.continueTransfers(.held(session: 0))])
        // Still refused: held again, and the trace says nothing new.
        #expect(c.resume(.held(session: 0), refused, now: Time.seconds(2), settings: settings).isEmpty)
        // Allowed now: the rate limiter's wake is scheduled.
        let allowed = c.resume(.held(session: 0), view(.notRunning), now: Time.seconds(3), settings: settings)
        #expect(allowed.first == .schedule(.transferWake(app, session: session, number: 1), at: Time.seconds(63)))
        #expect(c.reviewHeld().isEmpty)
    }

    @Test("rules §8: a force quit cancels the app's unfinished transfers (-999) and wakes nobody for them")
    func forceQuitCancels() {
        var c = downloading([1000, 2000])
        let effects = c.cancelForForceQuit(app, conditions(at: Time.seconds(1) / 2), settings: settings)
        #expect(effects.first == .transferNote(app, .cancel(session: session, reason:
            "the user force-quit the app: 2 pending transfers cancelled (NSURLErrorCancelled -999, delivered when "
            + "the app next creates the session); no relaunch", oneOff: true)))
        #expect(c.tasks.allSatisfy { $0.result == .cancelled })
        #expect(!effects.contains { if case .schedule = $0 { true } else { false } })
    }

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
