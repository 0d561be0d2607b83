import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `SimulatedDevice.happenings(of:)`: a test asks what happened the way the
/// question is asked (docs/own-app.md).
@Suite("assertions that read like the question")
struct HappeningsTests {
    /// A week from Monday 2026-01-05: the debugger launches the refresh at 07:00 on weekdays and at 09:00 at
    /// weekends (its request asks for six days from now, so the scheduler never does); the person force-quits
    /// the app on Sunday evening.
    static let week = """
    start: 2026-01-05T00:00:00
    duration: 7d
    apps:
      - bundle: com.example.pods
        backgroundModes: [fetch]
        permittedTaskIdentifiers: [com.example.pods.refresh]
        on:
          didFinishLaunching:
            - register: com.example.pods.refresh
            - submit: {identifier: com.example.pods.refresh, type: appRefresh, earliestBegin: 6d}
          task com.example.pods.refresh:
            - submit: {identifier: com.example.pods.refresh, type: appRefresh, earliestBegin: 6d}
            - complete: true
    timeline:
      - {at: "00:01", user: launch com.example.pods}
      - {at: "00:02", user: home}
      - {every: weekday, at: "07:00", debug: {simulateLaunch: com.example.pods.refresh}}
      - {every: weekend, at: "09:00", debug: {simulateLaunch: com.example.pods.refresh}}
      - {every: sun, at: "21:00", user: forceQuit com.example.pods}
    """

    func happenings() throws -> Happenings {
        let run = try ScenarioRun(try ScenarioParser(file: "week.yaml").parse(Self.week))
        run.run()
        return run.device.happenings(of: try #require(run.device.app("com.example.pods")))
    }

    @Test("did the refresh start before 07:30 on 5 of 7 days? — on the five weekdays, not at the weekend")
    func refreshBeforeHalfPastSeven() throws {
        let refresh = try happenings().taskStarts("com.example.pods.refresh")
        #expect(refresh.count == 7)
        #expect(refresh.before(7, 30).days == [0, 1, 2, 3, 4], "\(refresh)")
        #expect(refresh.after(7, 30).days == [5, 6])
        #expect(refresh.on(weekdays: Recurrence.weekend).count == 2)
        #expect(refresh.on(weekdays: Recurrence.weekdays).before(7, 30).count == 5)
        #expect(refresh.on(day: 5).first?.timeOfDay == Time.hours(9))
    }

    @Test("a happening reads as the trace writes it: day, time of day, kind, fields")
    func describedAsTheTrace() throws {
        let first = try #require(try happenings().taskStarts("com.example.pods.refresh").first)
        #expect(first.description
                == "0d 07:00:00 task.start identifier=com.example.pods.refresh reason=_simulateLaunchForTaskWithIdentifier")
        #expect(first["identifier"] == "com.example.pods.refresh")
        #expect(first["nothing"] == nil)
        #expect(first.weekday == 1, "2026-01-05 was a Monday")
    }

    @Test("the person's force quit is a termination, not a kill")
    func forceQuitIsNoKill() throws {
        let all = try happenings()
        #expect(all.terminations.with("reason", "userForceQuit").days == [6], "\(all.terminations)")
        #expect(all.kills.isEmpty, "\(all.kills)")
        #expect(all.launches.with("cause", "user").count == 1)
    }
}
