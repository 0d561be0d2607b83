import BGXApp
@testable import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A chat app that fetches its messages when a silent push arrives.
final class ChatApp: ApplicationDelegate {
    enum Behaviour { case completes(after: Double), forgets }
    let behaviour: Behaviour
    let journal: Journal
    init(_ behaviour: Behaviour = .completes(after: 2), journal: Journal = Journal()) {
        self.behaviour = behaviour
        self.journal = journal
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launched \(options.map { "\($0.cause)" } ?? "by the user")")
        application.registerForRemoteNotifications()
        return true
    }
    func application(_ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        journal.write("token \(deviceToken.count) bytes")
    }
    func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        let aps = userInfo["aps"] as? [String: Any] ?? [:]
        journal.write("push \(aps["content-available"] != nil ? "content-available" : "alert") while \(application.applicationState)")
        switch behaviour {
        case let .completes(seconds):
            Runtime.asyncAfter(seconds: seconds) { completionHandler(.newData) }
        case .forgets:
            break
        }
    }
}

let chatManifest = AppManifest(bundleIdentifier: "com.example.chat", backgroundModes: [.remoteNotification])
let silent = Push(type: .background, priority: 5)

/// The person opens the chat app at 60 s and leaves it at 120 s (suspended from then on).
extension PolicyProfile {
    /// Apple's documented push rules alone [D] — a restart re-enables
    /// launches — without the dasd policies seen in device logs
    /// (PushJudgement.swift), which the `modern` profile adds.
    static let documentedPushes: PolicyProfile = {
        var p = PolicyProfile.modern
        p.push.judgedByDasd = false
        p.push.pushDisallowedAfterReboot = false
        return p
    }()
}

func chatDevice(_ make: @escaping () -> ChatApp = { ChatApp() }, manifest: AppManifest = chatManifest,
                profile: PolicyProfile = .modern, device state: DeviceState = DeviceState())
    -> (device: SimulatedDevice, app: AppID) {
    usedOnceDevice(manifest, profile: profile, device: state, delegate: make)
}

extension SimulatedDevice {
    /// Push events as short lines: `"600 push.deliver background 5 app"`,
    /// `"900 push.drop background 10 dropped: priority 10 …"`.
    func pushStory(of app: AppID) -> [String] {
        let names = renderer.names
        return events(of: app).compactMap { e in
            let t = Time.format(e.time)
            switch e.kind {
            case let .pushDeliver(type, priority, toApp): return "\(t) push.deliver \(type) \(priority) \(toApp ? "app" : "user")"
            case let .pushDrop(type, priority, reason, held):
                return "\(t) push.drop \(type) \(priority) \(held ? "" : "dropped: ")\(names.text(reason))"
            case let .pushComplete(result): return "\(t) push.complete \(result)"
            case let .launch(cause): return "\(t) launch \(cause)"
            case let .terminate(reason, _): return "\(t) terminate \(reason)"
            case .callReport: return "\(t) call.report"
            case let .voipWake(trigger): return "\(t) voip.wake \(trigger)"
            case let .voipDrop(trigger, reason): return "\(t) voip.drop \(trigger): \(names.text(reason))"
            default: return nil
            }
        }
    }
}

@Suite("rules §7 — silent and alert pushes")
struct SilentPushTests {

    @Test("rules §7: a priority-5 background push wakes a suspended remote-notification app, which completes and is suspended again")
    func wakesSuspendedApp() {
        let journal = Journal()
        let (device, app) = chatDevice { ChatApp(journal: journal) }
        device.advance(seconds: 480)
        #expect(device.state(of: app) == .suspended)
        device.push(silent, to: app)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 10)
        #expect(device.pushStory(of: app) == ["60 launch user", "600 push.deliver background 5 app", "602 push.complete newData"])
        #expect(device.state(of: app) == .suspended)
        #expect(journal.entries.contains("push content-available while background"))
        #expect(journal.entries.contains("token 16 bytes"))
    }

    @Test("rules §7/§11: a background push launches a terminated app into the background with cause silentPush")
    func launchesTerminatedApp() {
        let journal = Journal()
        let (device, app) = chatDevice({ ChatApp(journal: journal) }, profile: .documentedPushes)
        device.advance(seconds: 100)
        device.change(.reboot)
        device.perform(.unlock)
        device.push(silent, to: app)
        device.advance(seconds: 10)
        #expect(device.pushStory(of: app).suffix(3) == ["220 push.deliver background 5 app", "220 launch silentPush",
                                                        "222 push.complete newData"])
        // The device token (asked for at launch) arrives after the push the launch was for.
        #expect(journal.entries.suffix(3) == ["launched silentPush", "push content-available while background",
                                              "token 16 bytes"])
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §7: a priority-10 background push does not launch a terminated app")
    func priority10DoesNotLaunch() {
        let (device, app) = chatDevice()
        device.change(.reboot)
        device.perform(.unlock)
        device.push(Push(type: .background, priority: 10), to: app)
        #expect(device.pushStory(of: app).last
                == "120 push.drop background 10 dropped: priority 10 background pushes do not launch the app "
                    + "(send them with priority 5)")
        #expect(device.state(of: app) == .notRunning)
    }

    @Test("rules §3/§7: without the remote-notification mode a background push is dropped")
    func needsMode() {
        let (device, app) = chatDevice(manifest: AppManifest(bundleIdentifier: "com.example.chat"))
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "120 push.drop background 5 dropped: UIBackgroundModes lacks 'remote-notification'")
    }

    @Test("rules §7 [D]: more than 3 an hour are throttled; only the newest is held, and it arrives when the hour is over")
    func throttled() {
        let (device, app) = chatDevice()
        for _ in 0..<5 {
            device.advance(seconds: 300)
            device.push(silent, to: app)
        }
        device.advance(by: Time.hours(1))
        #expect(device.pushStory(of: app) == [
            "60 launch user",
            "420 push.deliver background 5 app", "422 push.complete newData",
            "720 push.deliver background 5 app", "722 push.complete newData",
            "1020 push.deliver background 5 app", "1022 push.complete newData",
            "1320 push.drop background 5 held: throttled: 3 background pushes in the past hour (at most 3)",
            "1620 push.drop background 5 dropped: replaced by a newer push while held: only the newest is kept",
            "1620 push.drop background 5 held: throttled: 3 background pushes in the past hour (at most 3)",
            "4020 push.deliver background 5 app", "4022 push.complete newData",
        ])
    }

    @Test("rules §7 [D]: 30 s to call the completion handler, or the app is terminated (completionHandlerTimeout)")
    func completionTimeout() {
        let (device, app) = chatDevice { ChatApp(.forgets) }
        device.push(silent, to: app)
        device.advance(seconds: 29)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 1)
        let kill = device.terminations(of: app).last
        #expect(kill?.t == 150 && kill?.reason == "completionHandlerTimeout" && kill?.code == "0x2182bad4")
        #expect(kill?.detail.contains("(handler: silent push)") == true)
    }

    @Test("rules §7 [D]: never delivered after a user force-quit until the user launches the app — then at once")
    func forceQuitHoldsUntilUserLaunch() {
        let journal = Journal()
        let (device, app) = chatDevice { ChatApp(journal: journal) }
        device.perform(.forceQuit(app))
        device.advance(seconds: 60)
        device.push(silent, to: app)
        device.advance(by: Time.hours(3))
        #expect(device.state(of: app) == .notRunning)
        device.perform(.launch(app))
        device.advance(seconds: 5)
        #expect(device.pushStory(of: app).suffix(4) == [
            "180 push.drop background 5 held: the user force-quit the app; no background launch until the user opens it",
            "10980 launch user", "10980 push.deliver background 5 app", "10982 push.complete newData"])
        #expect(journal.entries.suffix(3) == ["launched by the user", "push content-available while active",
                                              "token 16 bytes"])
    }

    @Test("rules §7/§11: a reboot clears the force-quit mark; the held push arrives after the first unlock")
    func rebootClearsForceQuit() {
        let (device, app) = chatDevice(profile: .documentedPushes)
        device.perform(.forceQuit(app))
        device.push(silent, to: app)
        device.advance(seconds: 60)
        device.change(.reboot)
        #expect(device.state(of: app) == .notRunning)   // locked since boot: still held
        device.advance(seconds: 60)
        device.perform(.unlock)
        device.advance(seconds: 5)
        #expect(device.pushStory(of: app).suffix(3) == ["240 push.deliver background 5 app", "240 launch silentPush",
                                                        "242 push.complete newData"])
    }

    @Test("rules §7/§11: with a passcode, a push before the first unlock after boot is held until it")
    func heldBeforeFirstUnlock() {
        let (device, app) = chatDevice(profile: .documentedPushes)
        device.change(.reboot)
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last
                == "120 push.drop background 5 held: the device has not been unlocked since boot")
        device.advance(seconds: 30)
        device.perform(.unlock)
        #expect(device.pushStory(of: app).suffix(2) == ["150 push.deliver background 5 app", "150 launch silentPush"])
    }

    @Test("rules §7: a background push to the app in front is delivered to it directly, unthrottled")
    func foregroundDirect() {
        let journal = Journal()
        let device = SimulatedDevice()
        let app = device.install(chatManifest, delegate: { ChatApp(journal: journal) })
        device.perform(.launch(app))
        for _ in 0..<5 { device.push(silent, to: app); device.advance(seconds: 10) }
        #expect(device.pushStory(of: app).filter { $0.contains("push.deliver") }.count == 5)
        #expect(journal.entries.last == "push content-available while active")
    }

    @Test("rules §7: alert pushes go to the user, unless the app is in front")
    func alertPushes() {
        let journal = Journal()
        let (device, app) = chatDevice { ChatApp(journal: journal) }
        device.push(Push(type: .alert, priority: 10), to: app)
        device.perform(.forceQuit(app))
        device.push(Push(type: .alert, priority: 10), to: app)   // even after a force-quit
        device.perform(.launch(app))
        device.push(Push(type: .alert, priority: 10), to: app)
        #expect(device.pushStory(of: app).filter { $0.contains("push.deliver") }
                == ["120 push.deliver alert 10 user", "120 push.deliver alert 10 user", "120 push.deliver alert 10 app"])
        #expect(journal.entries.last == "push alert while active")
    }

    @Test("rules §7 [A][O]: modern holds background pushes at ≤ 20 % battery and in Low Power Mode until that ends; ios12 does not")
    func batteryAndLowPowerMode() {
        var low = DeviceState()
        low.battery = 20
        let (device, app) = chatDevice(device: low)
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "120 push.drop background 5 held: battery at 20% (≤ 20%): background pushes wait")
        device.advance(seconds: 60)
        device.change(.lowPowerMode(true))
        device.change(.charging(true))
        #expect(device.pushStory(of: app).last == "120 push.drop background 5 held: battery at 20% (≤ 20%): background pushes wait")
        device.advance(seconds: 60)
        device.change(.lowPowerMode(false))
        #expect(device.pushStory(of: app).last == "240 push.deliver background 5 app")

        let (old, oldApp) = chatDevice(profile: .ios12, device: low)
        old.change(.lowPowerMode(true))
        old.push(silent, to: oldApp)
        #expect(old.pushStory(of: oldApp).last == "120 push.deliver background 5 app")
    }

    @Test("rules §7 [A][O]: a daily budget of background pushes, reset 24 h after it began")
    func dailyBudget() {
        var profile = PolicyProfile.modern
        profile.push.silentPushDailyBudget = 4
        let (device, app) = chatDevice(profile: profile)
        for _ in 0..<6 {
            device.advance(by: Time.hours(2))
            device.push(silent, to: app)
        }
        let story = device.pushStory(of: app)
        #expect(story.filter { $0.contains("push.deliver") }.count == 4)
        #expect(story.last == "43320 push.drop background 5 held: the daily budget of 4 background pushes is spent; "
                + "it resets at 1d 02:02")
        device.advance(by: Time.days(1))
        #expect(device.pushStory(of: app).filter { $0.contains("push.deliver") }.last == "93720 push.deliver background 5 app")
    }

    @Test("rules §6/§7: with Background App Refresh off, background pushes are dropped")
    func backgroundAppRefreshOff() {
        let (device, app) = chatDevice()
        device.change(.backgroundAppRefresh(false))
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "120 push.drop background 5 dropped: Background App Refresh is off in Settings")
    }

    @Test("rules §7: iOS 4–6 has no content-available pushes")
    func ios6HasNoSilentPush() {
        let (device, app) = chatDevice(profile: .ios6)
        device.push(silent, to: app)
        #expect(device.pushStory(of: app).last == "120 push.drop background 5 dropped: content-available pushes wake apps from iOS 7 on")
    }
}

@Suite("rules §7/§4 — push vocabulary in scenario files")
struct PushVocabularyTests {
    func error(_ yaml: String) -> String? {
        do { _ = try ScenarioParser(file: "t.yaml").parse(yaml); return nil } catch let e as ScenarioError {
            return e.message
        } catch { return "\(error)" }
    }

    @Test("push entries: type and priority are checked; without a priority APNs' default 10 is used")
    func pushEntries() throws {
        #expect(error("apps: [{bundle: a}]\ntimeline: [{at: 1m, push: {app: a, type: silent}}]\n")
                == "unknown push type 'silent' (known: background, alert, voip)")
        #expect(error("apps: [{bundle: a}]\ntimeline: [{at: 1m, push: {app: a, priority: 7}}]\n")
                == "a push's priority is 5 or 10, got '7'")
        #expect(error("apps: [{bundle: a}]\ntimeline: [{at: 1m, push: {app: b}}]\n")?.hasPrefix("unknown app 'b'") == true)
        let s = try ScenarioParser(file: "t.yaml").parse("apps: [{bundle: a}]\ntimeline: [{at: 1m, push: {app: a}}]\n")
        guard case let .push(app, push)? = s.timeline.first?.event else { Issue.record("not a push"); return }
        #expect(app == "a" && push == Push(type: .background, priority: 10))
    }

    @Test("'complete' in silentPush takes a fetch result; reportCall takes no argument")
    func handlerActions() {
        #expect(error("apps:\n  - bundle: a\n    on:\n      silentPush:\n        - complete: true\n")
                == "in silentPush, 'complete' takes newData, noData or failed")
        #expect(error("apps:\n  - bundle: a\n    on:\n      voipPush:\n        - reportCall: 5\n")
                == "'reportCall' takes no argument")
    }

    @Test("bgx check: push and VoIP handlers and actions need their modes (rules §3)")
    func manifestCheck() throws {
        let s = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - bundle: a
            on:
              silentPush: [{complete: noData}]
              voipPush: [reportCall]
        """)
        let messages = ManifestCheck.check(s.apps[0].manifest, usage: InfoPlist.usage(of: s.apps[0])).map(\.message)
        #expect(messages.contains("a: the 'silentPush' handler needs UIBackgroundModes 'remote-notification', which is not declared"))
        #expect(messages.contains("a: the 'voipPush' handler needs UIBackgroundModes 'voip', which is not declared"))
    }
}

@Test("rules §7 [A][O]: on modern, background pushes are dropped for an app not opened for a week, or never; ios12 delivers them")
func unusedAppsGetNoSilentPushes() {
    let (device, app) = chatDevice()
    device.advance(by: Time.days(7) - Time.seconds(120))   // 6d 23:59 after it was opened at 60 s
    device.push(silent, to: app)
    #expect(device.pushStory(of: app).last == "604800 push.deliver background 5 app")
    device.advance(seconds: 200)
    device.push(silent, to: app)
    #expect(device.pushStory(of: app).last
            == "605000 push.drop background 5 dropped: the app has not been opened since 0d 00:01 (over 7d)")
    let never = SimulatedDevice()
    let fresh = never.install(chatManifest, delegate: { ChatApp() })
    never.push(silent, to: fresh)
    #expect(never.pushStory(of: fresh) == ["0 push.drop background 5 dropped: the app has never been opened"])
    let old = SimulatedDevice(profile: .ios12)
    let oldApp = old.install(chatManifest, delegate: { ChatApp() })
    old.push(silent, to: oldApp)
    #expect(old.pushStory(of: oldApp).first == "0 push.deliver background 5 app")
}

@Test("bgx check (rules §7/§4): priority-10 background pushes, a silentPush handler that never completes, a call reported after a wait")
func pushCheckFindsTheClassicMistakes() throws {
    let scenario = try ScenarioParser(file: "t.yaml").parse("""
    apps:
      - bundle: com.example.chat
        backgroundModes: [remote-notification]
        on:
          silentPush: [{wait: 2s}]
      - bundle: com.example.phone
        backgroundModes: [voip]
        on:
          voipPush: [{wait: 1s}, reportCall]
      - bundle: com.example.good
        backgroundModes: [voip, remote-notification]
        on:
          silentPush: [{wait: 2s}, {complete: newData}]
          voipPush: [reportCall, {wait: 1s}]
    timeline:
      - {at: 1m, push: {app: com.example.chat, type: background}}
      - {at: 2m, push: {app: com.example.chat, type: background, priority: 5}}
    """)
    let messages = PushCheck.findings(scenario).map(\.message)
    #expect(messages.count == 3)
    #expect(messages.contains { $0.hasPrefix("com.example.chat: the background push at t.yaml:16:5 has priority 10") })
    #expect(messages.contains { $0.hasPrefix("com.example.chat: the 'silentPush' handler") && $0.contains("never calls 'complete'") })
    #expect(messages.contains { $0.hasPrefix("com.example.phone: the 'voipPush' handler") && $0.contains("only after a 'wait'") })
    #expect(!messages.contains { $0.hasPrefix("com.example.good") })
}

@Test("bgx explain --app (rules §7): the held push and what holds it, what a push now would meet, the throttle spent")
func explainPushes() {
    let (device, app) = chatDevice()
    for _ in 0..<3 { device.push(silent, to: app); device.advance(seconds: 60) }
    var text = device.engine.explainPushes(app: app)
    #expect(text.contains("a background push (priority 5) now would be held: throttled: 3 background pushes in the "
                          + "past hour (at most 3); retried at 0d 01:02:00"))
    #expect(text.contains("throttle: 3 of 3 in the past hour; daily budget: 3 of 24 (resets at 1d 00:02:00)"))
    device.perform(.forceQuit(app))
    device.push(silent, to: app)
    device.advance(by: Time.hours(2))
    text = device.engine.explainPushes(app: app)
    #expect(text.contains("held: a background push (priority 5) since 0d 00:05:00 — held: the user force-quit the app; "
                          + "no background launch until the user opens it"))
    #expect(text.contains("throttle: 0 of 3 in the past hour"))
    let (phone, phoneApp) = phoneDevice { PhoneApp(reportsCalls: false) }
    phone.push(voipPush, to: phoneApp)
    #expect(phone.engine.explainPushes(app: phoneApp).contains("VoIP: 1 of 3 allowed failures to report a call\n"))
}

@Test("rules §7/§4/§10: a push whose launch is killed at once (over the per-process memory limit) leaves nothing for the next process")
func pushLaunchKilledAtOnce() {
    let journal = Journal()
    let (device, app) = chatDevice({ ChatApp(.forgets, journal: journal) }, profile: .documentedPushes)
    device.change(.reboot)
    device.perform(.unlock)
    device.change(.memory(150 * 1024 * 1024))   // limit 82 MB < the app's 100 MB: killed as it launches
    device.push(silent, to: app)
    #expect(device.state(of: app) == .notRunning)
    device.change(.memory(4 * 1024 * 1024 * 1024))
    device.advance(seconds: 5)
    device.perform(.launch(app))
    device.advance(seconds: 60)
    // The next process hears no push meant for the killed one, and is not killed for its completion handler.
    #expect(!journal.entries.contains { $0.hasPrefix("push") })
    #expect(!device.pushStory(of: app).contains { $0.contains("completionHandlerTimeout") })
    #expect(device.state(of: app) == .active)

    var profile = PolicyProfile.modern
    profile.push.relaunchVoIPAppsAtBoot = false
    let (phone, phoneApp) = phoneDevice({ PhoneApp(reportsCalls: false) }, profile: profile)
    phone.change(.reboot)
    phone.perform(.unlock)
    phone.change(.memory(150 * 1024 * 1024))
    phone.push(voipPush, to: phoneApp)
    #expect(phone.state(of: phoneApp) == .notRunning)
    phone.change(.memory(4 * 1024 * 1024 * 1024))
    phone.perform(.launch(phoneApp))
    phone.advance(seconds: 5)
    // No VoIP push handler runs in the user's process, so it is not killed for an unreported call.
    #expect(!phone.pushStory(of: phoneApp).contains { $0.contains("voipCallNotReported") })
    #expect(phone.state(of: phoneApp) == .active)
}
