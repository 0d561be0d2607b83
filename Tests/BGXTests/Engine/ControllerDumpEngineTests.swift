@testable import BGXCore
import BGXTestKit
import Foundation
import Testing

/// The controllers' dumps as the engine assembles them (`Engine.controllerDumps(of:)`):
/// what a controller holds of an app reaches its dump, and a controller with
/// nothing to say of the app is left out. (Each controller's own tests build no engine.)
@Suite struct ControllerDumpEngineTests {
    @Test("rules §11: with Background App Refresh off, a fetch is refused and the launch controller keeps why, after the user's launch")
    func engineNotesARefusedFetch() {
        var engine = Engine(device: { var d = DeviceState(); d.backgroundAppRefresh = false; return d }())
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.news", backgroundModes: [.fetch]))
        engine.schedule(.user(.launch(app)), at: 0)
        engine.schedule(.user(.home), at: Time.minutes(1))
        var directives: [Directive] = []
        while let t = engine.nextEventTime, t <= Time.minutes(2) { engine.step(); engine.answerAtOnce(&directives) }
        engine.setMinimumBackgroundFetchInterval(for: app, Time.minutes(15))
        while let t = engine.nextEventTime, t <= Time.hours(2) { engine.step(); engine.answerAtOnce(&directives) }
        let recent = engine.launchControllerDump(of: app).recent
        #expect(recent.first?.outcome == "launched")
        #expect(recent.first?.cause == "user")
        #expect(recent.contains { $0.outcome == "refused" && $0.cause == "fetch"
                                  && $0.reason == LaunchRefusal.backgroundAppRefreshOff.reason })
        #expect(engine.controllerDumps(of: app).map(\.concern).contains("launch policy"))
    }

    @Test("A file lock held in the background shows in the memory dump, with the footprint and the band")
    func heldLockIsDumped() throws {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.install("com.example.notes")
        host.tell([(0, .user(.launch(app)))])
        host.run(until: Time.seconds(1))
        #expect(!host.engine.controllerDumps(of: app).map(\.concern).contains("memory"))
        host.engine.holdLock(for: app, "notes.sqlite")
        host.engine.allocate(for: app, bytes: 10 << 20)
        let dumps = host.engine.controllerDumps(of: app)
        let memory = try #require(dumps.first { $0.concern == "memory" } as? MemoryDump)
        #expect(memory.locks == ["notes.sqlite"] && memory.band == .foreground)
        #expect(memory.footprint == host.engine.footprint(of: app))
        #expect(memory.lines { "\($0)" }.contains("file locks held (fatal if suspended): notes.sqlite"))
    }

    @Test("A push the controller holds is the engine's one dump of an app with nothing else, as JSON and as a line of text")
    func heldPushIsInTheEnginesDumps() throws {
        var engine = Engine(seed: 1)
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.news", backgroundModes: [.remoteNotification]))
        _ = engine.pushes.hold(app, Push(type: .background, priority: 5), "Low Power Mode", retryAt: nil, now: Time.minutes(3))
        let dumps = engine.controllerDumps(of: app)
        #expect(dumps.map(\.concern) == ["push"])
        let lines = dumps[0].lines { "\($0 / Time.minutes(1))m" }
        #expect(lines.first == "held: a background push (priority 5) since 3m")
        let json = String(decoding: try JSONEncoder().encode(dumps[0]), as: UTF8.self)
        #expect(json.contains("\"priority\":5"))
    }
}
