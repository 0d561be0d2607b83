import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Recurring timeline entries (docs/scenarios.md, "Recurring entries"): a
/// week of habits without a script, each mistake located.
@Suite("Recurring timeline entries: every day, weekdays, weekends or named days")
struct RecurringTimelineTests {
    /// 2026-01-05, the default start, is a Monday.
    func moments(_ entry: String, duration: String = "7d", start: String? = nil) throws -> [String] {
        let s = try ScenarioParser(file: "week.yaml").parse("""
        duration: \(duration)
        \(start.map { "start: \($0)" } ?? "")
        apps: [{bundle: com.example.pods}]
        timeline:
          - \(entry)
        """)
        let run = try ScenarioRun(s)
        return s.timeline.map { run.device.engine.momentText($0.at) }
    }

    func error(_ entry: String, duration: String = "7d") -> ScenarioError? {
        do {
            _ = try moments(entry, duration: duration)
            return nil
        } catch let e as ScenarioError {
            return e
        } catch {
            return nil
        }
    }

    @Test("every day, weekday, weekend, a named day and a list")
    func days() throws {
        #expect(try moments(#"{every: day, at: "23:00", device: {charging: true}}"#)
            == (0..<7).map { "\($0)d 23:00" })
        #expect(try moments(#"{every: weekday, at: "07:30", user: launch com.example.pods}"#)
            == (0..<5).map { "\($0)d 07:30" })
        #expect(try moments(#"{every: weekend, at: "10:00", user: unlock}"#) == ["5d 10:00", "6d 10:00"])
        #expect(try moments(#"{every: sun, at: "21:00", user: forceQuit com.example.pods}"#) == ["6d 21:00"])
        #expect(try moments(#"{every: [Monday, wed], at: "08:00", user: lock}"#) == ["0d 08:00", "2d 08:00"])
    }

    @Test("from: and for: bound the span; moments before the start or after the end are left out")
    func span() throws {
        #expect(try moments(#"{every: day, at: "12:00", from: 2d, for: 3d, user: lock}"#) == ["2d 12:00", "3d 12:00", "4d 12:00"])
        #expect(try moments(#"{every: day, at: "07:00", user: lock}"#, duration: "2d", start: "2026-01-05T08:00")
            == ["1d 07:00", "2d 07:00"])
    }

    @Test("the run plays each moment: charging every night, a force quit every Sunday")
    func runs() throws {
        let s = try ScenarioParser(file: "week.yaml").parse("""
        duration: 7d
        apps: [{bundle: com.example.pods}]
        timeline:
          - {every: day, at: "07:30", user: launch com.example.pods}
          - {every: day, at: "07:31", user: home}
          - {every: sun, at: "07:32", user: forceQuit com.example.pods}
        expect:
          - {kind: callback, app: com.example.pods, name: didBecomeActive, count: 7}
          - {kind: terminate, app: com.example.pods, reason: userForceQuit, count: 1, between: [6d 07:32, 6d 07:32]}
        """)
        let run = try ScenarioRun(s)
        run.run()
        for r in run.results { #expect(r.passed, "\(r.message)") }
    }

    @Test("at one moment, entries run in the order written, a recurring one in its place")
    func sameMomentOrder() throws {
        let s = try ScenarioParser(file: "week.yaml").parse("""
        duration: 2d
        apps: [{bundle: com.example.pods}]
        timeline:
          - {at: "0d 08:00", device: {battery: 40%}}
          - {every: day, at: "08:00", device: {battery: 50%}}
          - {at: "1d 08:00", device: {battery: 30%}}
        """)
        let run = try ScenarioRun(s)
        run.run()
        let values = run.device.trace.filter { $0.kindName == "device" }.compactMap { event -> String? in
            guard case let .string(v)? = run.device.renderer.fields(of: event).first(where: { $0.0 == "value" })?.1 else { return nil }
            return v
        }
        #expect(values == ["40%", "50%", "50%", "30%"])
    }

    @Test("mistakes are located: a bad day (did you mean), an at: that is no time of day, a span outside the run")
    func errors() {
        let day = error(#"{every: sundy, at: "21:00", user: home}"#)
        #expect(day?.location.line == 5 && day?.location.column == 13, "\(String(describing: day))")
        #expect(day?.message == "unknown 'every:' day 'sundy'; did you mean 'sun'?")
        let at = error(#"{every: day, at: "1d 07:00", user: home}"#)
        #expect(at?.message.contains("'at:' is a time of day like \"23:00\"") == true, "\(String(describing: at))")
        #expect(at?.location.column == 22)
        #expect(error(#"{every: day, at: "07:00", from: 9d, user: home}"#)?.message.contains("after the scenario ends") == true)
        #expect(error(#"{every: day, at: "07:00", for: 36h, user: home}"#)?.message.contains("whole days") == true)
        #expect(error(#"{at: "07:00", from: 2d, user: home}"#)?.message == "'from:' belongs to a recurring entry, with 'every:'")
        #expect(error(#"{every: sat, at: "07:00", user: home}"#, duration: "2d")?.message.contains("never happens") == true)
        #expect(error(#"{every: day, user: home}"#)?.message == "a timeline entry needs 'at:'")
    }
}
