@testable import BGXCore
import BGXTestKit
import Testing

@Test("rules §6: background fetches over cellular spend the app's data budget too")
func fetchSpendsDataBudget() {
    var engine = Engine(device: { var d = DeviceState(); d.network = .cellular; return d }())
    let app = engine.install(AppManifest(bundleIdentifier: "com.example.news", backgroundModes: [.fetch]))
    engine.schedule(.user(.launch(app)), at: 0)
    engine.schedule(.user(.home), at: Time.minutes(1))
    var directives: [Directive] = []
    func drain() {
        engine.answerAtOnce(&directives) { d, engine in
            if case let .deliver(a, .performFetch) = d { engine.completeFetch(for: a, result: .noData) }
        }
    }
    while let t = engine.nextEventTime, t <= Time.minutes(2) { engine.step(); drain() }
    engine.setMinimumBackgroundFetchInterval(for: app, 0)
    for k in 0..<6 {
        #expect(engine.scheduler.apps[Int(app.index)].cellularLaunches.spent(at: engine.now) == k)
        engine.startFetch(app)
        drain()
    }
    #expect(engine.scheduler.apps[Int(app.index)].cellularLaunches.spent(at: engine.now) == 6)
    #expect(engine.evaluate(.dataBudget, Candidate(app: app, kind: .fetch, earliest: 0, submittedAt: 0,
                                                   requiresNetwork: false, requiresPower: false)).verdict == .mustNotProceed)
}
