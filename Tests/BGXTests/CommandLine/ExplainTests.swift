import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx explain` answers "why hasn't my task run?" in plain words first —
/// what it waits for, since when, what would change it, when it is predicted
/// to start and when it did — then the policies' arithmetic (rules §6).
@Suite("bgx explain")
struct ExplainTests {
    /// A refresh submitted at 08:05 on the first day: no usage history yet,
    /// so ApplicationPolicy scores 0 until the app has gone 8 h without a
    /// background launch (16:00), and the score stays under the threshold.
    static let refresh = """
    start: 2026-01-05T00:00:00
    duration: 1d
    apps:
      - bundle: com.example.feed
        backgroundModes: [fetch]
        permittedTaskIdentifiers: [com.example.feed.refresh, com.example.feed.never, com.example.feed.late]
        on:
          didFinishLaunching:
            - register: com.example.feed.refresh
          didEnterBackground:
            - submit: {identifier: com.example.feed.refresh, type: appRefresh}
          willTerminate:
            - submit: {identifier: com.example.feed.late, type: appRefresh}
          task com.example.feed.refresh:
            - complete: true
    usage:
      - {app: com.example.feed, daily: ["08:00 5m"]}
    """

    /// The README's processing task, held back by the charger.
    static let power = """
    start: 2026-01-05T08:00:00
    duration: 1d
    device: {charging: false}
    apps:
      - bundle: com.example.photos
        backgroundModes: [processing]
        permittedTaskIdentifiers: [com.example.photos.index]
        on:
          didFinishLaunching:
            - register: com.example.photos.index
            - submit: {identifier: com.example.photos.index, type: processing, requiresExternalPower: true}
          task com.example.photos.index:
            - complete: true
    timeline:
      - {at: 09:00, user: launch com.example.photos}
      - {at: 09:10, user: lock}
      - {at: 22:00, device: {charging: true}}
    """

    func explain(_ yaml: String, app: String, task: String?, at: String) throws -> [TaskExplanation] {
        let scenario = try ScenarioParser(file: "explain.yaml").parse(yaml)
        let run = try ScenarioRun(scenario)
        let moment = try #require(Units.moment(at, startOffset: run.startOffset, start: scenario.start))
        let id = try #require(run.device.app(app))
        return run.explain(app: id, identifiers: task.map { [$0] }, at: moment).tasks
    }

    @Test("rules §6: a vetoed task's verdict comes first — what it waits for, since when, what changes it, and when it ran")
    func verdictFirstForAVeto() throws {
        let e = try #require(try explain(Self.power, app: "com.example.photos", task: "com.example.photos.index", at: "21:00").first)
        let lines = e.text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "com.example.photos.index (com.example.photos) at 0d 21:00")
        #expect(lines[1] == "  waiting since 0d 09:00 for power (the request requires external power; the device is unplugged)")
        #expect(lines[2] == "  to change it: plug the device in")
        #expect(lines[3] == "  predicted start: none by time alone — it waits until one of the above changes")
        // Plugged in after 13 hours unplugged: the thundering herd holds it 300 s (rules §6).
        #expect(lines[4].hasPrefix("  in this run: started at 0d 22:05 — "))
        // The policy table comes after the verdict.
        let table = try #require(lines.firstIndex { $0.contains("policies (weight × score = contribution") })
        #expect(table > 4)
        #expect(e.holds.map(\.policy) == ["ChargerPluggedInPolicy"])
        #expect(e.waitingSince == Time.hours(1))
        #expect(e.startedInRun?.time == Time.hours(14) + Time.minutes(5))
    }

    @Test("rules §6 [O]: a policy that absolutely must not proceed (thermal serious, as logged) is named as what the task waits for")
    func absoluteVetoIsAHold() throws {
        let hot = Self.power.replacingOccurrences(of: "device: {charging: false}", with: "device: {charging: true, thermal: serious}")
        #expect(hot != Self.power)
        let e = try #require(try explain(hot, app: "com.example.photos", task: "com.example.photos.index", at: "21:00").first)
        #expect(e.holds.map(\.policy) == ["ThermalPolicy"])
        #expect(e.text.contains("vetoed by ThermalPolicy") || e.text.contains("vetoed too by ThermalPolicy"))
    }

    @Test("rules §6: the table shows weight × score per policy and how they sum to the score against the threshold")
    func contributionsAddUp() throws {
        let e = try #require(try explain(Self.refresh, app: "com.example.feed", task: "com.example.feed.refresh", at: "12:00").first)
        let decision = try #require(e.decision)
        #expect(decision.hasPrefix("deferred: score "))
        let score = try #require(e.score), threshold = try #require(e.threshold)
        #expect(score < threshold)
        // The threshold is the judgement's own: the decision's words compare against the same number.
        #expect(decision.contains("< \(threshold)"))
        let proceeding = e.policies.filter { $0.verdict == "can proceed" }
        let sum = proceeding.reduce(0.0) { $0 + ($1.contribution ?? .nan) }
        #expect(abs(sum - (e.weightedSum ?? .nan)) < 1e-9)
        #expect(abs(proceeding.reduce(0.0) { $0 + $1.weight } - (e.totalWeight ?? .nan)) < 1e-9)
        #expect(abs(sum / (e.totalWeight ?? .nan) - score) < 1e-9)
        for p in proceeding { #expect(p.contribution == p.weight * (p.score ?? .nan)) }
        let total = try #require(e.text.split(separator: "\n").first { $0.contains("sum ") && $0.contains("/ weights ") })
        #expect(total.contains("< threshold \(TaskExplanationFormat.number(threshold))"))
        // What pulled the score down, in plain words, with the moment time alone changes it.
        #expect(e.holds.first?.policy == "ApplicationPolicy")
        #expect(e.verdictLines[1].contains("wait until 0d 16:00"))
    }

    @Test("rules §6: on the day of first use no habit has been learned yet, and the refresh's wait says so rather than 'no predicted use'")
    func firstDayHasNoUsePatternYet() throws {
        // `usage:` opens the app at 08:00 daily, so "no predicted use in the next two days"
        // would contradict the scenario: the predictor learns from past days, and day 0 has none.
        let e = try #require(try explain(Self.refresh, app: "com.example.feed", task: "com.example.feed.refresh", at: "12:00").first)
        let app = try #require(e.policies.first { $0.policy == "ApplicationPolicy" })
        #expect(app.rationale.hasPrefix("no use pattern yet"))
        #expect(e.verdictLines[0].contains("a day of the person's use to learn from"))
        #expect(!e.text.contains("no predicted use in the next two days"))
        // A day later the 08:00 session has been seen: the wait names the predicted use instead.
        let twoDays = Self.refresh.replacingOccurrences(of: "duration: 1d", with: "duration: 2d")
            + "\ntimeline:\n  - {at: 1d 10:00, user: launch com.example.feed}\n  - {at: 1d 10:05, user: home}\n"
        let next = try #require(try explain(twoDays, app: "com.example.feed", task: "com.example.feed.refresh", at: "1d 12:00").first)
        let learned = try #require(next.policies.first { $0.policy == "ApplicationPolicy" })
        #expect(learned.rationale == "next predicted use 2d 08:00")
    }

    @Test("rules §6: while no habit is learned yet, the scheduler looks again at midnight, when the first day becomes history")
    func firstDayLooksAgainAtMidnight() throws {
        let evening = """
        start: 2026-01-05T00:00:00
        duration: 2d
        apps:
          - bundle: com.example.feed
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.feed.refresh]
            on:
              didFinishLaunching:
                - register: com.example.feed.refresh
              didEnterBackground:
                - submit: {identifier: com.example.feed.refresh, type: appRefresh}
              task com.example.feed.refresh:
                - complete: true
        usage:
          - {app: com.example.feed, daily: ["20:00 5m"]}
        """
        // First used at 20:00: a refresh is due by staleness only at 1d 04:00, but the
        // prediction can change at midnight, so that is the next look.
        let e = try #require(try explain(evening, app: "com.example.feed", task: "com.example.feed.refresh", at: "22:00").first)
        #expect(e.nextLook == Time.days(1))
        let later = try #require(try explain(evening, app: "com.example.feed", task: "com.example.feed.refresh", at: "1d 01:00").first)
        #expect(later.policies.first { $0.policy == "ApplicationPolicy" }?.rationale == "next predicted use 1d 20:00")
    }

    @Test("rules §6: 'next look' (when the scheduler judges again) is distinct from the predicted start")
    func nextLookIsNotPredictedStart() throws {
        let e = try #require(try explain(Self.refresh, app: "com.example.feed", task: "com.example.feed.refresh", at: "12:00").first)
        #expect(e.nextLook == Time.hours(16))
        #expect(e.predictedStart == Time.hours(16))
        #expect(e.text.contains("  predicted start: 0d 16:00 — score "))
        #expect(e.text.contains("    next look: 0d 16:00 — ApplicationPolicy changes (the scheduler judges again then"))
        // In the thundering herd after an unlock that ends hours locked, the scheduler looks again
        // when the herd passes, but the task is predicted to start later, when the app is due.
        let rush = Self.refresh + "\ntimeline:\n  - {at: 08:06, user: lock}\n  - {at: 12:08, user: unlock}\n"
        let r = try #require(try explain(rush, app: "com.example.feed", task: "com.example.feed.refresh", at: "12:10").first)
        #expect(r.nextLook == Time.hours(12) + Time.minutes(13))
        let next = try #require(r.nextLook), start = try #require(r.predictedStart)
        #expect(next < start)
        #expect(start == Time.hours(16))
    }

    @Test("rules §6: a start's reason reads as a reason to start")
    func startReasonReadsAsAReason() throws {
        let e = try #require(try explain(Self.refresh, app: "com.example.feed", task: "com.example.feed.refresh", at: "12:00").first)
        let reason = try #require(e.predictedStartReason)
        #expect(reason.contains("≥"))
        #expect(reason.contains("ApplicationPolicy: a refresh is due: no background launch for 8h"))
        #expect(e.startedInRun?.time == Time.hours(16))
        #expect(e.startedInRun?.reason == reason)
    }

    @Test("rules §5: a task never submitted says so, and what in the scenario would submit it")
    func neverSubmitted() throws {
        let all = try explain(Self.refresh, app: "com.example.feed", task: nil, at: "07:00")
        // --app lists every permitted identifier, submitted or not.
        #expect(all.map(\.identifier) == ["com.example.feed.refresh", "com.example.feed.never", "com.example.feed.late"])
        let never = try #require(all.first { $0.identifier == "com.example.feed.never" })
        #expect(never.verdictLines.prefix(2) == ["never submitted up to 0d 07:00", "nothing in this scenario submits it"])
        let late = try #require(all.first { $0.identifier == "com.example.feed.late" })
        #expect(late.verdictLines[1] == "would be submitted by the willTerminate handler of com.example.feed (explain.yaml:13:11)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(never.json.utf8)) as? [String: Any])
        #expect(json["submittedBy"] as? [String] == [])
        #expect((json["status"] as? [String: Any])?["submitted"] as? Bool == false)
    }

    @Test("--at reads the scenario's moments: 14:30, 'Nd HH:MM', 'Tue 09:00', a duration")
    func atReadsScenarioMoments() {
        let monday = Date(timeIntervalSince1970: 1_767_571_200)  // 2026-01-05 00:00 UTC, a Monday
        #expect(Units.moment("Tue 09:00", startOffset: 0, start: monday) == Time.days(1) + Time.hours(9))
        #expect(Units.moment("Mon 09:00", startOffset: 0, start: monday) == Time.hours(9))
        // A Monday 09:00 already past at a 10:00 start is next week's.
        #expect(Units.moment("Mon 09:00", startOffset: Time.hours(10), start: monday.addingTimeInterval(36_000))
                == Time.days(7) - Time.hours(1))
        #expect(Units.moment("Sun 00:00", startOffset: 0, start: monday) == Time.days(6))
        #expect(Units.moment("1d 12:00", startOffset: 0, start: monday) == Time.days(1) + Time.hours(12))
        #expect(Units.moment("90s", startOffset: 0, start: monday) == Time.seconds(90))
        #expect(Units.moment("Tus 09:00", startOffset: 0, start: monday) == nil)
    }

    @Test("rules §6: timeline entries may be written 'Tue 09:00' too")
    func timelineWeekday() throws {
        let s = try ScenarioParser(file: "w.yaml").parse(
            "start: 2026-01-05T08:00:00\nduration: 7d\napps: [{bundle: a}]\ntimeline: [{at: Wed 09:00, user: launch a}]\n")
        #expect(s.timeline.first?.at == Time.days(2) + Time.hours(1))
    }

    @Test("rules §6: --json carries the verdict, the holds, the arithmetic, the predicted start and the run's start")
    func jsonCarriesTheNewFacts() throws {
        let e = try #require(try explain(Self.refresh, app: "com.example.feed", task: "com.example.feed.refresh", at: "12:00").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(e.json.utf8)) as? [String: Any])
        #expect((json["verdict"] as? [String])?.first == e.verdictLines.first)
        #expect((json["holds"] as? [[String: Any]])?.first?["policy"] as? String == "ApplicationPolicy")
        #expect((json["predictedStart"] as? NSNumber)?.doubleValue == 57_600)
        #expect((json["nextLook"] as? NSNumber)?.doubleValue == 57_600)
        #expect(((json["startedInRun"] as? [String: Any])?["t"] as? NSNumber)?.doubleValue == 57_600)
        #expect(json["weightedSum"] is NSNumber)
        #expect(json["totalWeight"] is NSNumber)
        let policies = try #require(json["policies"] as? [[String: Any]])
        #expect(policies.allSatisfy { $0["contribution"] != nil })
        #expect(json["submittedBy"] as? [String] == ["the didEnterBackground handler of com.example.feed (explain.yaml:11:11)"])
    }

    @Test("`bgx explain --at 'Tue 09:00' --json` runs from the command line and parses")
    func commandLine() throws {
        let exe = try #require(CommandLineTests.executable, "the bgx executable was not built beside the tests")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-explain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("feed.yaml").path
        try Self.refresh.replacingOccurrences(of: "duration: 1d", with: "duration: 3d")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = exe
        process.arguments = ["explain", path, "--task", "com.example.feed.refresh", "--at", "Tue 09:00", "--json"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any])
        #expect((json["t"] as? NSNumber)?.doubleValue == 118_800.0)  // 1d 09:00: the scenario starts on a Monday
    }
}

/// The explanation's number format, for tests that compare against it.
enum TaskExplanationFormat {
    static func number(_ d: Double) -> String {
        d == d.rounded() ? String(Int64(d)) : String(Double(Int((d * 100).rounded())) / 100)
    }
}
