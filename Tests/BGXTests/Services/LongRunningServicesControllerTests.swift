@testable import BGXCore
import Foundation
import Testing

/// rules §4's long-running services controller on its own: no engine, no
/// device — what it is told in, decisions and effects out.
@Suite struct LongRunningServicesControllerTests {
    let app = AppID(index: 0)
    let front = AppID(index: 1)

    func controller() -> LongRunningServicesController {
        var c = LongRunningServicesController()
        c.appInstalled()
        c.appInstalled()
        return c
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
        let name: (AppID) -> String = { "app\($0.index)" }
        #expect(c.backgroundAudioRefusal(category: .playback, mixes: false, hasAudioMode: false, front: nil, frontName: name)
                == "no 'audio' in UIBackgroundModes: a background app cannot start audio")
        #expect(c.backgroundAudioRefusal(category: .ambient, mixes: true, hasAudioMode: true, front: nil, frontName: name)
                == "the ambient category does not play in the background")
        #expect(c.backgroundAudioRefusal(category: .playback, mixes: false, hasAudioMode: true, front: front,
                                         frontName: name) == nil)
        _ = c.startAudio(front, category: .playback, mixes: false)
        #expect(c.backgroundAudioRefusal(category: .playback, mixes: false, hasAudioMode: true, front: front, frontName: name)
                == "app1 in front is playing audio: a background app cannot interrupt it (insufficient priority)")
        #expect(c.backgroundAudioRefusal(category: .playback, mixes: true, hasAudioMode: true, front: front,
                                         frontName: name) == nil)
    }

    @Test("rules §10: audible audio, or a session held open in the background with its mode, is jetsam's audio-and-accessory reason")
    func audioOrAccessoryBand() {
        var c = controller()
        c.apps[0].accessory = .open
        #expect(c.holdsAudioOrAccessory(0, running: true, inForeground: false) { $0 == .accessory })
        #expect(!c.holdsAudioOrAccessory(0, running: true, inForeground: false) { _ in false })
        #expect(!c.holdsAudioOrAccessory(0, running: true, inForeground: true) { _ in true })
        _ = c.startAudio(app, category: .playback, mixes: false)
        #expect(c.holdsAudioOrAccessory(0, running: true, inForeground: true) { _ in false })
        #expect(!c.holdsAudioOrAccessory(0, running: false, inForeground: false) { _ in true })
    }

    @Test("rules §4: what ends with the process goes; significant changes, regions, Bluetooth restoration and VoIP failures stay")
    func processEndKeepsTheSystemsServices() {
        var c = controller()
        _ = c.startAudio(app, category: .playback, mixes: false)
        c.apps[0].location.standard = true
        c.apps[0].location.significant = true
        c.apps[0].location.regions = [MonitoredRegion(identifier: TextID(index: 0), center: 0, radius: 100, inside: true)]
        c.apps[0].bluetooth = .open
        c.apps[0].bluetoothRestores = true
        c.apps[0].voip.failures = 2
        c.apps[0].voip.keepAliveInterval = Time.minutes(10)
        _ = c.extendRun(app, runTime: Time.seconds(10), now: 0, epoch: 0)
        c.processEnded(app)
        let s = c.apps[0]
        #expect(s.audio == nil && !s.location.standard && s.bluetooth == .none && s.wakeUntil == nil
                && s.voip.keepAliveInterval == nil)
        #expect(s.location.significant && s.location.regions.count == 1 && s.bluetoothRestores && s.voip.failures == 2)
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
