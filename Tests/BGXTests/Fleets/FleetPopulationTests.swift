import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// A news app that refreshes in the background and gets a silent push at 17:00 on every device.
let fleetNewsScenario = """
    seed: 7
    start: 2026-01-05T00:00:00
    duration: 1d
    apps:
      - bundle: com.example.news
        backgroundModes: [fetch, remote-notification]
        permittedTaskIdentifiers: [com.example.news.refresh]
        on:
          didFinishLaunching: [{register: com.example.news.refresh}]
          didEnterBackground:
            - submit: {identifier: com.example.news.refresh, type: appRefresh, earliestBegin: 15m}
          task com.example.news.refresh:
            - work: 2s
            - submit: {identifier: com.example.news.refresh, type: appRefresh, earliestBegin: 15m}
            - complete: true
          silentPush: [{work: 1s}, {complete: newData}]
    timeline:
      - {at: "17:00", push: {app: com.example.news, type: background, priority: 5}}
    population:
      seed: 42
      usesPerDay: {between: [1, 4]}

    """

@Suite("Fleet population: the scenario's population: section")
struct PopulationTests {
    func parse(_ population: String) throws -> Population {
        let yaml = "apps:\n  - bundle: com.example.a\npopulation:\n" + population
        return try #require(try ScenarioParser(file: "p.yaml").parse(yaml).population)
    }

    func error(_ population: String) -> ScenarioError? {
        do { _ = try parse(population); return nil } catch let e as ScenarioError { return e } catch { return nil }
    }

    @Test("each form of a distribution is read: one value, a range, weights")
    func forms() throws {
        let p = try parse("""
              usesPerDay: 3
              useLength: {between: [30s, 2m]}
              network: {wifi: 60%, cellular: 40%}
              useHours: {"07:00-09:00": 50%, "22:00-01:00": 50%}
              bedtime: {between: ["23:00", "00:30"]}
              forceQuit: 20%
              memory: {4GB: 100%}

            """)
        guard case .fixed(3) = p.usesPerDay else { Issue.record("usesPerDay \(p.usesPerDay)"); return }
        guard case let .between(lo, hi) = p.useLength else { Issue.record("useLength"); return }
        #expect(lo == Time.seconds(30) && hi == Time.minutes(2))
        guard case let .weighted(net) = p.network else { Issue.record("network"); return }
        #expect(net.map(\.0) == [.wifi, .cellular] && net.map(\.1) == [60, 40])
        guard case let .weighted(hours) = p.useHours else { Issue.record("useHours"); return }
        // A window past midnight runs into the next day.
        #expect(hours[1].0 == DayWindow(from: Time.hours(22), to: Time.hours(25)))
        guard case let .between(b0, b1) = p.bedtime else { Issue.record("bedtime"); return }
        #expect(b0 == Time.hours(23) && b1 == Time.hours(24) + Time.minutes(30))
        #expect(p.forceQuit == 0.2)
    }

    @Test("without a population: section, a fleet uses the documented defaults")
    func defaults() throws {
        let s = try ScenarioParser(file: "d.yaml").parse("apps:\n  - bundle: com.example.a\n")
        #expect(s.population == nil)
        let sampler = try DeviceSampler(s)
        #expect(sampler.population.homeWifi == 0.75 && sampler.population.forceQuit == 0.15)
    }

    @Test("bad values are located errors", arguments: [
        ("  forceQuit: often\n", 4, "forceQuit must be a percentage 0–100%, got 'often'"),
        ("  network: {wifi: 50%, cellular: 40%}\n", 4, "network: the weights add up to 90%, not 100%"),
        ("  network: {wifi: 50%, satellite: 50%}\n", 4, "network: 'satellite' is not wifi, cellular or none"),
        ("  usesPerDay: {between: [1]}\n", 4, "'between' is [LOW, HIGH]"),
        ("  useHours: {between: [\"07:00\", \"09:00\"]}\n", 4, "useHours is drawn from weighted values, not a range"),
        ("  memory: 12KB\n", 4, "memory: '12KB' is not a size between 256MB and 64GB"),
        ("  usesPerDey: 3\n", 4, "unknown key in population 'usesPerDey'; did you mean 'usesPerDay'?"),
    ])
    func badValues(_ text: String, line: Int, message: String) {
        let e = error(text)
        #expect(e?.location.line == line, "\(String(describing: e))")
        #expect(e?.message == message)
    }

    @Test("device i draws the same person whatever else is drawn, and the shares come out as written")
    func sampling() throws {
        let s = try ScenarioParser(file: "n.yaml").parse(fleetNewsScenario)
        let sampler = try DeviceSampler(s)
        let (a, pa) = sampler.device(1234)
        _ = (0..<50).map { sampler.device($0) }
        let (b, pb) = sampler.device(1234)
        #expect(pa.seed == pb.seed && a.timeline.count == b.timeline.count && a.seed == b.seed)
        #expect(sampler.device(1235).1.seed != pa.seed)
        let people = (0..<4000).map { sampler.device($0).1 }
        func share(_ f: (DeviceSampler.Person) -> Bool) -> Double { Double(people.filter(f).count) / 4000 }
        // 4 000 draws: a share p lands within about 3·sqrt(p(1−p)/4000) ≈ 1.4 points of 10 %.
        #expect(abs(share(\.lowPowerMode) - 0.10) < 0.02)
        #expect(abs(share(\.backgroundAppRefreshOff) - 0.10) < 0.02)
        #expect(abs(share(\.forceQuits) - 0.15) < 0.02)
        #expect(abs(share(\.chargesAtNight) - 0.85) < 0.02)
        #expect(Set(people.map(\.usesPerDay[0])) == [1, 2, 3, 4])
    }
}

