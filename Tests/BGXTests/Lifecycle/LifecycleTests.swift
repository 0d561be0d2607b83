import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

// MARK: - Test support shared by the BGX test files

/// What app code saw, written down by the app itself (a process forgets
/// everything when it ends; the journal is the test's, so it survives).
final class Journal {
    var entries: [String] = []
    func write(_ entry: String) { entries.append(entry) }
}

extension SimulatedDevice {
    /// The trace of one app (or the device-wide events, for nil) as short
    /// lines — `"25 bgtask.expire 1"`, `"30 terminate backgroundTaskTimeout"` —
    /// so that a test reads as the story the rule tells. `only` keeps the
    /// listed kinds.
    func story(of app: AppID?, only kinds: Set<String>? = nil) -> [String] {
        let renderer = self.renderer
        return events(of: app)
            .filter { kinds?.contains($0.kindName) ?? true }
            .map { storyLine($0, renderer: renderer) }
    }

    /// Every event of every app (and the device), in order, as story lines
    /// prefixed with the app's bundle identifier.
    func fullStory(only kinds: Set<String>? = nil) -> [String] {
        let renderer = self.renderer
        return trace
            .filter { kinds?.contains($0.kindName) ?? true }
            .map { event in
                let who = event.app.map { renderer.appNames[Int($0.index)] } ?? "device"
                return who + " " + storyLine(event, renderer: renderer)
            }
    }

    /// The `terminate` events of an app: (time in seconds, reason, code, detail).
    func terminations(of app: AppID) -> [(t: Double, reason: String, code: String?, detail: String)] {
        let renderer = self.renderer
        return events(of: app).compactMap { event in
            switch event.kind {
            case let .terminate(reason, detail):
                return (Time.toSeconds(event.time), reason.description, reason.code, renderer.names.text(detail))
            case let .memoryKill(kill):   // rules §10: a jetsam kill is a terminate line too
                return (Time.toSeconds(event.time), "memoryPressure", nil, kill.detail)
            default:
                return nil
            }
        }
    }

    /// The states an app passed through, in order (from the trace).
    func statesVisited(by app: AppID) -> [ProcessState] {
        events(of: app).compactMap { event in
            guard case let .state(_, to, _) = event.kind else { return nil }
            return to
        }
    }
}

func storyLine(_ event: TraceEvent, renderer: TraceRenderer) -> String {
    let t = Time.format(event.time)
    let body: String
    switch event.kind {
    case let .state(from, to, reason):
        body = "state \(from)→\(to) (\(reason))"
    case let .launch(cause):
        body = "launch \(cause)"
    case let .callback(callback), let .callbackOnQueue(callback):
        switch callback {
        case let .backgroundTaskExpired(id): body = "callback backgroundTaskExpired \(id)"
        case let .localNotification(id), let .notificationResponse(id):
            body = "callback \(callback.name) \(renderer.names.notification(id))"
        default: body = "callback \(callback.name)"
        }
    case let .user(action):
        body = "user \(action.rawValue)"
    case let .bgtaskBegin(id, name):
        body = "bgtask.begin \(id) \(renderer.names.text(name))"
    case let .bgtaskEnd(id):
        body = "bgtask.end \(id)"
    case let .bgtaskExpire(id, _):
        body = "bgtask.expire \(id)"
    case let .bgtaskInvalid(name, reason):
        body = "bgtask.invalid \(renderer.names.text(name)): \(renderer.names.text(reason))"
    case let .terminate(reason, _):
        body = "terminate \(reason)"
    case let .memoryKill(kill):
        body = "terminate memoryPressure (\(kill.cause), \(kill.band) band)"
    case let .log(message):
        body = "log \(renderer.names.text(message))"
    case let .device(property, value):
        body = "device \(renderer.names.text(property))=\(renderer.names.text(value))"
    case let .notificationSchedule(id, _, _):
        body = "notification.schedule \(renderer.names.notification(id))"
    case let .notificationDeliver(id, toApp, _, _, _, _):
        body = "notification.deliver \(renderer.names.notification(id)) to \(toApp ? "app" : "user")"
    case let .notificationTap(id, _):
        body = "notification.tap \(renderer.names.notification(id))"
    case let .notificationDrop(id, _):
        body = "notification.drop \(renderer.names.notification(id))"
    default:
        body = event.kindName + " " + renderer.fields(of: event).map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }
    return t + " " + body
}

/// The lifecycle kinds most tests tell their story with.
let lifecycleKinds: Set<String> = ["state", "callback", "launch", "terminate"]

/// An app that does nothing but note each callback it gets, and the state it
/// sees itself in — the plainest iOS app there is.
final class PlainApp: ApplicationDelegate {
    let journal: Journal
    init(_ journal: Journal = Journal()) { self.journal = journal }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("didFinishLaunching options=\(options.map { "\($0.cause)" } ?? "nil") state=\(application.applicationState)")
        return true
    }
    func applicationDidBecomeActive(_ application: Application) {
        journal.write("didBecomeActive state=\(application.applicationState)")
    }
    func applicationWillResignActive(_ application: Application) {
        journal.write("willResignActive state=\(application.applicationState)")
    }
    func applicationDidEnterBackground(_ application: Application) {
        journal.write("didEnterBackground state=\(application.applicationState)")
    }
    func applicationWillEnterForeground(_ application: Application) {
        journal.write("willEnterForeground state=\(application.applicationState)")
    }
    func applicationWillTerminate(_ application: Application) {
        journal.write("willTerminate")
    }
}

/// Saves the user's document when it goes to the background — on the main
/// thread, synchronously, taking `saveSeconds` of CPU.
final class SlowSaveApp: ApplicationDelegate {
    let saveSeconds: Double
    let journal: Journal
    init(saveSeconds: Double, journal: Journal = Journal()) {
        self.saveSeconds = saveSeconds
        self.journal = journal
    }
    func applicationDidEnterBackground(_ application: Application) {
        Runtime.work(seconds: saveSeconds)   // writes the whole database on the main thread
        journal.write("saved")
    }
}

/// Starts an upload when it goes to the background and protects it with a
/// background task, the way Apple's sample code does.
final class UploadApp: ApplicationDelegate {
    let uploadSeconds: Double
    let journal: Journal
    var uploadTask: BackgroundTaskIdentifier = .invalid

    init(uploadSeconds: Double, journal: Journal = Journal()) {
        self.uploadSeconds = uploadSeconds
        self.journal = journal
    }

    func applicationDidEnterBackground(_ application: Application) {
        uploadTask = application.beginBackgroundTask(withName: "upload") {
            self.journal.write("upload expired")
            application.endBackgroundTask(self.uploadTask)
            self.uploadTask = .invalid
        }
        Runtime.asyncAfter(seconds: uploadSeconds) {   // the network call
            self.journal.write("upload finished")
            guard self.uploadTask != .invalid else { return }
            application.endBackgroundTask(self.uploadTask)
            self.uploadTask = .invalid
        }
    }
    func applicationWillTerminate(_ application: Application) {
        journal.write("willTerminate")
    }
}

func manifest(_ bundle: String, exitsOnSuspend: Bool = false) -> AppManifest {
    AppManifest(bundleIdentifier: bundle, exitsOnSuspend: exitsOnSuspend)
}

func deviceState(multitasking: Bool = true, passcode: Bool = true, locked: Bool = false) -> DeviceState {
    var state = DeviceState()
    state.multitasking = multitasking
    state.passcode = passcode
    state.locked = locked
    return state
}

// MARK: - rules §1

@Suite("rules §1 — app process states and lifecycle")
struct LifecycleTests {

    @Test("rules §1: a user launch goes notRunning → inactive → active, didFinishLaunching then didBecomeActive, cause user")
    func userLaunchOrder() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.notes")) { PlainApp(journal) }

        device.advance(seconds: 3)
        device.perform(.launch(app))

        #expect(device.story(of: app, only: lifecycleKinds) == [
            "3 launch user",
            "3 state notRunning→inactive (launch)",
            "3 callback didFinishLaunching",
            "3 state inactive→active (became active)",
            "3 callback didBecomeActive",
        ])
        // A tap on the icon carries no launch options; the app sees itself
        // inactive while launching and active afterwards.
        #expect(journal.entries == ["didFinishLaunching options=nil state=inactive", "didBecomeActive state=active"])
        #expect(device.state(of: app) == .active)
        #expect(device.engine.frontApp == app)
        #expect(device.traceLines.contains(
            #"{"t": 3, "app": "com.example.notes", "kind": "callback", "name": "didFinishLaunching", "launchOptions": "user"}"#))
    }

    @Test("rules §1: home → willResignActive → didEnterBackground → suspended (reason \"no assertions\")")
    func homeSuspends() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.notes")) { PlainApp(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 60)

        device.perform(.home)

        #expect(device.story(of: app, only: lifecycleKinds).suffix(5) == [
            "60 state active→inactive (resigned active)",
            "60 callback willResignActive",
            "60 state inactive→background (entered the background)",
            "60 callback didEnterBackground",
            "60 state background→suspended (no assertions)",
        ])
        #expect(journal.entries.suffix(2) == ["willResignActive state=inactive", "didEnterBackground state=background"])
        #expect(device.state(of: app) == .suspended)
        #expect(device.engine.frontApp == nil)
        #expect(device.traceLines.last ==
            #"{"t": 60, "app": "com.example.notes", "kind": "state", "from": "background", "to": "suspended", "reason": "no assertions"}"#)
    }

    @Test("rules §1: switching apps sends the app in front through willResignActive → didEnterBackground")
    func appSwitchSendsFrontAppToBackground() {
        let device = SimulatedDevice()
        let mail = device.install(manifest("com.example.mail")) { PlainApp() }
        let maps = device.install(manifest("com.example.maps")) { PlainApp() }
        device.perform(.launch(mail))
        device.advance(seconds: 10)

        device.perform(.switchTo(maps))

        #expect(device.story(of: mail, only: lifecycleKinds).suffix(5) == [
            "10 state active→inactive (resigned active)",
            "10 callback willResignActive",
            "10 state inactive→background (entered the background)",
            "10 callback didEnterBackground",
            "10 state background→suspended (no assertions)",
        ])
        #expect(device.state(of: maps) == .active)
        #expect(device.engine.frontApp == maps)
    }

    @Test("rules §1: returning to a suspended app goes suspended → background → inactive → active with willEnterForeground, didBecomeActive")
    func returnFromSuspension() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.notes")) { PlainApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)

        device.perform(.launch(app))

        #expect(device.story(of: app, only: lifecycleKinds).suffix(5) == [
            "100 state suspended→background (resumed)",
            "100 state background→inactive (entering the foreground)",
            "100 callback willEnterForeground",
            "100 state inactive→active (became active)",
            "100 callback didBecomeActive",
        ])
        // The same process: no second launch, no second didFinishLaunching.
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        #expect(journal.entries.suffix(2) == ["willEnterForeground state=inactive", "didBecomeActive state=active"])
    }

    @Test("rules §1: a suspended app runs no code — its timer waits until it runs again")
    func suspendedAppRunsNoCode() {
        final class PollingApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                Runtime.asyncAfter(seconds: 10) {   // no background task protects this
                    self.journal.write("poll at \(Runtime.now.timeIntervalSince1970 - 1_767_571_200)")
                }
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.poller")) { PollingApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 300)
        #expect(device.state(of: app) == .suspended)
        #expect(journal.entries.isEmpty)
        #expect(device.story(of: app, only: ["callback"]).last == "0 callback didEnterBackground")

        device.perform(.launch(app))
        #expect(journal.entries == ["poll at 300.0"])
    }

    @Test("rules §1: a system launch goes notRunning → background, never inactive or active (Engine)")
    func systemLaunchIntoBackground() {
        var engine = Engine()
        let app = engine.install(manifest("com.example.feed"))
        var directives: [Directive] = []

        engine.launch(app, cause: .fetch)
        engine.takeDirectives(into: &directives)
        #expect(directives == [.launch(app, .fetch), .deliver(app, .didFinishLaunching(.fetch))])
        #expect(engine.state(of: app) == .background)

        engine.returned(app)   // didFinishLaunching returns
        engine.takeDirectives(into: &directives)
        #expect(directives == [.suspend(app)])

        let states = engine.trace.compactMap { event -> String? in
            guard case let .state(from, to, _) = event.kind else { return nil }
            return "\(from)→\(to)"
        }
        #expect(states == ["notRunning→background", "background→suspended"])
        #expect(engine.trace.contains(TraceEvent(time: 0, app: app, kind: .launch(cause: .fetch))))
        #expect(engine.frontApp == nil)
    }

    @Test("rules §1: didEnterBackground busy for more than 5 s → terminated, reason watchdog (0x8badf00d), at exactly t + 5 s")
    func didEnterBackgroundWatchdog() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.db")) { SlowSaveApp(saveSeconds: 6, journal: journal) }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        device.perform(.home)
        device.advance(seconds: 4.999)
        #expect(device.state(of: app) == .background)

        device.advance(seconds: 60)

        #expect(device.story(of: app, only: lifecycleKinds).suffix(4) == [
            "10 state inactive→background (entered the background)",
            "10 callback didEnterBackground",
            "15 terminate watchdog",
            "15 state background→notRunning (terminated)",
        ])
        let kills = device.terminations(of: app)
        #expect(kills.count == 1)
        #expect(kills.first?.code == "0x8badf00d")
        #expect(kills.first?.detail == "didEnterBackground did not return within 5s")
    }

    @Test("rules §1: didEnterBackground that returns within 5 s is not killed")
    func didEnterBackgroundWithinWatchdog() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.db")) { SlowSaveApp(saveSeconds: 4.9) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(device.terminations(of: app).isEmpty)
        #expect(device.story(of: app, only: ["state"]).last == "4.9 state background→suspended (no assertions)")
    }

    @Test("rules §1: a launch that takes more than 20 s → terminated, reason watchdog, at exactly 20 s, never active")
    func launchWatchdog() {
        final class HeavyLaunchApp: ApplicationDelegate {
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                Runtime.work(seconds: 21)   // migrates the database synchronously
                return true
            }
        }
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.heavy")) { HeavyLaunchApp() }
        device.advance(seconds: 1)
        device.perform(.launch(app))
        device.advance(seconds: 19.999)
        #expect(device.state(of: app) == .inactive)
        device.advance(seconds: 60)

        #expect(device.story(of: app, only: lifecycleKinds) == [
            "1 launch user",
            "1 state notRunning→inactive (launch)",
            "1 callback didFinishLaunching",
            "21 terminate watchdog",
            "21 state inactive→notRunning (terminated)",
        ])
        #expect(device.terminations(of: app).first?.detail == "didFinishLaunching did not return within 20s")
        #expect(!device.statesVisited(by: app).contains(.active))
    }

    @Test("rules §1: willTerminate busy for more than 5 s → terminated, reason watchdog, at exactly t + 5 s")
    func willTerminateWatchdog() {
        final class SlowGoodbyeApp: ApplicationDelegate {
            func applicationWillTerminate(_ application: Application) {
                Runtime.work(seconds: 8)   // flushes analytics synchronously
            }
        }
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.legacy", exitsOnSuspend: true)) { SlowGoodbyeApp() }
        device.perform(.launch(app))
        device.advance(seconds: 7)
        device.perform(.home)
        device.advance(seconds: 30)

        #expect(device.story(of: app, only: lifecycleKinds).suffix(3) == [
            "7 callback willTerminate",
            "12 terminate watchdog",
            "12 state inactive→notRunning (terminated)",
        ])
        #expect(device.terminations(of: app).map(\.detail) == ["willTerminate did not return within 5s"])
    }

    @Test("rules §1: UIApplicationExitsOnSuspend — home → willTerminate → terminated (exitsOnSuspend), never background")
    func exitsOnSuspend() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.legacy", exitsOnSuspend: true)) { PlainApp(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 5)
        device.perform(.home)
        device.advance(seconds: 5)
        device.perform(.launch(app))

        #expect(device.story(of: app, only: lifecycleKinds) == [
            "0 launch user",
            "0 state notRunning→inactive (launch)",
            "0 callback didFinishLaunching",
            "0 state inactive→active (became active)",
            "0 callback didBecomeActive",
            "5 state active→inactive (resigned active)",
            "5 callback willResignActive",
            "5 callback willTerminate",
            "5 terminate exitsOnSuspend",
            "5 state inactive→notRunning (terminated)",
            // Coming back is a fresh launch.
            "10 launch user",
            "10 state notRunning→inactive (launch)",
            "10 callback didFinishLaunching",
            "10 state inactive→active (became active)",
            "10 callback didBecomeActive",
        ])
        let visited = Set(device.statesVisited(by: app))
        #expect(visited == [.inactive, .active, .notRunning])
        #expect(!journal.entries.contains { $0.hasPrefix("didEnterBackground") })
    }

    @Test("rules §1: without multitasking no app enters the background, and beginBackgroundTask answers .invalid")
    func multitaskingUnsupported() {
        final class CautiousApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidBecomeActive(_ application: Application) {
                let task = application.beginBackgroundTask(withName: "sync") {}
                journal.write("task=\(task)")
            }
            func applicationWillTerminate(_ application: Application) { journal.write("willTerminate") }
        }
        let device = SimulatedDevice(device: deviceState(multitasking: false))
        let journal = Journal()
        let app = device.install(manifest("com.example.old")) { CautiousApp(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 2)
        device.perform(.home)
        device.advance(seconds: 60)

        #expect(journal.entries == ["task=0", "willTerminate"])
        #expect(device.story(of: app, only: ["bgtask.invalid"]) ==
                ["0 bgtask.invalid sync: this device does not support multitasking"])
        #expect(!device.statesVisited(by: app).contains(.background))
        #expect(!device.statesVisited(by: app).contains(.suspended))
        #expect(device.story(of: app, only: ["terminate", "state"]).suffix(2) == [
            "2 terminate multitaskingUnsupported",
            "2 state inactive→notRunning (terminated)",
        ])
    }

    @Test("rules §1: force-quitting a suspended app terminates it (userForceQuit) without willTerminate")
    func forceQuitSuspended() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.notes")) { PlainApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 50)
        device.perform(.forceQuit(app))

        #expect(device.story(of: app).suffix(3) == [
            "50 user forceQuit",
            "50 terminate userForceQuit",
            "50 state suspended→notRunning (terminated)",
        ])
        #expect(!journal.entries.contains("willTerminate"))
        #expect(!device.story(of: app, only: ["callback"]).contains { $0.hasSuffix("willTerminate") })
        #expect(device.engine.isForceQuit(app))
    }

    @Test("rules §1: force-quitting an app running in the background delivers willTerminate, then terminates it (userForceQuit)")
    func forceQuitRunningInBackground() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.upload")) { UploadApp(uploadSeconds: 20, journal: journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 3)
        #expect(device.state(of: app) == .background)

        device.perform(.forceQuit(app))
        device.advance(seconds: 60)

        #expect(device.story(of: app).suffix(4) == [
            "3 user forceQuit",
            "3 callback willTerminate",
            "3 terminate userForceQuit",
            "3 state background→notRunning (terminated)",
        ])
        // The process is gone: its network completion never runs.
        #expect(journal.entries == ["willTerminate"])
    }

    @Test("rules §1: lock sends the front app to the background; unlock returns to the app that was in front")
    func lockUnlockReturnsToFrontApp() {
        let device = SimulatedDevice()
        let mail = device.install(manifest("com.example.mail")) { PlainApp() }
        let maps = device.install(manifest("com.example.maps")) { PlainApp() }
        device.perform(.launch(mail))
        device.advance(seconds: 5)
        device.perform(.switchTo(maps))
        device.advance(seconds: 5)

        device.perform(.lock)
        #expect(device.engine.device.locked)
        #expect(device.state(of: maps) == .suspended)
        #expect(device.engine.frontApp == nil)
        device.advance(seconds: 90)
        device.perform(.unlock)

        #expect(!device.engine.device.locked)
        #expect(device.story(of: nil, only: ["device", "user"]) == [
            "10 user lock", "10 device locked=true", "100 user unlock", "100 device locked=false",
        ])
        #expect(device.story(of: maps, only: lifecycleKinds).suffix(5) == [
            "100 state suspended→background (resumed)",
            "100 state background→inactive (entering the foreground)",
            "100 callback willEnterForeground",
            "100 state inactive→active (became active)",
            "100 callback didBecomeActive",
        ])
        #expect(device.engine.frontApp == maps)
        #expect(device.state(of: mail) == .suspended)   // the earlier app stays where it was
    }

    @Test("rules §1: unlocking after going home first brings no app to the front")
    func unlockWithNothingInFront() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.mail")) { PlainApp() }
        device.perform(.launch(app))
        device.perform(.home)
        device.perform(.lock)
        device.advance(seconds: 30)
        device.perform(.unlock)
        #expect(device.state(of: app) == .suspended)
        #expect(device.engine.frontApp == nil)
    }

    @Test("rules §1: unlock returns only to the app in front at the last lock — not to one from an earlier lock")
    func unlockForgetsEarlierLocks() {
        let device = SimulatedDevice()
        let mail = device.install(manifest("com.example.mail")) { PlainApp() }
        let camera = device.install(manifest("com.example.camera")) { PlainApp() }
        device.perform(.launch(mail))
        device.perform(.lock)              // mail was in front
        device.advance(seconds: 10)
        device.perform(.launch(camera))    // launched from the lock screen: unlocks, camera in front
        device.advance(seconds: 10)
        device.perform(.home)
        device.perform(.lock)              // nothing in front now
        device.advance(seconds: 10)
        device.perform(.unlock)

        #expect(device.engine.frontApp == nil)
        #expect(device.state(of: mail) == .suspended)
        #expect(device.story(of: mail, only: ["callback"]).last == "0 callback didEnterBackground")
    }

    @Test("rules §1/§11: reboot terminates every running app and, with a passcode, leaves the device locked")
    func rebootTerminatesEverything() {
        let device = SimulatedDevice(device: deviceState(passcode: true))
        let notes = device.install(manifest("com.example.notes")) { PlainApp() }
        let upload = device.install(manifest("com.example.upload")) { UploadApp(uploadSeconds: 20) }
        let game = device.install(manifest("com.example.game")) { PlainApp() }
        let music = device.install(manifest("com.example.music")) { PlainApp() }
        device.perform(.launch(notes))
        device.perform(.launch(game))
        device.perform(.forceQuit(game))
        device.perform(.launch(upload))
        device.perform(.launch(music))   // upload goes to the background with its task open
        device.advance(seconds: 4)
        #expect(device.state(of: notes) == .suspended)
        #expect(device.state(of: upload) == .background)
        #expect(device.state(of: music) == .active)

        device.change(.reboot)

        for app in [notes, upload, music] {
            #expect(device.state(of: app) == .notRunning)
            #expect(device.story(of: app, only: ["terminate", "state"]).suffix(2).first == "4 terminate reboot")
            #expect(device.terminations(of: app).last?.detail == "the device restarted")
        }
        #expect(device.terminations(of: game).map(\.reason) == ["userForceQuit"])   // not terminated twice
        #expect(!device.engine.isForceQuit(game))   // a reboot forgets force-quits
        #expect(device.engine.device.locked)
        #expect(!device.engine.device.unlockedSinceBoot)
        #expect(device.engine.frontApp == nil)
        #expect(device.story(of: nil, only: ["device"]) == ["4 device reboot=true", "4 device locked=true"])

        device.advance(seconds: 60)
        device.perform(.unlock)
        #expect(device.story(of: nil, only: ["device"]).suffix(2) ==
                ["64 device locked=false", "64 device firstUnlockSinceBoot=true"])
        #expect(device.engine.frontApp == nil)   // nothing was in front: nothing comes back
        #expect(device.state(of: music) == .notRunning)
    }
}
