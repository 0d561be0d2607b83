import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The policies dasd's logs show and bgx applies (SchedulingPolicies.swift,
/// PushJudgement.swift), each with the log it comes from.
@Suite("dasd's policies as device logs show them")
struct DasdPolicyTests {

    @Test("modern: after a restart background pushes are refused (pushDisallowed) until the person opens the app (Apple Developer Forums 835645)")
    func pushDisallowedAfterRestart() {
        let (device, app) = chatDevice()
        device.advance(seconds: 100)
        device.change(.reboot)
        device.perform(.unlock)
        device.advance(seconds: 1200)                  // past the thundering herd
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "1420 push.drop background 5 held: ApplicationPolicy: Absolutely Must Not Proceed "
                + "[{[pushDisallowed]: Required:0.00, Observed:1.00},]")
        #expect(device.engine.dasdPushDecision(app: app).final == .absolutelyMustNotProceed)
        device.perform(.launch(app))                    // opened: the held push is delivered to it
        #expect(device.pushStory(of: app).suffix(2) == ["1420 launch user", "1420 push.deliver background 5 app"])
        device.perform(.home)
        device.advance(seconds: 60)
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).contains("1480 push.deliver background 5 app"), "\(device.pushStory(of: app))")
    }

    @Test("ios12: Apple's documentation — a restart re-enables background pushes")
    func restartReenablesOnOlderProfile() {
        let (device, app) = chatDevice(profile: .ios12)
        device.advance(seconds: 100)
        device.change(.reboot)
        device.perform(.unlock)
        device.advance(seconds: 1200)
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).suffix(2) == ["1420 push.deliver background 5 app", "1420 launch silentPush"])
    }

    @Test("ThunderingHerdPolicy: for 300 s after a restart every push waits, and goes when the window ends (openradar 45201697)")
    func herdAfterBoot() {
        var state = DeviceState()
        state.passcode = false
        let (device, app) = chatDevice(profile: .ios12, device: state)
        device.perform(.lock)
        device.advance(seconds: 100)
        device.change(.reboot)                          // at 220, no passcode: no unlock needed
        device.advance(seconds: 60)
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last
                == "280 push.drop background 5 held: ThunderingHerdPolicy: Must Not Proceed [{timeSinceThunderingHerdTriggerEvent < 300}]")
        device.advance(seconds: 300)
        #expect(device.pushStory(of: app).contains("520 push.deliver background 5 app"))
    }

    @Test("ThunderingHerdPolicy: while the device is in use, 900 s after a restart (ably-flutter README)")
    func herdWhileInUse() {
        let (device, app) = chatDevice(profile: .ios12)
        device.advance(seconds: 100)
        device.change(.reboot)                          // 220: the trigger
        device.advance(seconds: 400)
        device.perform(.unlock)                         // 620: in use
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "620 push.drop background 5 held: ThunderingHerdPolicy: Must Not Proceed "
                + "[{deviceInUse == 1 AND timeSinceThunderingHerdTriggerEvent < 900}]")
        device.advance(seconds: 1000)
        #expect(device.pushStory(of: app).contains("1120 push.deliver background 5 app"), "\(device.pushStory(of: app))")
    }

    @Test("ThunderingHerdPolicy: unlocking after 4 hours locked is a trigger (dasd's lengthyLock); a shorter lock is not")
    func herdAfterLengthyLock() {
        let (device, app) = chatDevice(profile: .ios12)
        device.perform(.lock)                           // 120
        device.advance(seconds: 3600)
        device.perform(.unlock)                         // 3720: an hour locked, no trigger
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "3720 push.deliver background 5 app", "\(device.pushStory(of: app))")
        device.advance(seconds: 60)
        device.perform(.lock)                           // 3780
        device.advance(seconds: 4 * 3600)
        device.perform(.unlock)                         // 18180: 4 hours locked, the trigger
        device.advance(seconds: 420)
        device.push(silent, to: app)                    // 18600: past 300 s, the person still using the phone
        #expect(device.pushStory(of: app).last == "18600 push.drop background 5 held: ThunderingHerdPolicy: Must Not Proceed "
                + "[{deviceInUse == 1 AND timeSinceThunderingHerdTriggerEvent < 900}, "
                + "{recentTriggerReason == com.apple.duetactivityscheduler.thpolicy.lengthyLock}]")
        device.advance(seconds: 600)
        #expect(device.pushStory(of: app).contains("19080 push.deliver background 5 app"), "\(device.pushStory(of: app))")
    }

    @Test("ThunderingHerdPolicy: locking the device ends the in-use window (dasd's waitingForInactivity); the first 300 s hold regardless")
    func herdInUseWindowEndsWhenLocked() {
        let (device, app) = chatDevice(profile: .ios12)
        device.perform(.lock)                           // 120
        device.advance(seconds: 5 * 3600)
        device.perform(.unlock)                         // 18120: the trigger
        device.advance(seconds: 60)
        device.push(silent, to: app)                    // 18180: inside the first 300 s
        #expect(device.pushStory(of: app).last == "18180 push.drop background 5 held: ThunderingHerdPolicy: Must Not Proceed "
                + "[{timeSinceThunderingHerdTriggerEvent < 300}, "
                + "{recentTriggerReason == com.apple.duetactivityscheduler.thpolicy.lengthyLock}]")
        device.advance(seconds: 60)
        device.perform(.lock)                           // 18240: put down
        device.advance(seconds: 600)
        #expect(device.pushStory(of: app).contains("18420 push.deliver background 5 app"), "\(device.pushStory(of: app))")
    }

    @Test("ThunderingHerdPolicy: plugging in after 4 hours unplugged, and a network after 4 hours without, are triggers")
    func herdAfterLengthyUnplugAndNoNetwork() {
        let (device, app) = chatDevice(profile: .ios12)
        device.change(.network(.none))                  // 120
        device.advance(seconds: 4 * 3600)
        device.change(.network(.wifi))                  // 14520: the trigger
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last?.hasSuffix(
            "{recentTriggerReason == com.apple.duetactivityscheduler.thpolicy.lengthyNoNetwork}]") == true,
                "\(device.pushStory(of: app))")
        device.advance(seconds: 1000)                   // 15520; unplugged since the start
        device.change(.charging(true))                  // the trigger
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last?.hasSuffix(
            "{recentTriggerReason == com.apple.duetactivityscheduler.thpolicy.lengthyUnplug}]") == true,
                "\(device.pushStory(of: app))")
    }

    @Test("MemoryPressurePolicy: no push launch while the camera is in use; it goes when the camera stops (ably-flutter README)")
    func cameraHoldsPushes() {
        let (device, app) = chatDevice()
        device.change(.cameraActive(true))
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "120 push.drop background 5 held: MemoryPressurePolicy: Must Not Proceed [{cameraIsActive == 1}]")
        device.advance(seconds: 30)
        device.change(.cameraActive(false))
        #expect(device.pushStory(of: app).last == "150 push.deliver background 5 app")
    }

    @Test("FileProtectionPolicy: before the first unlock after a boot a push's data (complete until first user authentication) is locked")
    func dataLockedUntilFirstUnlock() {
        let (device, app) = chatDevice(profile: .ios12)
        device.change(.reboot)
        let d = device.engine.dasdPushDecision(app: app)
        #expect(d.response("FileProtectionPolicy")?.verdict == .mustNotProceed)
        #expect(d.response("FileProtectionPolicy")?.rationale
                == "[{fileProtection == completeUntilFirstUserAuthentication AND unlockedSinceBoot == 0}]")
        device.perform(.unlock)
        #expect(device.engine.dasdPushDecision(app: app).response("FileProtectionPolicy")?.verdict == .canProceed(1))
    }

    @Test("A push dasd scores below its threshold is Can Proceed with DecisionToRun 0, not a second veto from the rest of the push gate")
    func pushBelowThresholdIsNotAVeto() {
        var profile = PolicyProfile.modern
        profile.push.dasdThreshold = 0.99
        let (device, app) = chatDevice(profile: profile)
        let d = device.engine.dasdPushDecision(app: app)
        #expect(d.response("PushGate") == nil)
        #expect(!d.decisionToRun)
        guard case let .canProceed(score) = d.final else { Issue.record("final decision \(d.final)"); return }
        #expect(score < 0.99)
        #expect(d.thresholdScore == 0.99)
    }

    @Test("ApplicationPolicy: a push to the app in front Absolutely Must Proceed")
    func appInFront() {
        let (device, app) = chatDevice()
        device.perform(.launch(app))
        let d = device.engine.dasdPushDecision(app: app)
        #expect(d.final == .absolutelyMustProceed)
        #expect(d.decisionToRun)
        #expect(d.response("ApplicationPolicy")?.rationale == "[{[appIsForeground]: Required:1.00, Observed:1.00},]")
    }

    @Test("CPUUsagePolicy: processing waits while CPU use is over 50 % (cocoa-mhlw/cocoa#644)")
    func cpuHoldsProcessing() {
        let (device, app, _) = feedDevice(cleanupApp(), state: charging())
        device.change(.cpuLoad(90))
        device.perform(.lock)
        device.advance(seconds: 1200)
        #expect(device.taskStarts(of: app).isEmpty)
        #expect(device.deferReasons(of: app).last
                == "CPUUsagePolicy: [{[Max allowed CPU Usage level]: Required:50.00, Observed:90.00},]")
        device.change(.cpuLoad(20))
        device.advance(seconds: 1)
        #expect(device.taskStarts(of: app) == [1320])
    }

    @Test("the moving threshold is recorded: explain's JSON carries CurrentScore, ThresholdScore and DecisionToRun")
    func thresholdInExplain() {
        let (device, app, _) = feedDevice(cleanupApp(), state: charging())
        device.perform(.lock)                           // at 120; idle from 720
        device.advance(seconds: 300)
        let json = device.engine.explainTask(app: app, identifier: feedCleanup).json
        #expect(json.contains("\"currentScore\": 0.837607, \"thresholdScore\": 0.909809, \"decisionToRun\": 0"), "\(json)")
        // …and the trace: the deferral the score decided carries them.
        let line = device.traceLines.last { $0.contains("\"task.defer\"") && $0.contains("idle < 10m") }
        #expect(line?.hasSuffix("\"currentScore\": 0.837607, \"thresholdScore\": 0.91, \"decisionToRun\": 0}") == true, "\(line ?? "")")
        let blocked = device.traceLines.first { $0.contains("\"task.defer\"") }
        #expect(blocked?.contains("currentScore") == false, "a policy, not the score, decided: \(blocked ?? "")")
        let d = device.engine.dasdDecision(app: app, identifier: feedCleanup)
        #expect(d?.decisionToRun == false)
        #expect(d?.response("DeviceActivityPolicy")?.verdict == .canProceed(0.05))
    }

    @Test("dasd's layout: blocking policies only when blocked; below-1 policies, sums and the threshold when scored")
    func dasdLayout() throws {
        let (device, app, _) = feedDevice(cleanupApp(), state: charging())
        let blocked = try #require(device.engine.dasdDecision(app: app, identifier: feedCleanup))
        #expect(blocked.text == """
            bgProcessing-\(feedCleanup):\(blocked.tag):[
            \t{name: DeviceActivityPolicy, policyWeight: 10.000, response: {Decision: Must Not Proceed, Score: 0.00, Rationale: [{launchType == PROCESSING AND deviceActive == 1}]}}
             ], FinalDecision: Must Not Proceed}

            """)
        device.perform(.lock)
        device.advance(seconds: 300)
        let scored = try #require(device.engine.dasdDecision(app: app, identifier: feedCleanup))
        #expect(scored.text.contains("{name: DeviceActivityPolicy, policyWeight: 10.000, response: {Decision: Can Proceed, Score: 0.05"))
        #expect(scored.text.contains("] sumScores:49.000000, denominator:58.500000, FinalDecision: Can Proceed FinalScore: 0.837607}"))
        #expect(scored.text.contains("CurrentScore: 0.837607, ThresholdScore: 0.909809 DecisionToRun:0"))
        // The layout reads back as the decision it prints.
        let read = try #require(DasdLog(text: scored.text).decisions.first)
        #expect(read.finalScore == 0.837607)
        #expect(read.decisionToRun == false)
    }
}
