@testable import BGXCore
import BGXSimulation
import BGXTestKit
import Testing

/// rules §11: who gets launched, and when — the launch policy alone, then as
/// the engine and its scheduler use it.

private let policy = LaunchPolicy(relaunchLocationAfterForceQuit: true)
private let everyMode = LaunchPolicy.AppFacts(modes: Set(BackgroundMode.allCases), forceQuit: false)
private var unlocked: DeviceState { DeviceState() }

@Test("rules §11: with the right mode, every background cause may launch an app that was not force-quit")
func everyCauseWithItsMode() {
    for cause in LaunchCause.allCases {
        let verdict = policy.verdict(for: cause, app: everyMode, device: unlocked)
        #expect(verdict.allowed, "\(cause): \(verdict.reason)")
    }
}

@Test("rules §3/§11: each background cause needs its own mode; transfers, significant-change and region events need none")
func eachCauseNeedsItsMode() {
    let none = LaunchPolicy.AppFacts(modes: [], forceQuit: false)
    let expected: [LaunchCause: BackgroundMode?] = [
        .silentPush: .remoteNotification, .voipPush: .voip, .boot: .voip, .location: nil, .region: nil,
        .bluetooth: .bluetoothCentral, .accessory: .externalAccessory, .newsstand: .newsstandContent,
        .fetch: .fetch, .audio: .audio, .transfer: nil, .bgTask: nil, .user: nil, .notification: nil,
    ]
    #expect(Set(expected.keys) == Set(LaunchCause.allCases))
    for (cause, mode) in expected {
        let verdict = policy.verdict(for: cause, app: none, device: unlocked)
        #expect(verdict.refusal == mode.map { .modeMissing($0) }, "\(cause)")
        if let mode {
            let with = LaunchPolicy.AppFacts(modes: [mode], forceQuit: false)
            #expect(policy.verdict(for: cause, app: with, device: unlocked).allowed, "\(cause) with \(mode)")
        }
    }
    // Either Bluetooth mode lets Bluetooth events launch the app.
    let peripheral = LaunchPolicy.AppFacts(modes: [.bluetoothPeripheral], forceQuit: false)
    #expect(policy.verdict(for: .bluetooth, app: peripheral, device: unlocked).allowed)
    #expect(LaunchRefusal.modeMissing(.remoteNotification).reason == "UIBackgroundModes lacks 'remote-notification'")
}

@Test("rules §5/§11: a BGTask launch needs its identifier in BGTaskSchedulerPermittedIdentifiers")
func bgTaskNeedsPermittedIdentifier() {
    var facts = LaunchPolicy.AppFacts(modes: [.fetch], forceQuit: false, taskIdentifierPermitted: false)
    #expect(policy.verdict(for: .bgTask, app: facts, device: unlocked).refusal == .taskIdentifierNotPermitted)
    facts.taskIdentifierPermitted = true
    #expect(policy.verdict(for: .bgTask, app: facts, device: unlocked).allowed)
}

@Test("rules §11: a force-quit app is launched for no background cause — location and region only with the iOS 8+ flag")
func forceQuitBlocksEveryBackgroundCause() {
    let quit = LaunchPolicy.AppFacts(modes: Set(BackgroundMode.allCases), forceQuit: true)
    let old = LaunchPolicy(relaunchLocationAfterForceQuit: false)
    for cause in LaunchCause.allCases where !cause.launchesIntoForeground {
        let locationLike = cause == .location || cause == .region
        #expect(policy.verdict(for: cause, app: quit, device: unlocked).refusal == (locationLike ? nil : .forceQuit),
                "\(cause)")
        #expect(old.verdict(for: cause, app: quit, device: unlocked).refusal == .forceQuit, "\(cause) (iOS 4–7)")
    }
    // The person may always launch it: that is what clears the flag.
    #expect(policy.verdict(for: .user, app: quit, device: unlocked).allowed)
    #expect(policy.verdict(for: .notification, app: quit, device: unlocked).allowed)
    #expect(PolicyProfile.modern.relaunchLocationAfterForceQuit && PolicyProfile.ios12.relaunchLocationAfterForceQuit)
    #expect(!PolicyProfile.ios6.relaunchLocationAfterForceQuit)
}

@Test("rules §11: with a passcode, no background launch before the first unlock after boot")
func noLaunchBeforeFirstUnlock() {
    var device = DeviceState()
    device.unlockedSinceBoot = false
    for cause in LaunchCause.allCases where !cause.launchesIntoForeground {
        #expect(policy.verdict(for: cause, app: everyMode, device: device).refusal == .beforeFirstUnlock, "\(cause)")
    }
    #expect(policy.verdict(for: .user, app: everyMode, device: device).allowed)
}

@Test("rules §1/§11: a device without multitasking launches nothing into the background")
func noMultitaskingNoBackgroundLaunch() {
    var device = DeviceState()
    device.multitasking = false
    for cause in LaunchCause.allCases where !cause.launchesIntoForeground {
        #expect(policy.verdict(for: cause, app: everyMode, device: device).refusal == .multitaskingUnsupported)
    }
}

@Test("rules §11: the force-quit flag is set by a swipe and cleared by a user launch or a reboot")
func forceQuitFlagLifecycle() {
    var engine = Engine()
    let app = engine.install(AppManifest(bundleIdentifier: "com.example.chat", backgroundModes: [.remoteNotification]))
    func run() {
        var directives: [Directive] = []
        while engine.step() { engine.answerAtOnce(&directives) }
    }
    engine.schedule(.user(.launch(app)), at: 0)
    engine.schedule(.user(.forceQuit(app)), at: Time.seconds(10))
    run()
    #expect(engine.launchVerdict(for: app, cause: .silentPush).refusal == .forceQuit)
    engine.schedule(.device(.reboot), at: Time.seconds(20))
    engine.schedule(.user(.unlock), at: Time.seconds(30))
    run()
    #expect(engine.launchVerdict(for: app, cause: .silentPush).allowed)
    engine.schedule(.user(.forceQuit(app)), at: Time.seconds(40))  // not running: still marked
    run()
    #expect(engine.launchVerdict(for: app, cause: .silentPush).refusal == .forceQuit)
    engine.schedule(.user(.launch(app)), at: Time.seconds(50))
    run()
    #expect(engine.launchVerdict(for: app, cause: .silentPush).allowed)
}

@Test("rules §11: after a reboot with a passcode the engine refuses background launches until the first unlock")
func engineFirstUnlock() {
    var engine = Engine()
    let app = engine.install(AppManifest(bundleIdentifier: "com.example.voip", backgroundModes: [.voip]))
    engine.schedule(.device(.reboot), at: 0)
    while engine.step() {}
    #expect(engine.launchVerdict(for: app, cause: .boot).refusal == .beforeFirstUnlock)
    #expect(engine.launchVerdict(for: app, cause: .boot).reason == "the device has not been unlocked since boot")
    engine.schedule(.user(.unlock), at: Time.seconds(5))
    while engine.step() {}
    #expect(engine.launchVerdict(for: app, cause: .boot).allowed)
}

@Test("rules §1/§11: a fetch the scheduler would run waits on a device without multitasking, with the launch policy's reason")
func fetchWaitsWithoutMultitasking() {
    let device = SimulatedDevice()
    let app = device.install(AppManifest(bundleIdentifier: "com.example.news", backgroundModes: [.fetch]),
                             program: { FetchingProgram() })
    device.perform(.launch(app))
    device.advance(seconds: 60)
    device.change(.multitasking(false))
    device.perform(.home)
    device.advance(by: Time.days(1))
    let events = device.events(of: app)
    #expect(!events.contains { $0.kindName == "fetch.start" })
    let names = device.renderer.names
    let reasons = events.compactMap { e -> String? in
        if case let .fetchDefer(reason) = e.kind { return names.text(reason) } else { return nil }
    }
    #expect(reasons.last == "this device does not support multitasking")
}

/// Asks for the minimum fetch interval at launch and answers every fetch at once.
private final class FetchingProgram: HostedApp {
    func handle(_ callback: Callback, process: AppRuntime) -> Bool {
        switch callback {
        case .didFinishLaunching: process.setMinimumBackgroundFetchInterval(seconds: 0)
        case .performFetch: process.completeFetch(.noData)
        default: break
        }
        return true
    }
}

@Test("rules §11/§10: work that launches an app killed at once (over its memory limit) dies with that process — no task starts or expires in a dead process, and the next one begins with didFinishLaunching")
func workForAProcessKilledAsItLaunched() throws {
    let run = try ScenarioRun(try ScenarioParser(file: "killed.yaml").parse("""
    duration: 1h
    device: {memory: 4GB}
    apps:
      - bundle: com.example.big
        memory: 600MB
        backgroundModes: [fetch]
        permittedTaskIdentifiers: [com.example.big.refresh]
        on:
          didFinishLaunching:
            - register: com.example.big.refresh
          didEnterBackground:
            - submit: {identifier: com.example.big.refresh, type: appRefresh}
          task com.example.big.refresh:
            - complete: true
    timeline:
      - {at: 1m, user: launch com.example.big}
      - {at: 2m, user: home}
      - {at: 5m, device: {memory: 1GB}}
      - {at: 6m, debug: {simulateLaunch: com.example.big.refresh}}
      - {at: 7m, device: {memory: 4GB}}
      - {at: 8m, user: launch com.example.big}
    """))
    run.run(until: Time.minutes(60))
    let trace = run.device.trace
    let launches = trace.filter { $0.kindName == "launch" }.map { Time.toSeconds($0.time) }
    #expect(launches == [60, 360, 480], "the user's, the task's (killed at once), the user's again")
    let callbacksAfter = trace.filter { $0.time >= Time.minutes(8) && $0.kindName == "callback" }
    guard case .callback(.didFinishLaunching)? = callbacksAfter.first?.kind else {
        Issue.record("the last process began with \(String(describing: callbacksAfter.first?.kind))")
        return
    }
    #expect(!trace.contains {
        switch $0.kind { case .callback(.bgTask), .callbackOnQueue(.bgTask): true; default: false }
    })
    let taskEvents = trace.filter { ["task.start", "task.expire", "task.complete"].contains($0.kindName) }
    #expect(taskEvents.isEmpty, "\(taskEvents.map(\.kindName))")
}

@Test("rules §6/§11: Background App Refresh off — on the device or for the app — is one launch-policy rule: it refuses BGTasks, fetch and background pushes, and nothing else")
func backgroundAppRefreshIsOneRule() {
    var off = unlocked
    off.backgroundAppRefresh = false
    var appOff = everyMode
    appOff.backgroundAppRefresh = false
    let governed: Set<LaunchCause> = [.bgTask, .fetch, .silentPush]
    for cause in LaunchCause.allCases {
        let device = policy.verdict(for: cause, app: everyMode, device: off).refusal
        let app = policy.verdict(for: cause, app: appOff, device: unlocked).refusal
        #expect(device == (governed.contains(cause) ? .backgroundAppRefreshOff : nil), "\(cause)")
        #expect(app == (governed.contains(cause) ? .backgroundAppRefreshOffForApp : nil), "\(cause)")
    }
    #expect(LaunchRefusal.backgroundAppRefreshOff.reason == "Background App Refresh is off in Settings")
    #expect(LaunchRefusal.backgroundAppRefreshOffForApp.reason == "Background App Refresh is off for this app in Settings")
}

@Test("rules §6/§11: submit, the scheduler and the push gate ask the same rule — with Background App Refresh off a submit is refused with its words and a push is dropped with the same")
func backgroundAppRefreshAskedByEveryone() throws {
    var engine = Engine(profile: .modern)
    let app = engine.install(AppManifest(bundleIdentifier: "com.example.feed", backgroundModes: [.fetch, .remoteNotification],
                                         permittedTaskIdentifiers: ["com.example.feed.refresh"]))
    engine.schedule(.device(.backgroundAppRefresh(false)), at: 0)
    while engine.nextEventTime != nil && engine.nextEventTime! <= 0 { engine.step() }
    #expect(throws: BGTaskSchedulerError.unavailable) {
        try engine.submitTask(for: app, TaskRequestSpec(identifier: "com.example.feed.refresh", kind: .appRefresh))
    }
    #expect(engine.launchRule(.backgroundAppRefresh, app, cause: .fetch) == .backgroundAppRefreshOff)
    guard case let .drop(reason)? = engine.backgroundPushGate(app, Push(type: .background, priority: 5)) else {
        Issue.record("the push was not dropped"); return
    }
    #expect(reason == LaunchRefusal.backgroundAppRefreshOff.reason)
}
