import BGXCore
import BGXSimulation
import Foundation
import Testing

/// rules §6: DeviceActivityPolicy scores processing after lock by the
/// person's past days (`DeviceUsePrediction`), not by the minutes since the
/// lock, and the threshold holds until the best moment those days promise.
@Suite("processing after lock waits for the quiet the person's days promise")
struct ProcessingAfterLockTests {
    static let night = repositoryRoot.appendingPathComponent("Scenarios/spec6-processing-waits-for-the-night.yaml").path

    func explain(_ run: ScenarioRun, _ scenario: Scenario, at: String) throws -> TaskExplanation {
        let moment = try #require(Units.moment(at, startOffset: run.startOffset, start: scenario.start))
        let app = try #require(run.device.app("com.example.photos"))
        return try #require(run.explain(app: app, identifiers: ["com.example.photos.backup"], at: moment).tasks.first)
    }

    /// The scenario's habits: the phone used now and then until 23:40, on the charger from 21:00.
    func nightScenario(days: Int = 3) throws -> (Scenario, ScenarioRun) {
        var text = try String(contentsOfFile: Self.night, encoding: .utf8)
        text = text.replacingOccurrences(of: "duration: 3d", with: "duration: \(days)d")
        let scenario = try ScenarioParser(file: Self.night).parse(text)
        return (scenario, try ScenarioRun(scenario))
    }

    @Test("a real device's log: ten minutes after an evening lock, DeviceActivityPolicy Can Proceed 0.05, 0.84 < 0.91 — held")
    func heldTenMinutesAfterAnEveningLock() throws {
        let (scenario, run) = try nightScenario()
        let e = try explain(run, scenario, at: "1d 22:10")
        let lines = e.text.split(separator: "\n").map(String.init)
        #expect(lines[1] == "  waiting since 0d 21:07 for DeviceActivityPolicy: the person used the device in the 1h "
                + "after this time of day on 1 of the past 1 days")
        #expect(e.text.contains("DeviceActivityPolicy           10 × 0.05 = 0.5   can proceed"), "\(e.text)")
        #expect(e.text.contains("sum 49 / weights 58.5 = score 0.84 < threshold 0.91"), "\(e.text)")
        // It runs once the past days promise a quiet hour: ten minutes after the last lock.
        #expect(e.startedInRun?.time == run.moment(day: 1, at: "23:50"))
    }

    @Test("on the first day there is no past day to learn from: the idle rule alone, as before")
    func firstDayFallsBackToIdle() throws {
        let (scenario, run) = try nightScenario(days: 1)
        let e = try explain(run, scenario, at: "0d 21:04")
        #expect(e.text.contains("DeviceActivityPolicy           10 × 1    = 10    can proceed      — device idle since 0d 20:50"),
                "\(e.text)")
        #expect(e.startedInRun?.time == run.moment(day: 0, at: "21:05"))
    }

    @Test("an old request does not run on a weak evening moment: its threshold holds until the night the past days promise")
    func oldRequestWaitsForTheNight() throws {
        let (scenario, run) = try nightScenario()
        // Pending since 0d 21:07, more than a day: the old threshold would have fallen to 0.86 by 1d 22:10.
        let e = try explain(run, scenario, at: "1d 22:10")
        #expect(e.text.contains("< threshold 0.91"), "\(e.text)")
        // After the night's best moment (1d 23:45) it relaxes toward 0.8 at the end of the two days.
        let late = try explain(run, scenario, at: "1d 23:49")
        #expect(late.text.contains("threshold 0.91"), "\(late.text)")
    }

    @Test("a person who also uses the phone after midnight: the task waits for the quiet after that use")
    func nightOwl() throws {
        let text = try String(contentsOfFile: Self.night, encoding: .utf8)
            .replacingOccurrences(of: "  - {every: day, at: \"23:40\", user: lock}\n",
                                  with: "  - {every: day, at: \"23:40\", user: lock}\n"
                                      + "  - {every: day, at: \"00:30\", user: unlock}\n  - {every: day, at: \"00:40\", user: lock}\n")
        let scenario = try ScenarioParser(file: Self.night).parse(text)
        let run = try ScenarioRun(scenario)
        run.run()                                       // (the file's own expectations are not this run's)
        let starts = run.device.trace.filter { $0.kindName == "task.start" }.map(\.time)
        // 23:50 is within the hour before the 00:30 use the first day saw: held; 00:50 is quiet until morning.
        #expect(!starts.contains(run.moment(day: 1, at: "23:50")), "\(starts)")
        #expect(starts.contains(run.moment(day: 2, at: "00:50")), "\(starts)")
    }
}

extension ScenarioRun {
    /// Virtual time of `HH:MM` on day `day` of the run.
    func moment(day: Int, at clock: String) -> Nanoseconds {
        Units.moment("\(day)d \(clock)", startOffset: startOffset)!
    }
}
