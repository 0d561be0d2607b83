@testable import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// `bgx explain --task --json`, each app's summary in `bgx run --json` and
/// `bgx bench --json` are `Encodable` values written by `InlineJSONEncoder`:
/// byte for byte what the hand-written forms (HandWrittenJSON) gave, on
/// every scenario and on values made to hold every kind of field; and what
/// they print parses, nil as `null`.
@Suite("Outputs encoded from Encodable values")
struct EncodedOutputsTests {
    static let files = scenarioFiles + ["docs/examples/podcasts.yaml", "docs/examples/colorfeed.yaml"]
        .map { repositoryRoot.appendingPathComponent($0).path }

    @Test("every app's summary in every scenario is what the hand-written form gave")
    func summaries() throws {
        var refused = 0, held = 0, longest = 0, noLongest = 0, terminated = 0
        for path in Self.files {
            let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
            run.run()
            for summary in run.device.summaries() {
                #expect(summary.json == HandWrittenJSON.summary(summary), "\(path)")
                if !summary.requests.refused.isEmpty { refused += 1 }
                if !summary.pushes.held.isEmpty || !summary.pushes.dropped.isEmpty { held += 1 }
                if summary.requests.longestHold == nil { noLongest += 1 } else { longest += 1 }
                if !summary.terminations.isEmpty { terminated += 1 }
            }
        }
        // The scenarios hold every kind of field the summary writes.
        #expect(refused > 0 && held > 0 && longest > 0 && noLongest > 0 && terminated > 0)
    }

    @Test("a summary holding quotes, new lines and fractions of seconds is what the hand-written form gave")
    func summaryOfEveryKind() throws {
        let path = repositoryRoot.appendingPathComponent("docs/examples/podcasts.yaml").path
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
        run.run()
        var s = try #require(run.device.summaries().first)
        s.bundleIdentifier = "com.example.\"odd\"\\app"
        s.secondsInState[.inactive] = 0.000_000_001
        s.requests.longestHold = .init(policy: "Policy \"x\"\n", duration: 1_500_000_001)
        s.requests.refused = [.init(error: .notPermitted, reason: "not in Info.plist\t(é)", count: 2),
                              .init(error: .unavailable, reason: "BAR off", count: 1),
                              .init(error: .immediateRunIneligible, reason: "both slots taken", count: 3),
                              .init(error: .notPermitted, reason: "again", count: 1)]
        s.pushes.held = [.init(reason: "throttled \"it resets at 12d 00:26\"", count: 4), .init(reason: "b", count: 1)]
        s.pushes.dropped = [.init(reason: "newer push\u{1}", count: 2)]
        s.launches = [.silentPush: 2, .user: 1, .boot: 1]
        s.terminations = [.crash: 1, .userForceQuit: 2]
        #expect(s.json == HandWrittenJSON.summary(s))
        // The declared order of the states, causes and reasons, not the dictionaries'.
        #expect(s.json.contains("\"launches\": {\"user\": 1, \"silentPush\": 2, \"boot\": 1}"))
        #expect(s.json.contains("\"refused\": {\"unavailable\": 1, \"notPermitted\": 3}"), "\(s.json)")
    }

    @Test("every task explained through every scenario is what the hand-written form gave")
    func explanations() throws {
        var states: Set<String> = [], judged = 0, unjudged = 0
        for path in Self.files {
            let scenario = try ScenarioParser.parse(contentsOf: path)
            let run = try ScenarioRun(scenario)
            let apps = scenario.apps.compactMap { run.device.app($0.manifest.bundleIdentifier) }
            for k in 1...5 {
                run.run(until: scenario.duration / 6 * Nanoseconds(k))
                let engine = run.device.engine
                for app in apps {
                    for identifier in engine.taskIdentifiers(of: app) {
                        var e = engine.explainTask(app: app, identifier: identifier)
                        e.submittedBy = ScenarioRun.submitters(of: identifier, in: scenario)
                        #expect(e.json == HandWrittenJSON.explanation(e), "\(path) \(identifier) at \(k)/6")
                        switch e.status {
                        case .pending: states.insert("pending")
                        case .running: states.insert("running")
                        case .notPending: states.insert("notPending")
                        }
                        if e.score != nil && e.threshold != nil { judged += 1 } else { unjudged += 1 }
                    }
                }
            }
        }
        #expect(states == ["pending", "running", "notPending"])
        #expect(judged > 0 && unjudged > 0)
    }

    /// An explanation with every field set, and one with none.
    static func explanation(full: Bool) -> TaskExplanation {
        var e = TaskExplanation(app: "com.example.\"a\"", identifier: "x.refresh\n", at: Time.seconds(90.5), atText: "0d 00:01",
                                status: full ? .running(since: 1, timeLeft: nil) : .notPending)
        guard full else { return e }
        e.kind = "appRefresh"
        e.earliestBegin = Time.hours(2)
        e.policies = [.init(policy: "BatteryLevelPolicy", verdict: "can proceed", score: 0.333, weight: 1.5, contribution: 0.4995,
                            rationale: "battery 40 %", blockedSince: nil, changesAt: 7),
                      .init(policy: "ThermalPolicy", verdict: "must not proceed", score: nil, weight: 2, contribution: nil,
                            rationale: "serious", blockedSince: Time.minutes(3), changesAt: nil)]
        e.decision = "would start now (score 0.7 ≥ 0.5)"
        e.wouldStartNow = true
        e.score = 0.712_345_6
        e.threshold = 0.5
        e.weightedSum = 1.0685
        e.totalWeight = 1.5
        e.holds = [.init(policy: "ThermalPolicy", waitsFor: "cool", change: "wait until 0d 01:00", since: 5, changesAt: Time.hours(1))]
        e.waitingSince = 3
        e.nextLook = Time.hours(1)
        e.nextLookReason = "thermal"
        e.predictedStart = Time.hours(1) + 1
        e.predictedStartReason = "cooled"
        e.predictedUse = Time.days(1)
        e.history = [(time: 0, what: "submitted"), (time: 1, what: "started \"x\"")]
        e.startedInRun = (time: 1, reason: "score ≥ threshold")
        e.runEnd = Time.days(2)
        e.submittedBy = ["the didEnterBackground handler", "tab\there"]
        return e
    }

    @Test("an explanation with every field set, and one with none, is what the hand-written form gave")
    func explanationOfEveryKind() {
        for full in [true, false] {
            let e = Self.explanation(full: full)
            #expect(e.json == HandWrittenJSON.explanation(e))
        }
        var pending = Self.explanation(full: true)
        pending.status = .pending(since: 42)
        #expect(pending.json == HandWrittenJSON.explanation(pending))
        pending.status = .running(since: 42, timeLeft: Time.seconds(29.75))
        #expect(pending.json == HandWrittenJSON.explanation(pending))
        pending.score = nil   // judged no more: dasd's names are left out
        #expect(pending.json == HandWrittenJSON.explanation(pending))
        #expect(!pending.json.contains("currentScore"))
    }

    @Test("bgx bench --json with the demo device's fields is what the hand-written form gave")
    func benchWithDeviceDays() {
        let r = Benchmark.Result(events: 10, traceEvents: 5, deliveries: 3, apps: 2, heapShare: 0.5, engineSeconds: 2,
                                 bareHeapSeconds: 1, engineRounds: [2, 4], bareHeapRounds: [1])
        for days in [Benchmark.DeviceDays(days: 1400, seconds: 0.7, rounds: [0.7, 0.9, 1.3], traceEvents: 123_456,
                                          evaluationsPerRun: 321),
                     Benchmark.DeviceDays(days: 7.5, seconds: 0.25, rounds: [0.25], traceEvents: 0, evaluationsPerRun: 0)] {
            let handWritten = String(InlineJSONTests.handWritten(r).dropLast()) + ", \"deviceDaysPerSecond\": \(Int(days.perSecond.rounded())), "
                + "\"deviceDays\": \(days.days), \"deviceDayTraceEvents\": \(days.traceEvents), "
                + "\"schedulerEvaluationsPerWeek\": \(days.evaluationsPerRun), "
                + "\"deviceDaysRoundsPerSecond\": [\(days.rounds.map { String(Int((days.days / $0).rounded())) }.joined(separator: ", "))]}"
            #expect(Benchmark.json(r, deviceDays: days) == handWritten)
        }
    }
}

extension EncodedOutputsTests {
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("bgx explain --task --json parses: a nil is null, the key there")
    func explainParses() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-encoded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("power.yaml").path
        try ExplainTests.power.write(toFile: path, atomically: true, encoding: .utf8)
        // At 09:30 the processing task waits for the charger: judged, not started, no time left to tell.
        let out = try CommandLineTests().bgx(["explain", path, "--task", "com.example.photos.index", "--at", "09:30", "--json"])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try object(out.stdout)
        #expect(json["identifier"] as? String == "com.example.photos.index")
        #expect((json["status"] as? [String: Any])?["state"] as? String == "pending")
        #expect(json["kind"] as? String == "processing")
        #expect(json["earliestBegin"] is NSNull, "\(json)")
        #expect(json["predictedUse"] is NSNull || json["predictedUse"] is NSNumber)
        #expect(json["wouldStartNow"] as? Bool == false)
        #expect((json["holds"] as? [[String: Any]])?.isEmpty == false)
        #expect((json["t"] as? NSNumber)?.doubleValue == 5_400)   // 09:30: seconds since the 08:00 start
        // Before the first launch: nothing submitted, every moment of it null.
        let before = try object(try CommandLineTests().bgx(["explain", path, "--task", "com.example.photos.index",
                                                            "--at", "08:30", "--json"]).stdout)
        #expect((before["status"] as? [String: Any])?["submitted"] as? Bool == false)
        for key in ["kind", "earliestBegin", "decision", "score", "threshold", "nextLook", "predictedStart"] {
            #expect(before[key] is NSNull, "\(key): \(before[key] ?? "missing")")
        }
        #expect(before["currentScore"] == nil, "dasd's names only when judged")
    }

    @Test("bgx run --json parses: each app's summary, longestHold null when nothing held a request")
    func runParses() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec2-task-never-ended.yaml").path
        let out = try CommandLineTests().bgx(["run", path, "--json"])
        let json = try object(out.stdout)
        let app = try #require((json["apps"] as? [[String: Any]])?.first)
        #expect(app["app"] as? String != nil)
        let tasks = try #require(app["scheduledTasks"] as? [String: Any])
        #expect(tasks["longestHold"] is NSNull, "\(tasks)")
        #expect(tasks["submitted"] as? Int == 0)
        #expect((app["secondsInState"] as? [String: Any])?.count == ProcessState.allCases.count)
        #expect(out.stdout.contains("\"secondsInState\": {\"notRunning\": "), "states in their declared order")
        #expect(json["passed"] as? Bool == true)
    }

    @Test("bgx bench --json parses: the engine's fields and the demo device's in one object")
    func benchParses() throws {
        let out = try CommandLineTests().bgx(["bench", "--json", "--events", "3000", "--apps", "4", "--device-runs", "1",
                                              "--rounds", "2"])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try object(out.stdout)
        #expect(json["events"] as? Int ?? 0 >= 3000)
        #expect(json["apps"] as? Int == 4)
        #expect((json["engineRoundEventsPerSecond"] as? [Int])?.count == 2)
        #expect((json["deviceDaysRoundsPerSecond"] as? [Int])?.count == 2)
        #expect((json["deviceDays"] as? NSNumber)?.doubleValue == 7)   // one run of the demo week
        #expect(json["deviceDayTraceEvents"] as? Int ?? 0 > 0)
    }
}
