import BGXCore
import BGXSimulation
import Foundation
import Testing

/// rules §6 [D][S]: "Apps that download small amounts of content quickly, and
/// accurately reflect when they had content available to download, are more
/// likely to receive execution time in the future than apps that take a long
/// time to download their content or that claim that content was available
/// but then do not download anything" (Apple's documentation of
/// `application(_:performFetchWithCompletionHandler:)`).
@Suite("Background fetch reputation (rules §6)")
struct FetchReputationTests {
    static let scenario = repositoryRoot.appendingPathComponent("Scenarios/spec6-fetch-reputation.yaml").path

    func fetchStarts(_ run: ScenarioRun, _ bundle: String) -> Int {
        run.device.traceLines.filter { $0.contains("\"app\": \"\(bundle)\"") && $0.contains("\"kind\": \"fetch.start\"") }.count
    }

    @Test("rules §6: over a week of equal use, a fast honest fetcher gets clearly more fetches than a slow one or one claiming data it did not fetch")
    func fastHonestFetcherGetsMoreFetches() throws {
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: Self.scenario))
        run.run()
        let fast = fetchStarts(run, "com.example.fast")
        let slow = fetchStarts(run, "com.example.slow")
        let liar = fetchStarts(run, "com.example.liar")
        #expect(fast >= slow * 3 / 2, "fast \(fast), slow \(slow)")
        #expect(liar < fast && liar <= slow, "fast \(fast), slow \(slow), liar \(liar)")
        let engine = run.device.engine
        #expect(engine.fetchReputation(of: run.device.app("com.example.fast")!) == 1)
        #expect(engine.fetchReputation(of: run.device.app("com.example.slow")!) < 0.5)
        #expect(engine.fetchReputation(of: run.device.app("com.example.liar")!) < 0.5)
    }

    @Test("rules §6, §12: time awake in the background counts toward the energy budget, not only until the completion handler")
    func awakeTimeCountsTowardEnergy() throws {
        // The fetch reports after 1 s but keeps the app awake 20 s more with a background task.
        let yaml = """
        # rules §6
        duration: 12h
        apps:
          - bundle: com.example.lingering
            backgroundModes: [fetch]
            on:
              didFinishLaunching:
                - setMinimumBackgroundFetchInterval: minimum
              performFetch:
                - wait: 1s
                - beginBackgroundTask: linger
                - complete: newData
                - wait: 20s
                - endBackgroundTask: linger
        timeline:
          - {at: 1m, user: launch com.example.lingering}
          - {at: 2m, user: home}
        expect:
          - {kind: fetch.start, app: com.example.lingering, count: 1}
        """
        let run = try ScenarioRun(try ScenarioParser(file: "lingering.yaml").parse(yaml))
        run.run()
        #expect(run.results.allSatisfy { $0.passed })
        let used = run.device.engine.backgroundEnergyUsedToday(of: run.device.app("com.example.lingering")!)
        #expect(used >= Time.seconds(21), "energy used: \(Time.describe(used))")
    }

    static let costScenario = repositoryRoot.appendingPathComponent("Scenarios/spec6-fetch-cost.yaml").path

    @Test("rules §6: cheap, honest fetches earn shorter spacing — twice-a-day apps: the 1 s fetcher is fetched more than the 25 s one, the one awake 25 s after reporting, or the 5 MB one")
    func cheapHonestFetchesEarnShorterSpacing() throws {
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: Self.costScenario))
        run.run()
        let engine = run.device.engine
        let fast = fetchStarts(run, "com.example.fast")
        for costly in ["com.example.slow", "com.example.lingering", "com.example.large"] {
            let n = fetchStarts(run, costly)
            #expect(fast > n, "fast \(fast), \(costly) \(n)")
            #expect(engine.fetchReputation(of: run.device.app(costly)!) < 1, "\(costly)")
        }
        #expect(engine.fetchReputation(of: run.device.app("com.example.fast")!) == 1)
        // The rate limit says why the costly app waits longer: its reputation.
        let held = run.device.traceLines.first {
            $0.contains("\"kind\": \"fetch.defer\"") && $0.contains("com.example.slow") && $0.contains("fetch reputation 0.")
        }
        #expect(held != nil, "no fetch.defer of the slow app names its reputation")
        let lingering = engine.explainFetch(app: run.device.app("com.example.lingering")!)
        #expect(lingering.contains("slow or large (awake 2"), "\(lingering)")
        let large = engine.explainFetch(app: run.device.app("com.example.large")!)
        #expect(large.contains("5242880 bytes"), "\(large)")
    }

    @Test("rules §6: bgx explain --app shows each app's fetch standing and why")
    func explainShowsStanding() throws {
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: Self.scenario))
        run.run()
        let engine = run.device.engine
        let fast = engine.explainFetch(app: run.device.app("com.example.fast")!)
        let slow = engine.explainFetch(app: run.device.app("com.example.slow")!)
        let liar = engine.explainFetch(app: run.device.app("com.example.liar")!)
        #expect(fast.contains("standing: good"))
        #expect(fast.contains("fast and honest"))
        #expect(slow.contains("standing: poor"))
        #expect(slow.contains("slow or large (awake 25s)"), "\(slow)")
        #expect(slow.contains("further apart"))
        #expect(liar.contains("claimed newData without fetching anything"))
        #expect(engine.explainFetch(app: run.device.app("com.example.fast")!).contains("awake in the background today"))
    }
}
