@testable import BGXCore
import Testing

/// rules §7's push gate and its decisions on their own: the conditions a push
/// meets are values (`PushConditions`), no engine — a push in, effects out.
@Suite struct PushGateTests {
    let app = AppID(index: 0)
    let other = AppID(index: 1)
    let push = Push(type: .background, priority: 5)

    func controller() -> PushController {
        var c = PushController()
        c.appInstalled()
        c.appInstalled()
        return c
    }

    /// A suspended app, opened an hour ago, on an unlocked device at full battery: nothing in the way.
    func conditions(now: Nanoseconds = Time.hours(2)) -> PushConditions {
        PushConditions(now: now, wallClockOffset: 0, isFrontApp: false, state: .suspended, epoch: 1,
                       launchRefusal: nil, lastUse: now - Time.hours(1), lastBoot: nil, herd: nil,
                       memoryPressure: (.canProceed(1), .memoryPressure(.normal)),
                       fileProtection: (.canProceed(1), .protectedDataAvailable),
                       locked: false, charging: false, battery: 100, lowPowerMode: false)
    }

    @Test("rules §7: with nothing in the way a background push wakes the app and is handed over, watched")
    func nothingInTheWayDelivers() {
        var c = controller()
        #expect(c.receive(app, push, conditions(), settings: PushSettings()) == [
            .trace(app, .pushDeliver(type: .background, priority: 5, toApp: true)),
            .wakeIntoBackground(app, .silentPush),
            .handPushToApp(app, push, watched: true),
        ])
    }

    @Test("rules §7, §11: a force-quit app's push is held with the launch policy's words, and the refused launch is noted")
    func forceQuitHoldsAndNotesTheRefusal() {
        var c = controller()
        var refused = conditions()
        refused.launchRefusal = .forceQuit
        #expect(c.receive(app, push, refused, settings: PushSettings()) == [
            .noteRefusedLaunch(app, .silentPush, .forceQuit),
            .pushDrop(app, push, reason: "held: " + LaunchRefusal.forceQuit.reason, held: true),
        ])
        #expect(c.heldApps == [0])
    }

    @Test("rules §7: a background push to the app in front is the app's, whatever the gate would say")
    func theAppInFrontGetsItUnjudged() {
        var c = controller()
        var inFront = conditions()
        inFront.isFrontApp = true
        inFront.state = .active
        inFront.lowPowerMode = true
        let effects = c.receive(app, push, inFront, settings: PushSettings())
        #expect(effects == [.trace(app, .pushDeliver(type: .background, priority: 5, toApp: true)),
                            .enqueue(app, .remoteNotification(1, .background))])
    }

    @Test("rules §7 [O]: a restart since the person last opened the app holds its push (dasd's ApplicationPolicy)")
    func restartSinceLastUseHolds() {
        let c = controller()
        var rebooted = conditions()
        rebooted.lastBoot = rebooted.now - Time.minutes(30)
        guard case let .hold(reason, retryAt)? = c.gate(app, push, rebooted, settings: PushSettings()) else {
            Issue.record("not held")
            return
        }
        #expect(reason.hasPrefix(SchedulingPolicy.application.rawValue + ": "))
        #expect(retryAt == nil)
        var notJudged = PushSettings()
        notJudged.judgedByDasd = false
        #expect(c.gate(app, push, rebooted, settings: notJudged) == nil)
    }

    @Test("rules §7: held pushes are retried in index order when conditions change; one the gate lets go is delivered")
    func heldPushesAreRetriedThenDelivered() {
        var c = controller()
        var lowPower = conditions()
        lowPower.lowPowerMode = true
        _ = c.receive(other, push, lowPower, settings: PushSettings())
        _ = c.receive(app, push, lowPower, settings: PushSettings())
        #expect(c.heldPushRetries() == [.retryHeldPush(app), .retryHeldPush(other)])
        // Still in Low Power Mode: held on, nothing queued (only time would not change it).
        #expect(c.retryHeld(app, lowPower, settings: PushSettings()).isEmpty)
        #expect(c.retryHeld(app, conditions(), settings: PushSettings()) == [
            .trace(app, .pushDeliver(type: .background, priority: 5, toApp: true)),
            .wakeIntoBackground(app, .silentPush),
            .handPushToApp(app, push, watched: true),
        ])
        #expect(c.heldPushRetries() == [.retryHeldPush(other)])
    }

    @Test("rules §7 [D]: a held push goes to the app at once when the person launches it")
    func userLaunchDeliversTheHeldPush() {
        var c = controller()
        var lowPower = conditions()
        lowPower.lowPowerMode = true
        _ = c.receive(app, push, lowPower, settings: PushSettings())
        #expect(c.deliverHeldOnUserLaunch(app, epoch: 2, now: Time.hours(3), settings: PushSettings()) == [
            .trace(app, .pushDeliver(type: .background, priority: 5, toApp: true)),
            .enqueue(app, .remoteNotification(1, .background)),
        ])
        #expect(c.deliverHeldOnUserLaunch(app, epoch: 2, now: Time.hours(3), settings: PushSettings()).isEmpty)
    }
}
