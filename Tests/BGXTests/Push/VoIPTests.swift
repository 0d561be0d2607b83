import BGXApp
@testable import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A calling app written as on iOS 13+: PushKit at launch, CallKit for the call.
final class PhoneApp: ApplicationDelegate, PKPushRegistryDelegate {
    let reportsCalls: Bool
    let journal: Journal
    var registry: PKPushRegistry?
    var provider: CXProvider?

    init(reportsCalls: Bool = true, journal: Journal = Journal()) {
        self.reportsCalls = reportsCalls
        self.journal = journal
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launched \(options.map { "\($0.cause)" } ?? "by the user")")
        provider = CXProvider(configuration: CXProviderConfiguration())
        let registry = PKPushRegistry(queue: nil)
        registry.delegate = self
        registry.desiredPushTypes = [.voIP]
        self.registry = registry
        return true
    }

    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        journal.write("voip token \(pushCredentials.token.count) bytes")
    }

    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                      for type: PKPushType, completion: @escaping () -> Void) {
        journal.write("voip push")
        if reportsCalls {
            let update = CXCallUpdate()
            update.remoteHandle = CXHandle(type: .phoneNumber, value: "+15551234567")
            provider?.reportNewIncomingCall(with: UUID(), update: update) { error in
                self.journal.write("call reported \(error == nil ? "ok" : "with an error")")
            }
        }
        completion()
    }
}

let phoneManifest = AppManifest(bundleIdentifier: "com.example.phone", backgroundModes: [.voip])
let voipPush = Push(type: .voip, priority: 10)

/// The person opens the phone app at 60 s and leaves it at 120 s (suspended from then on).
func phoneDevice(_ make: @escaping () -> ApplicationDelegate, manifest: AppManifest = phoneManifest,
                 profile: PolicyProfile = .modern) -> (device: SimulatedDevice, app: AppID) {
    usedOnceDevice(manifest, profile: profile, delegate: make)
}

@Suite("rules §4 — VoIP")
struct VoIPTests {

    @Test("rules §4: a VoIP push wakes the app; reporting the call in the handler keeps it alive")
    func reportedCall() {
        let journal = Journal()
        let (device, app) = phoneDevice { PhoneApp(journal: journal) }
        device.advance(seconds: 60)
        device.push(voipPush, to: app)
        device.advance(seconds: 1)
        #expect(device.pushStory(of: app) == ["60 launch user", "180 push.deliver voip 10 app", "180 call.report"])
        #expect(journal.entries == ["launched by the user", "voip token 17 bytes", "voip push", "call reported ok"])
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4 [D]: a VoIP push launches a terminated app (cause voipPush)")
    func launchesApp() {
        let journal = Journal()
        var profile = PolicyProfile.modern
        profile.push.relaunchVoIPAppsAtBoot = false
        let (device, app) = phoneDevice({ PhoneApp(journal: journal) }, profile: profile)
        device.change(.reboot)
        device.perform(.unlock)
        device.push(voipPush, to: app)
        #expect(device.pushStory(of: app).suffix(3) == ["120 push.deliver voip 10 app", "120 launch voipPush", "120 call.report"])
        #expect(journal.entries.suffix(4).sorted()
                == ["call reported ok", "launched voipPush", "voip push", "voip token 17 bytes"])
    }

    @Test("rules §4 [D]: a handler that returns without reporting a call is killed (0xbaadca11); after 3 failures no more VoIP pushes")
    func killedThenCutOff() {
        let (device, app) = phoneDevice { PhoneApp(reportsCalls: false) }
        for _ in 0..<4 {
            device.advance(seconds: 60)
            device.push(voipPush, to: app)
        }
        let kills = device.terminations(of: app)
        #expect(kills.map(\.reason) == ["voipCallNotReported", "voipCallNotReported", "voipCallNotReported"])
        #expect(kills.allSatisfy { $0.code == "0xbaadca11" })
        #expect(kills[0].detail.hasPrefix("Killing app because it never posted an incoming call to the system after "
                                          + "receiving a PushKit VoIP push"))
        #expect(device.pushStory(of: app).last == "360 push.drop voip 10 dropped: com.example.phone will not be launched "
                + "because it failed to report an incoming call too many times (3 times)")
    }

    @Test("rules §4: the rule is iOS 13's — on ios12 an unreported VoIP push is not a kill; ios6 has no PushKit")
    func olderProfiles() {
        let (device, app) = phoneDevice({ PhoneApp(reportsCalls: false) }, profile: .ios12)
        device.push(voipPush, to: app)
        #expect(device.terminations(of: app).isEmpty)
        let (old, oldApp) = phoneDevice({ PhoneApp(reportsCalls: false) }, profile: .ios6)
        old.push(voipPush, to: oldApp)
        #expect(old.pushStory(of: oldApp).last == "120 push.drop voip 10 dropped: PushKit VoIP pushes exist from iOS 8 on")
    }

    @Test("rules §4/§11: VoIP pushes need the voip mode; unlike every other push they launch a force-quit app (iOS 8+)")
    func modeAndForceQuit() {
        let (device, app) = phoneDevice({ PhoneApp() }, manifest: AppManifest(bundleIdentifier: "com.example.phone"))
        device.push(voipPush, to: app)
        #expect(device.pushStory(of: app).last == "120 push.drop voip 10 dropped: UIBackgroundModes lacks 'voip'")
        let (quit, quitApp) = phoneDevice { PhoneApp() }
        quit.perform(.forceQuit(quitApp))
        quit.push(voipPush, to: quitApp)
        #expect(quit.pushStory(of: quitApp).suffix(3) == ["120 push.deliver voip 10 app", "120 launch voipPush", "120 call.report"])
        var strict = PolicyProfile.modern
        strict.launchVoIPPushAfterForceQuit = false
        let (held, heldApp) = phoneDevice({ PhoneApp() }, profile: strict)
        held.perform(.forceQuit(heldApp))
        held.push(voipPush, to: heldApp)
        #expect(held.pushStory(of: heldApp).last == "120 push.drop voip 10 dropped: the user force-quit the app; "
                + "no background launch until the user opens it")
    }

    @Test("rules §4: traffic on the VoIP socket wakes a suspended voip app; a terminated app has no socket")
    func socketWakes() {
        let journal = Journal()
        final class SocketApp: ApplicationDelegate {
            let journal: Journal
            var stream: VoIPSocketStream?
            init(_ journal: Journal) { self.journal = journal }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                let stream = VoIPSocketStream()
                stream.onEvent = { _ in self.journal.write("bytes while \(application.applicationState)") }
                stream.open()
                self.stream = stream
                return true
            }
        }
        let (device, app) = phoneDevice { SocketApp(journal) }
        device.advance(seconds: 60)
        device.voipSocketTraffic(to: app)
        #expect(journal.entries == ["bytes while background"])
        #expect(device.state(of: app) == .suspended)
        device.perform(.forceQuit(app))
        device.voipSocketTraffic(to: app)
        #expect(device.pushStory(of: app).suffix(3) == ["180 voip.wake socket", "180 terminate userForceQuit",
                                                        "180 voip.drop socket: the app is not running: its VoIP socket is closed"])
    }

    @Test("rules §4 [D]: setKeepAliveTimeout refuses less than 600 s; 600 s runs the handler every 600 s in the background")
    func keepAlive() {
        let journal = Journal()
        final class KeepAliveApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                journal.write("599 s: \(application.setKeepAliveTimeout(599) { })")
                journal.write("600 s: \(application.setKeepAliveTimeout(600) { self.journal.write("keep-alive") })")
            }
        }
        let (device, app) = phoneDevice { KeepAliveApp(journal) }
        device.advance(seconds: 1800)
        #expect(journal.entries == ["599 s: false", "600 s: true", "keep-alive", "keep-alive", "keep-alive"])
        #expect(device.pushStory(of: app).filter { $0.contains("voip.wake") }
                == ["720 voip.wake keepAlive", "1320 voip.wake keepAlive", "1920 voip.wake keepAlive"])
        #expect(device.story(of: app, only: ["log"]).first?.contains("setKeepAliveTimeout: 9m59s is less than the minimum of 10m; the handler was not installed") == true)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4/§11: VoIP apps are relaunched at boot — after the first unlock when there is a passcode")
    func relaunchedAtBoot() {
        let (device, app) = phoneDevice { PhoneApp() }
        let other = device.install(chatManifest, delegate: { ChatApp() })
        device.change(.reboot)
        #expect(device.state(of: app) == .notRunning)
        device.advance(seconds: 30)
        device.perform(.unlock)
        #expect(device.pushStory(of: app).last == "150 launch boot")
        #expect(device.state(of: app) == .suspended)
        #expect(device.state(of: other) == .notRunning)
        device.change(.passcode(false))
        device.change(.reboot)
        #expect(device.pushStory(of: app).last == "150 launch boot")
        #expect(device.events(of: app).filter { if case .launch(.boot) = $0.kind { true } else { false } }.count == 2)
    }
}

