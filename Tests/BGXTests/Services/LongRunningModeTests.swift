import BGXApp
import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

// MARK: - Apps written against BGXApp, as on iOS

/// A music player: sets the playback category and plays as it launches.
final class MusicApp: ApplicationDelegate {
    let journal: Journal
    let seconds: Double?
    let category: AudioSession.Category
    let options: AudioSession.CategoryOptions
    var player: AudioPlayer?
    init(_ journal: Journal, seconds: Double?, category: AudioSession.Category = .playback,
         options: AudioSession.CategoryOptions = []) {
        self.journal = journal
        self.seconds = seconds
        self.category = category
        self.options = options
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let session = AudioSession.sharedInstance()
        try? session.setCategory(category, options: self.options)
        session.interruptionHandler = { [journal] in journal.write("interrupted") }
        let player = AudioPlayer()
        self.player = player
        journal.write("play \(player.play(for: seconds))")
        return true
    }
}

/// A location app: starts the services it is given as it launches (a
/// relaunched process must do so again to hear the event, as on iOS).
final class LocationApp: ApplicationDelegate, LocationManagerDelegate {
    let journal: Journal
    let services: Set<LocationService>
    let allowsBackground: Bool
    var manager: LocationManager?
    init(_ journal: Journal, _ services: Set<LocationService>, allowsBackground: Bool = true) {
        self.journal = journal
        self.services = services
        self.allowsBackground = allowsBackground
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launch \(options.map { "\($0.cause)" } ?? "user")")
        let manager = LocationManager()
        manager.delegate = self
        self.manager = manager
        if services.contains(.standard) {
            manager.allowsBackgroundLocationUpdates = allowsBackground
            manager.startUpdatingLocation()
        }
        if services.contains(.significant) { manager.startMonitoringSignificantLocationChanges() }
        if services.contains(.region) { manager.startMonitoring(for: CircularRegion(identifier: "home", radius: 200)) }
        return true
    }
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
        journal.write("fix \(Int(locations[0].metersAlongRoute))")
    }
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) {
        journal.write("enter \(region.identifier)")
    }
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) {
        journal.write("exit \(region.identifier)")
    }
}

/// A glucose meter's app: opens a session to its accessory as it launches;
/// with `uploadSeconds`, each reading is uploaded inside a background task.
final class MeterApp: ApplicationDelegate, AccessorySessionDelegate {
    let journal: Journal
    let uploadSeconds: Double?
    var session: AccessorySession?
    init(_ journal: Journal, uploadSeconds: Double? = nil) {
        self.journal = journal
        self.uploadSeconds = uploadSeconds
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let session = AccessorySession(protocolString: "com.example.meter")
        session.delegate = self
        self.session = session
        return true
    }
    func accessorySessionHasBytesAvailable(_ session: AccessorySession) {
        journal.write("reading")
        guard let seconds = uploadSeconds else { return }
        let application = Application.shared
        var task = BackgroundTaskIdentifier.invalid
        task = application.beginBackgroundTask(withName: "upload")
        Runtime.asyncAfter(seconds: seconds) { application.endBackgroundTask(task) }
    }
    func accessoryDidDisconnect(_ session: AccessorySession) { journal.write("disconnected") }
}

/// A door lock's app: a central manager connected to the lock.
final class DoorLockApp: ApplicationDelegate, CentralManagerDelegate {
    let journal: Journal
    let restoreIdentifier: String?
    var central: CentralManager?
    init(_ journal: Journal, restoreIdentifier: String? = "com.example.doorlock.central") {
        self.journal = journal
        self.restoreIdentifier = restoreIdentifier
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launch \(options.map { "\($0.cause)" } ?? "user")")
        let central = CentralManager(delegate: self, restoreIdentifier: restoreIdentifier)
        central.connect("front door")
        self.central = central
        return true
    }
    func centralManager(_ central: CentralManager, didUpdateValueForPeripheral peripheral: String) {
        journal.write("value from \(peripheral)")
    }
    func centralManager(_ central: CentralManager, didDisconnectPeripheral peripheral: String) {
        journal.write("disconnected \(peripheral)")
    }
}

/// A watch companion: advertises a service a central writes to.
final class CompanionApp: ApplicationDelegate, PeripheralManagerDelegate {
    let journal: Journal
    var peripheral: PeripheralManager?
    init(_ journal: Journal) { self.journal = journal }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launch \(options.map { "\($0.cause)" } ?? "user")")
        let peripheral = PeripheralManager(delegate: self, restoreIdentifier: "com.example.companion.peripheral")
        peripheral.startAdvertising()
        self.peripheral = peripheral
        return true
    }
    func peripheralManagerDidReceiveWrite(_ peripheral: PeripheralManager) { journal.write("write") }
}

func modes(_ bundle: String, _ modes: Set<BackgroundMode>) -> AppManifest {
    AppManifest(bundleIdentifier: bundle, backgroundModes: modes)
}

extension SimulatedDevice {
    func move(_ meters: Int64) {
        schedule(.locationMove(meters: meters), at: now)
        run(until: now)
    }
    func accessoryData(_ app: AppID, _ transport: AccessoryTransport = .accessory) {
        schedule(.accessoryData(app, transport), at: now)
        run(until: now)
    }
    /// The system ends the app (as jetsam would): not a user force-quit.
    func systemKill(_ app: AppID) {
        withEngine { $0.terminate(app, .memoryPressure, detail: "test: purged") }
        run(until: now)
    }
    /// Story lines with plain field values: `"160 location.defer service=significant reason=…"`.
    func serviceStory(of app: AppID, only kinds: Set<String>) -> [String] {
        let renderer = self.renderer
        return events(of: app).filter { kinds.contains($0.kindName) }.map { event in
            if case .state = event.kind { return storyLine(event, renderer: renderer) }
            let fields = renderer.fields(of: event).map { name, value -> String in
                switch value {
                case let .string(s): "\(name)=\(s)"
                case let .number(n): "\(name)=\(Time.format(Time.seconds(n)))"
                case let .bool(b): "\(name)=\(b)"
                }
            }
            return ([Time.format(event.time), event.kindName] + fields).joined(separator: " ")
        }
    }

    func reasons(of app: AppID, kind: String) -> [String] {
        let renderer = self.renderer
        return events(of: app).filter { $0.kindName == kind }.compactMap { event in
            renderer.fields(of: event).first { $0.0 == "reason" }.flatMap {
                if case let .string(s) = $0.1 { return s } else { return nil }
            }
        }
    }
}

// MARK: - Audio

@Suite("rules §4 — audio")
struct BackgroundAudioTests {
    @Test("rules §4: play(for: .infinity) from app code plays (clamped), it does not trap converting to nanoseconds")
    func audioForever() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.music", [.audio])) { MusicApp(journal, seconds: .infinity) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 3600)
        #expect(journal.entries == ["play true"])
        #expect(device.state(of: app) == .background)
    }

    @Test("rules §4: an 'audio' app playing audibly in the background is not suspended; when playback ends it is")
    func audioKeepsRunning() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.music", [.audio])) { MusicApp(journal, seconds: 3600) }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        device.perform(.lock)
        device.advance(seconds: 1800)
        #expect(device.state(of: app) == .background)
        // rules §10: audible audio puts it in jetsam's audio-and-accessory band.
        #expect(device.engine.jetsamBand(of: app) == .audioAndAccessory)
        device.advance(seconds: 3600)
        #expect(device.state(of: app) == .suspended)
        #expect(device.engine.jetsamBand(of: app) == .idle)
        #expect(journal.entries == ["play true"])
        #expect(device.serviceStory(of: app, only: ["audio.stop", "state"]).suffix(2) == [
            "3600 audio.stop reason=playback finished",
            "3600 state background→suspended (no assertions)",
        ])
    }

    @Test("rules §4: without the 'audio' mode, audio stops as the app enters the background (with the reason) and it is suspended")
    func noModeStops() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.podcasts", [])) { MusicApp(journal, seconds: 3600) }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        device.perform(.home)
        #expect(device.state(of: app) == .suspended)
        #expect(!device.engine.isPlayingAudio(app))
        #expect(device.reasons(of: app, kind: "audio.stop") ==
                ["no 'audio' in UIBackgroundModes: audio stops when the app leaves the front"])
    }

    @Test("rules §4: only playback and recording categories sound in the background — soloAmbient stops even with the mode")
    func ambientCategoryStops() {
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.game", [.audio])) {
            MusicApp(Journal(), seconds: nil, category: .soloAmbient)
        }
        device.perform(.launch(app))
        device.perform(.home)
        #expect(device.state(of: app) == .suspended)
        #expect(device.reasons(of: app, kind: "audio.stop").first?.hasPrefix("the soloAmbient category is silenced") == true)
    }

    @Test("rules §4: the foreground app has audio priority — the background player is interrupted (callback) and suspended")
    func foregroundInterrupts() {
        let device = SimulatedDevice()
        let musicJournal = Journal(), mixJournal = Journal()
        let music = device.install(modes("com.example.music", [.audio])) { MusicApp(musicJournal, seconds: nil) }
        let mixer = device.install(modes("com.example.metronome", [.audio])) {
            MusicApp(mixJournal, seconds: nil, options: .mixWithOthers)
        }
        let video = device.install(modes("com.example.video", [])) { MusicApp(Journal(), seconds: 600) }
        device.perform(.launch(music))
        device.perform(.launch(mixer))
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(device.state(of: music) == .background)
        #expect(device.state(of: mixer) == .background)

        device.perform(.launch(video))

        #expect(musicJournal.entries == ["play true", "interrupted"])
        #expect(device.state(of: music) == .suspended)
        #expect(device.reasons(of: music, kind: "audio.stop") ==
                ["interrupted: com.example.video in front started playing audio (the foreground app has audio priority)"])
        // A player that mixes with others is not interrupted.
        #expect(mixJournal.entries == ["play true"])
        #expect(device.state(of: mixer) == .background)
    }

    @Test("rules §4: between background apps the newest non-mixable session wins — the older player is interrupted and suspended")
    func backgroundInterruptsBackground() {
        let device = SimulatedDevice()
        let musicJournal = Journal(), radioJournal = Journal()
        let music = device.install(modes("com.example.music", [.audio])) { MusicApp(musicJournal, seconds: nil) }
        let radio = device.install(modes("com.example.radio", [.audio])) { MusicApp(radioJournal, seconds: nil) }
        device.perform(.launch(music))
        device.perform(.home)
        device.advance(seconds: 60)
        device.withEngine { $0.launch(radio, cause: .fetch) }  // launched into the background by the system
        device.run(until: device.now)
        #expect(radioJournal.entries == ["play true"])
        #expect(musicJournal.entries == ["play true", "interrupted"])
        #expect(device.state(of: music) == .suspended)
        #expect(device.state(of: radio) == .background)
        #expect(device.reasons(of: music, kind: "audio.stop") ==
                ["interrupted: com.example.radio started playing audio that does not mix with others"])
    }

    @Test("rules §4: a background app cannot start audio over the front app's (play() is false, audio.refuse)")
    func backgroundCannotInterrupt() {
        let device = SimulatedDevice()
        let journal = Journal()
        let front = device.install(modes("com.example.video", [])) { MusicApp(Journal(), seconds: nil) }
        let late = device.install(modes("com.example.radio", [.audio])) { MusicApp(journal, seconds: nil) }
        device.perform(.launch(front))
        device.withEngine { $0.launch(late, cause: .fetch) }  // launched into the background by the system
        device.run(until: device.now)
        #expect(journal.entries == ["play false"])
        #expect(device.reasons(of: late, kind: "audio.refuse") ==
                ["com.example.video in front is playing audio: a background app cannot interrupt it (insufficient priority)"])
    }

    @Test("rules §4: stopping the player lets the background app be suspended at once")
    func stopSuspends() {
        let device = SimulatedDevice()
        var musicApp: MusicApp?
        let app = device.install(modes("com.example.music", [.audio])) {
            let m = MusicApp(Journal(), seconds: nil)
            musicApp = m
            return m
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        #expect(device.state(of: app) == .background)
        musicApp?.player?.stop()
        device.run(until: device.now)
        #expect(device.state(of: app) == .suspended)
        #expect(device.reasons(of: app, kind: "audio.stop") == ["stopped by the app"])
    }
}

// MARK: - Location

@Suite("rules §4, §11 — location")
struct LocationTests {
    @Test("rules §4: standard updates keep a 'location' app with allowsBackgroundLocationUpdates running; each move is a fix")
    func standardKeepsRunning() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.navigation", [.location])) { LocationApp(journal, [.standard]) }
        device.perform(.launch(app))
        device.perform(.lock)
        device.advance(seconds: 600)
        device.move(250)
        device.advance(seconds: 600)
        device.move(250)
        #expect(device.state(of: app) == .background)
        #expect(journal.entries == ["launch user", "fix 250", "fix 500"])
        #expect(!device.statesVisited(by: app).contains(.suspended))
    }

    @Test("rules §4/§11: location monitoring started by code running after the app's own exit() is not started — it cannot relaunch the app later")
    func nothingStartsAfterExit() {
        final class ExitingApp: ApplicationDelegate {
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                application.exit()
                LocationManager().startMonitoringSignificantLocationChanges()
                return true
            }
        }
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.quitter", [.location])) { ExitingApp() }
        device.perform(.launch(app))
        device.advance(seconds: 600)
        device.move(800)
        device.advance(seconds: 60)
        let causes = device.trace.compactMap { e -> LaunchCause? in
            if case let .launch(cause) = e.kind, e.app == app { return cause } else { return nil }
        }
        #expect(causes == [.user])
    }

    @Test("rules §4: foreground-only updates (allowsBackgroundLocationUpdates false) stop while the app is suspended")
    func foregroundOnlyStops() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.store", [.location])) {
            LocationApp(journal, [.standard], allowsBackground: false)
        }
        device.perform(.launch(app))
        device.move(100)
        device.perform(.home)
        device.move(100)
        #expect(device.state(of: app) == .suspended)
        #expect(journal.entries == ["launch user", "fix 100"])
        #expect(device.reasons(of: app, kind: "location.drop") ==
                ["allowsBackgroundLocationUpdates is false: standard updates stop while the app is suspended"])
    }

    @Test("rules §4: in ios6 (before allowsBackgroundLocationUpdates) the 'location' mode alone keeps updates running")
    func ios6ModeSuffices() {
        let device = SimulatedDevice(profile: .ios6)
        let journal = Journal()
        let app = device.install(modes("com.example.navigation", [.location])) {
            LocationApp(journal, [.standard], allowsBackground: false)
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.move(100)
        #expect(device.state(of: app) == .background)
        #expect(journal.entries == ["launch user", "fix 100"])
    }

    @Test("rules §4: allowsBackgroundLocationUpdates without the 'location' mode is refused with iOS's message")
    func allowsWithoutMode() {
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.store", [])) { LocationApp(Journal(), [.standard]) }
        device.perform(.launch(app))
        device.perform(.home)
        #expect(device.state(of: app) == .suspended)
        #expect(device.story(of: app, only: ["log"]).first?.contains("CLClientIsBackgroundable") == true)
    }

    @Test("rules §4: a significant change needs ≥ 500 m, comes at most once per 5 min, and wakes a suspended app for ~10 s")
    func significantChange() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.runs", [.location])) { LocationApp(journal, [.significant]) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        device.move(499)
        #expect(journal.entries == ["launch user"])
        device.move(1)
        #expect(journal.entries == ["launch user", "fix 500"])
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 10)
        #expect(device.state(of: app) == .suspended)
        // 60 s later, another 600 m: held back until 5 min after the last fix.
        device.advance(seconds: 50)
        device.move(600)
        #expect(journal.entries.count == 2)
        device.advance(seconds: 239)
        #expect(journal.entries.count == 2)
        device.advance(seconds: 1)
        #expect(journal.entries == ["launch user", "fix 500", "fix 1100"])
        #expect(device.serviceStory(of: app, only: ["location.defer", "location.deliver"]) == [
            "100 location.deliver service=significant event=update",
            "160 location.defer service=significant reason=significant-change fixes come at most once per 5m; "
                + "this one is due at t=400s",
            "400 location.deliver service=significant event=update",
        ])
    }

    @Test("rules §4, §11: a significant change relaunches a system-killed app (launch options: location); the new manager hears it")
    func significantRelaunch() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.runs", [.location])) { LocationApp(journal, [.significant]) }
        device.perform(.launch(app))
        device.perform(.home)
        device.systemKill(app)
        device.advance(seconds: 600)
        device.move(800)
        #expect(journal.entries == ["launch user", "launch location", "fix 800"])
        #expect(device.story(of: app, only: ["launch"]).last == "600 launch location")
        device.advance(seconds: 10)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §11: after a user force-quit a location app is still relaunched in modern and ios12 — not in ios6",
          arguments: [("modern", true), ("ios12", true), ("ios6", false)])
    func forceQuitRelaunch(_ profile: String, _ relaunched: Bool) {
        let device = SimulatedDevice(profile: PolicyProfile.named(profile)!)
        let journal = Journal()
        let app = device.install(modes("com.example.runs", [.location])) { LocationApp(journal, [.significant]) }
        device.perform(.launch(app))
        device.perform(.forceQuit(app))
        device.advance(seconds: 600)
        device.move(800)
        #expect(journal.entries.contains("launch location") == relaunched)
        #expect(device.reasons(of: app, kind: "location.drop") ==
                (relaunched ? [] : ["the user force-quit the app; no background launch until the user opens it"]))
    }

    @Test("rules §11: with a passcode, no location relaunch before the first unlock after a reboot")
    func firstUnlock() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.runs", [.location])) { LocationApp(journal, [.significant]) }
        device.perform(.launch(app))
        device.perform(.home)
        device.change(.reboot)
        device.advance(seconds: 600)
        device.move(800)
        #expect(device.reasons(of: app, kind: "location.drop") == ["the device has not been unlocked since boot"])
        device.perform(.unlock)
        device.advance(seconds: 600)
        device.move(800)
        #expect(journal.entries == ["launch user", "launch location", "fix 1600"])
    }

    @Test("rules §4, §11: leaving and re-entering a region wake the app (~10 s); a killed app is relaunched with cause region")
    func regions() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.geofence", [.location])) { LocationApp(journal, [.region]) }
        device.perform(.launch(app))
        device.perform(.home)
        device.move(150)        // still inside the 200 m region
        device.move(100)        // 250 m out: exit
        #expect(journal.entries == ["launch user", "exit home"])
        device.advance(seconds: 10)
        #expect(device.state(of: app) == .suspended)
        device.systemKill(app)
        device.move(-100)       // back within 200 m: enter
        #expect(journal.entries == ["launch user", "exit home", "launch region", "enter home"])
        #expect(device.story(of: app, only: ["launch"]).last?.hasSuffix("launch region") == true)
    }

    @Test("rules §4: a region radius that is not a finite number fails monitoring with a log (no trap); a huge one is monitored")
    func badRegionRadius() {
        final class OddRegions: ApplicationDelegate {
            var manager: LocationManager?
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                let manager = LocationManager()
                manager.startMonitoring(for: CircularRegion(identifier: "nowhere", radius: .nan))
                manager.startMonitoring(for: CircularRegion(identifier: "everywhere", radius: .infinity))
                manager.startMonitoring(for: CircularRegion(identifier: "planet", radius: 1e300))
                self.manager = manager
                return true
            }
        }
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.odd", [.location])) { OddRegions() }
        device.perform(.launch(app))
        let logs = device.story(of: app, only: ["log"])
        #expect(logs.count == 2)
        #expect(logs.allSatisfy { $0.contains("kCLErrorRegionMonitoringFailure") })
        #expect(device.story(of: app, only: ["location.start"]).count == 1)
    }
}

// MARK: - External accessory and Bluetooth

@Suite("rules §4, §11 — external accessory and Bluetooth")
struct AccessoryTests {
    @Test("rules §4, §10: an accessory session opened in the background without the mode is no assertion — the app's band is the background's, not audio-and-accessory")
    func sessionWithoutModeHoldsNothing() {
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.meter", [.fetch])) { MeterApp(Journal()) }
        device.withEngine { $0.launch(app, cause: .fetch) }   // launched into the background by the system
        device.withEngine { $0.openAccessorySession(for: app, .accessory) }
        #expect(device.state(of: app) == .background)
        #expect(device.engine.jetsamBand(of: app) != .audioAndAccessory)
    }

    @Test("rules §4: with 'external-accessory', new data wakes the suspended app, which has ~10 s before it is suspended again")
    func dataWakes() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.meter", [.externalAccessory])) { MeterApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        #expect(device.state(of: app) == .suspended)
        // rules §10: suspended apps are purged first — an open session is no
        // assertion while the process is suspended (Core Bluetooth's state
        // restoration exists because such apps are ended for memory).
        #expect(device.engine.jetsamBand(of: app) == .idle)
        device.accessoryData(app)
        #expect(journal.entries == ["reading"])
        #expect(device.state(of: app) == .background)
        // Running for the accessory, the session puts it in the audio-and-accessory band.
        #expect(device.engine.jetsamBand(of: app) == .audioAndAccessory)
        device.advance(seconds: 9.9)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 0.1)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4: a background task begun for the data extends the run beyond ~10 s")
    func backgroundTaskExtends() {
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.meter", [.externalAccessory])) { MeterApp(Journal(), uploadSeconds: 25) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        device.accessoryData(app)
        device.advance(seconds: 20)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 5)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4: without the mode the accessory disconnects (callback) as the app leaves the front; data is dropped; it reconnects in front")
    func noModeDisconnects() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.scale", [])) { MeterApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.accessoryData(app)
        #expect(journal.entries == ["disconnected"])
        #expect(device.state(of: app) == .suspended)
        #expect(device.engine.jetsamBand(of: app) == .idle)
        #expect(device.reasons(of: app, kind: "accessory.drop") == [
            "the accessory was disconnected when the app left the front (no 'external-accessory' in UIBackgroundModes)"])
        device.perform(.launch(app))
        device.accessoryData(app)
        #expect(journal.entries == ["disconnected", "reading"])
        #expect(device.story(of: app, only: ["accessory.connect"]).count == 2)
    }

    @Test("rules §4: accessory data never launches a terminated app")
    func accessoryNeverLaunches() {
        let device = SimulatedDevice()
        let app = device.install(modes("com.example.meter", [.externalAccessory])) { MeterApp(Journal()) }
        device.perform(.launch(app))
        device.perform(.home)
        device.systemKill(app)
        device.accessoryData(app)
        #expect(device.state(of: app) == .notRunning)
        #expect(device.reasons(of: app, kind: "accessory.drop") == ["the app is not running; accessory data never launches an app"])
    }

    @Test("rules §4, §11: Bluetooth state restoration relaunches a system-killed app (cause bluetooth), not a force-quit one")
    func bluetoothRestoration() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.doorlock", [.bluetoothCentral])) { DoorLockApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.systemKill(app)
        device.accessoryData(app, .bluetooth)
        #expect(journal.entries == ["launch user", "launch bluetooth", "value from front door"])
        device.advance(seconds: 10)
        #expect(device.state(of: app) == .suspended)
        device.perform(.forceQuit(app))
        device.accessoryData(app, .bluetooth)
        #expect(journal.entries.count == 3)
        #expect(device.reasons(of: app, kind: "accessory.drop") ==
                ["the user force-quit the app; no background launch until the user opens it"])
    }

    @Test("rules §11: no Bluetooth relaunch without a restore identifier, nor in ios6 (before state restoration)",
          arguments: [("modern", false), ("ios6", true)])
    func noRestoration(_ profile: String, _ withIdentifier: Bool) {
        let device = SimulatedDevice(profile: PolicyProfile.named(profile)!)
        let journal = Journal()
        let app = device.install(modes("com.example.doorlock", [.bluetoothCentral])) {
            DoorLockApp(journal, restoreIdentifier: withIdentifier ? "central" : nil)
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.systemKill(app)
        device.accessoryData(app, .bluetooth)
        #expect(device.state(of: app) == .notRunning)
        #expect(device.reasons(of: app, kind: "accessory.drop").first?.hasPrefix(
            "the app is not running and the system keeps no Bluetooth connection") == true)
    }

    @Test("rules §4, §11: a 'bluetooth-peripheral' app is woken for a central's write, and relaunched after a system kill")
    func peripheralRole() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.companion", [.bluetoothPeripheral])) { CompanionApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.accessoryData(app, .bluetooth)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 10)
        #expect(device.state(of: app) == .suspended)
        device.systemKill(app)
        device.accessoryData(app, .bluetooth)
        #expect(journal.entries == ["launch user", "write", "launch bluetooth", "write"])
    }

    @Test("rules §4: without a bluetooth mode the peripheral disconnects when the app leaves the front")
    func bluetoothWithoutMode() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(modes("com.example.doorlock", [])) { DoorLockApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.accessoryData(app, .bluetooth)
        #expect(journal.entries == ["launch user", "disconnected front door"])
        #expect(device.story(of: app, only: ["accessory.drop"]).count == 1)
    }
}

// MARK: - Scenario vocabulary and bgx check

@Suite("rules §4 — scenario vocabulary")
struct LongRunningVocabularyTests {
    func error(_ yaml: String) -> ScenarioError? {
        do {
            _ = try ScenarioRun(try ScenarioParser(file: "bad.yaml").parse(yaml))
            return nil
        } catch {
            return error as? ScenarioError
        }
    }

    @Test("bad values for the rules §4 vocabulary are located errors, with suggestions")
    func badValues() {
        let service = error("apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - startLocation: sigificant\n")
        #expect(service?.location == SourceLocation(file: "bad.yaml", line: 5, column: 26))
        #expect(service?.message == "unknown location service 'sigificant'; did you mean 'significant'?")
        let move = error("apps: [{bundle: a}]\ntimeline:\n  - {at: 1m, location: {moveMeters: far}}\n")
        #expect(move?.location.line == 3)
        #expect(move?.message.contains("moveMeters must be a whole number") == true)
        let play = error("apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - playAudio: {for: forever}\n")
        #expect(play?.message.contains("is not a duration") == true)
        let playKey = error("apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - playAudio: {fr: 1h}\n")
        #expect(playKey?.message == "unknown key in playAudio 'fr'; did you mean 'for'?")
        let stop = error("apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - stopAudio: 5m\n")
        #expect(stop?.message == "'stopAudio' takes no argument")
        let accessory = error("apps: [{bundle: com.example.meter}]\ntimeline:\n  - {at: 1m, accessory: {app: com.example.metr}}\n")
        #expect(accessory?.message == "unknown app 'com.example.metr'; did you mean 'com.example.meter'?")
        let handler = error("apps:\n  - bundle: a\n    on:\n      bluetoth:\n        - work: 1s\n")
        #expect(handler?.message.contains("did you mean 'bluetooth'?") == true)
    }

    @Test("the rules §4 vocabulary parses: playAudio, stopAudio, startLocation, location:, accessory:, bluetooth:")
    func parses() throws {
        let yaml = """
        apps:
          - bundle: com.example.a
            backgroundModes: [audio, location, external-accessory, bluetooth-central]
            on:
              didFinishLaunching: [playAudio, {playAudio: {for: 1h}}, stopAudio, {stopAudio: true},
                                   {startLocation: region}, {stopLocation: standard}]
              location: [{work: 1s}]
              accessory: [{work: 1s}]
              bluetooth: [{work: 1s}]
        timeline:
          - {at: 1m, location: {moveMeters: -300}}
          - {at: 2m, accessory: {app: com.example.a}}
          - {at: 3m, bluetooth: {app: com.example.a}}
        expect:
          - {kind: location.deliver, service: region, event: exit, region: region, count: 0}
        """
        let scenario = try ScenarioParser(file: "t.yaml").parse(yaml)
        let actions = scenario.apps[0].handlers[.didFinishLaunching]!.map(\.action)
        #expect(actions == [.playAudio(nil), .playAudio(Time.hours(1)), .stopAudio, .stopAudio,
                            .startLocation(.region), .stopLocation(.standard)])
        #expect(scenario.timeline.count == 3)
        #expect(ScenarioRun.unsupportedFeatures(scenario).isEmpty)
    }

    @Test("rules §3: bgx check reports a rules §4 mode used but not declared; significant-change and regions need none")
    func checkReportsModes() throws {
        let yaml = """
        apps:
          - bundle: com.example.a
            on:
              didEnterBackground: [{playAudio: {for: 1h}}, {startLocation: standard}]
              accessory: [{work: 1s}]
              bluetooth: [{work: 1s}]
        """
        let spec = try ScenarioParser(file: "t.yaml").parse(yaml).apps[0]
        let findings = ManifestCheck.check(spec.manifest, usage: InfoPlist.usage(of: spec)).map(\.description)
        for mode in ["audio", "location", "external-accessory", "bluetooth-central"] {
            #expect(findings.contains { $0.hasPrefix("error:") && $0.contains("needs UIBackgroundModes '\(mode)'") },
                    "\(mode): \(findings)")
        }
        let quiet = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - bundle: com.example.b
            on:
              didFinishLaunching: [{startLocation: significant}, {startLocation: region}]
              location: [{work: 1s}]
        """).apps[0]
        #expect(!ManifestCheck.check(quiet.manifest, usage: InfoPlist.usage(of: quiet)).map(\.description)
                    .contains { $0.contains("'location'") })
    }
}

@Suite("rules §12 — the long-running modes in the report")
struct LongRunningReportTests {
    @Test("rules §12: audio that went on playing in the background is listed as background activity; audio stopped at the lock is not")
    func privacyListsAudio() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec4-audio-overnight.yaml").path
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
        run.run()
        let facts = ReportFacts.count(events: run.device.trace, names: run.device.renderer.names)
        let activity = Dictionary(uniqueKeysWithValues: zip(run.device.renderer.appNames, facts.map {
            $0.backgroundActivity.map(\.0)
        }))
        #expect(activity["com.example.music"]?.contains("played audio") == true)
        #expect(activity["com.example.podcasts"]?.contains("played audio") == false)
    }
}
