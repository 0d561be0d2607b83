@testable import BGXCore
import Foundation
import Testing

/// rules §4's long-running services controller on its own: no engine, no
/// device — what it is told in, decisions and effects out.
@Suite struct LongRunningServicesControllerTests {
    let app = AppID(index: 0)
    let front = AppID(index: 1)
    let settings = LongRunningSettings()

    func controller() -> LongRunningServicesController {
        var c = LongRunningServicesController()
        c.appInstalled()
        c.appInstalled()
        return c
    }

    /// An app's process: in the background unless said otherwise, with these modes.
    func view(_ state: ProcessState = .background, _ modes: Set<BackgroundMode> = [.audio, .location, .voip],
              launchRefusal: String? = nil) -> ServiceAppView {
        ServiceAppView(state: state, epoch: 1, modes: modes, launchRefusal: launchRefusal)
    }

    func play(_ c: inout LongRunningServicesController, _ who: AppID, _ state: ProcessState = .active,
                       mixes: Bool = false) -> [Effect] {
        c.startAudio(who, duration: nil, category: .playback, mixesWithOthers: mixes, view(state), name: "app\(who.index)",
                     front: nil, frontName: "", now: 0).effects
    }

    @Test("rules §4: an event buys a background run of at least its run time; a longer run already bought stands")
    func eventRunExtends() {
        var c = controller()
        #expect(c.extendRun(app, runTime: Time.seconds(10), now: 0, epoch: 4)
                == .schedule(.serviceWakeEnd(app, Ticket(epoch: 4, number: 1)), at: Time.seconds(10)))
        #expect(c.extendRun(app, runTime: Time.seconds(2), now: Time.seconds(5), epoch: 4)
                == .schedule(.serviceWakeEnd(app, Ticket(epoch: 4, number: 2)), at: Time.seconds(10)))
        #expect(c.runLasts(0, now: Time.seconds(9)) && !c.runLasts(0, now: Time.seconds(10)))
        c.runEnded(app)
        #expect(!c.runLasts(0, now: Time.seconds(9)))
    }

    @Test("rules §4: runs end as the clock reaches them: endRuns takes the runs due and waits for the next one's end")
    func runsEndWithTheClock() {
        var c = controller()
        #expect(c.runsEndBy == .max)
        _ = c.extendRun(app, runTime: Time.seconds(10), now: 0, epoch: 0)
        _ = c.extendRun(front, runTime: Time.seconds(30), now: 0, epoch: 0)
        #expect(c.runsEndBy == Time.seconds(10))
        #expect(c.endRuns(now: Time.seconds(10)) == [0])
        #expect(c.runsEndBy == Time.seconds(30) && c.apps[0].wakeUntil == nil && c.runLasts(1, now: Time.seconds(10)))
        #expect(c.endRuns(now: Time.seconds(40)) == [1])
        #expect(c.runsEndBy == .max)
    }

    @Test("rules §4: a background app needs the audio mode and a background category; it cannot interrupt the front app's audio")
    func backgroundAudioRules() {
        var c = controller()
        #expect(c.backgroundAudioRefusal(category: .playback, mixes: false, hasAudioMode: false, front: nil, frontName: "")
                == "no 'audio' in UIBackgroundModes: a background app cannot start audio")
        #expect(c.backgroundAudioRefusal(category: .ambient, mixes: true, hasAudioMode: true, front: nil, frontName: "")
                == "the ambient category does not play in the background")
        #expect(c.backgroundAudioRefusal(category: .playback, mixes: false, hasAudioMode: true, front: front,
                                         frontName: "app1") == nil)
        _ = play(&c, front)
        let refused = c.startAudio(app, duration: nil, category: .playback, mixesWithOthers: false, view(),
                                   name: "app0", front: front, frontName: "app1", now: 0)
        #expect(!refused.plays && refused.effects == [.serviceNote(app, .audioRefuse(reason:
            "app1 in front is playing audio: a background app cannot interrupt it (insufficient priority)"))])
        #expect(c.startAudio(app, duration: nil, category: .playback, mixesWithOthers: true, view(), name: "app0",
                             front: front, frontName: "app1", now: 0).plays)
    }

    @Test("rules §4: audio that does not mix interrupts the others' — each player is stopped at its turn and hears of it")
    func nonMixingAudioInterrupts() {
        var c = controller()
        _ = play(&c, app, .background)
        let started = play(&c, front)
        #expect(started.last == .continueServices(.interruptAudio(app, reason:
            "interrupted: app1 in front started playing audio (the foreground app has audio priority)")))
        let interrupted = c.interruptAudio(app, reason: "interrupted", view())
        #expect(interrupted == [.setAssertion(app, .audio, false), .serviceNote(app, .audioStop(reason: "interrupted")),
                                .setAssertion(app, .audioOrAccessory, false),
                                .queueJob(app, .service(.audioInterruptionBegan)), .pump(app)])
        #expect(c.interruptAudio(app, reason: "interrupted", view()).isEmpty)   // stopped already
    }

    @Test("rules §10: audible audio, or a session held open in the background with its mode, is jetsam's audio-and-accessory reason")
    func audioOrAccessoryBand() {
        var c = controller()
        let opened = c.openSession(app, .accessory, restores: false, view(.background, [.externalAccessory]), settings: settings)
        #expect(opened == [.trace(app, .accessoryConnect(transport: .accessory)), .setAssertion(app, .audioOrAccessory, true)])
        #expect(c.holdsAudioOrAccessory(0, running: true, inForeground: false) { $0 == .accessory })
        #expect(!c.holdsAudioOrAccessory(0, running: true, inForeground: false) { _ in false })
        #expect(!c.holdsAudioOrAccessory(0, running: true, inForeground: true) { _ in true })
        _ = play(&c, app)
        #expect(c.holdsAudioOrAccessory(0, running: true, inForeground: true) { _ in false })
        #expect(!c.holdsAudioOrAccessory(0, running: false, inForeground: false) { _ in true })
    }

    @Test("rules §4: leaving the front without the accessory mode disconnects the session; back in front it reconnects")
    func sessionWithoutItsModeDisconnects() {
        var c = controller()
        _ = c.openSession(app, .accessory, restores: false, view(.active, []), settings: settings)
        var effects: [Effect] = []
        c.enteredBackground(app, view(.background, []), &effects)
        #expect(effects == [.serviceNote(app, .accessoryDisconnect(.accessory, reason:
            "no 'external-accessory' in UIBackgroundModes: the accessory disconnects when the app leaves the front")),
                            .queueJob(app, .service(.accessoryDidDisconnect(.accessory)))])
        #expect(c.hasDisconnectedSession(0))
        #expect(c.reconnect(app) == [.trace(app, .accessoryConnect(transport: .accessory))])
        #expect(!c.hasDisconnectedSession(0))
    }

    @Test("rules §4: significant-change fixes come at most once per 5 minutes: one due sooner is deferred to the interval's end")
    func significantChangesAreRateLimited() {
        var c = controller()
        _ = c.startLocation(app, .significant, view(), settings: settings)
        #expect(c.deviceMoved(meters: 600, to: 600, now: 0, settings: settings)
                == [.continueServices(.significantChange(app))])
        let deferred = c.deviceMoved(meters: 600, to: 1200, now: Time.seconds(60), settings: settings)
        #expect(deferred.first == .schedule(.significantChangeDue(app, generation: 1), at: Time.minutes(5)))
        #expect(c.deviceMoved(meters: 600, to: 1800, now: Time.seconds(90), settings: settings).isEmpty)
        #expect(c.significantChangeDue(app, generation: 1, now: Time.minutes(5), settings: settings)
                == [.continueServices(.significantChange(app))])
    }

    @Test("rules §4, §11: a location event the launch policy refuses is dropped with its reason; allowed, it buys a run and wakes the app")
    func locationEventWakesOrDrops() {
        var c = controller()
        let region = TextID(index: 3)
        #expect(c.locationEvent(app, .region, region: region, entered: false, view(.notRunning, launchRefusal: "force-quit"),
                                now: 0, settings: settings) == [.serviceNote(app, .locationDrop(.region, reason: "force-quit"))])
        #expect(c.locationEvent(app, .region, region: region, entered: true, view(.suspended), now: 0, settings: settings) == [
            .trace(app, .locationDeliver(service: .region, region: region, entered: true)),
            .schedule(.serviceWakeEnd(app, Ticket(epoch: 1, number: 1)), at: Time.seconds(10)),
            .setAssertion(app, .serviceEvent, true),
            .wakeIntoBackground(app, .region),
            .enqueueIfRunning(app, .service(.didEnterRegion(region))),
        ])
    }

    @Test("rules §4: a VoIP push handler that returns without reporting a call is killed; at the limit the app's VoIP pushes are dropped")
    func voipHandlersMustReportACall() {
        var c = controller()
        let push = PushSettings()
        for n in 1...3 {
            c.voipHandlerStarting(app, UInt32(n))
            #expect(c.voipHandlerReturned(app, settings: push)?.hasSuffix("(\(n) of 3)") == true)
        }
        #expect(c.voipPushRefusal(app, name: "com.example.phone", launchRefusal: nil, settings: push)
                == "com.example.phone will not be launched because it failed to report an incoming call too many times (3 times)")
        c.voipHandlerStarting(front, 1)
        _ = c.reportIncomingCall(front)
        #expect(c.voipHandlerReturned(front, settings: push) == nil)
    }

    @Test("rules §4: what ends with the process goes; significant changes, regions, Bluetooth restoration and VoIP failures stay")
    func processEndKeepsTheSystemsServices() {
        var c = controller()
        let modes: Set<BackgroundMode> = [.audio, .location, .voip, .bluetoothCentral]
        _ = play(&c, app)
        _ = c.startLocation(app, .standard, view(.active, modes), settings: settings)
        _ = c.startLocation(app, .significant, view(.active, modes), settings: settings)
        _ = c.startMonitoringRegion(app, TextID(index: 0), center: 0, radius: 100)
        _ = c.openSession(app, .bluetooth, restores: true, view(.active, modes), settings: settings)
        c.voipHandlerStarting(app, 1)
        _ = c.voipHandlerReturned(app, settings: PushSettings())
        _ = c.setKeepAliveTimeout(app, Time.minutes(10), view(.active, modes), now: 0, settings: PushSettings())
        _ = c.extendRun(app, runTime: Time.seconds(10), now: 0, epoch: 0)
        c.processEnded(app)
        let s = c.apps[0]
        #expect(s.audio == nil && !s.location.standard && s.bluetooth == .none && s.wakeUntil == nil
                && s.voip.keepAliveInterval == nil)
        #expect(s.location.significant && s.location.regions.count == 1 && s.bluetoothRestores && s.voip.failures == 1)
    }
    

    @Test("the services controller explains itself: what plays, runs and is kept, as data and in words")
    func dumpsItsState() throws {
        var dump = ServicesControllerDump(
            audioCategory: "playback", audioMixes: false, standardLocation: false, standardLocationInBackground: false,
            significantChanges: true, regions: [.init(identifier: "home", inside: true)], accessory: nil,
            bluetooth: "open", bluetoothRestores: false, runUntil: Time.minutes(2), keepAliveInterval: nil,
            voipFailures: 1, voipFailureLimit: 3)
        #expect(dump.lines { "\($0 / Time.minutes(1))m" } == [
            "audio: playing (playback)",
            "location: significant-change monitoring (survives the process)",
            "region 'home': inside",
            "bluetooth connection: open",
            "an event's run holds the app in the background until 2m",
        ])
        #expect(!dump.isEmpty)
        dump = ServicesControllerDump(audioCategory: nil, audioMixes: false, standardLocation: false,
                                      standardLocationInBackground: false, significantChanges: false, regions: [],
                                      accessory: nil, bluetooth: nil, bluetoothRestores: false, runUntil: nil,
                                      keepAliveInterval: nil, voipFailures: 0, voipFailureLimit: 3)
        #expect(dump.isEmpty)
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"voipFailureLimit\":3"))
    }
}
