import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The person's week written in Swift (`schedule(_:every:until:)`,
/// `scheduleDailyUse(of:sessions:until:)`, docs/own-app.md) and in YAML
/// (`every:`, `usage:`) is the same week: the same app, the same inputs in
/// the same order, a byte-identical trace.
@Suite("A week in Swift and in YAML: the same inputs, the same trace")
struct SwiftScenarioParityTests {
    @Test("docs/examples/podcasts.yaml's week, scheduled from Swift, gives its trace byte for byte")
    func podcastWeek() throws {
        let path = repositoryRoot.appendingPathComponent("docs/examples/podcasts.yaml").path
        let scenario = try ScenarioParser.parse(contentsOf: path)
        let yaml = try ScenarioRun(scenario)
        yaml.run()

        let device = SimulatedDevice()
        let spec = scenario.apps[0]
        let app = device.install(spec.manifest, program: { ScenarioApp(spec: spec) })
        let week = Time.days(7)
        func at(_ h: Int, _ m: Int = 0) -> Nanoseconds { Time.hours(h) + Time.minutes(m) }
        device.schedule(.user(.launch(app)), every: Recurrence(on: Recurrence.weekdays, at: at(7, 30)), until: week)
        device.schedule(.user(.lock), every: Recurrence(on: Recurrence.weekdays, at: at(7, 31)), until: week)
        device.schedule(.user(.lock), every: Recurrence(on: Recurrence.everyDay, at: at(23)), until: week)
        device.schedule(.device(.charging(true)), every: Recurrence(on: Recurrence.everyDay, at: at(23)), until: week)
        device.schedule(.device(.charging(false)), every: Recurrence(on: Recurrence.everyDay, at: at(7)), until: week)
        device.schedule(.push(app, Push(type: .background, priority: 5)),
                        every: Recurrence(on: Recurrence.everyDay, at: at(18)), until: week)
        device.schedule(.user(.forceQuit(app)), every: Recurrence(on: [0], at: at(21)), until: week)
        device.scheduleDailyUse(of: app, sessions: [(at(12, 30), Time.minutes(3)), (at(20), Time.minutes(5))], until: week)
        device.run(until: week)

        let swiftLines = device.traceLines
        #expect(swiftLines.count > 100)
        #expect(swiftLines == yaml.device.traceLines)
    }

    @Test("Recurrence's moments: weekdays, a span, the start's time of day")
    func moments() {
        // 2026-01-05 (a Monday) is day 20 458 since 1970-01-01; the run starts at 08:00 and lasts 7 days.
        let r = Recurrence(on: Recurrence.weekend, at: Time.hours(10))
        #expect(r.moments(startEpochDay: 20_458, startOffset: Time.hours(8), duration: Time.days(7))
            == [Time.days(5) + Time.hours(2), Time.days(6) + Time.hours(2)])
        let daily = Recurrence(on: Recurrence.everyDay, at: Time.hours(7), fromDay: 1, forDays: 2)
        #expect(daily.moments(startEpochDay: 20_458, startOffset: Time.hours(8), duration: Time.days(7))
            == [Time.days(1) - Time.hours(1), Time.days(2) - Time.hours(1)])
    }
}
