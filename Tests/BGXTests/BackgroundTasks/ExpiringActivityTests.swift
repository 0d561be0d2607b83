import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// An app (or extension) that saves with `performExpiringActivity` when it
/// goes to the background: the block works `work` seconds unless told the
/// time is up.
final class Saver: ApplicationDelegate {
    let work: Double
    let journal: Journal
    init(work: Double, journal: Journal) {
        self.work = work
        self.journal = journal
    }
    func applicationDidEnterBackground(_ application: Application) {
        ProcessInfo.processInfo.performExpiringActivity(withReason: "save") { [journal, work] expired in
            journal.write("block expired=\(expired) on \(Application.shared.applicationState)")
            if !expired { journal.write("remaining \(Application.shared.backgroundTimeRemaining)") }
            if !expired { Runtime.work(seconds: work) }
        }
        journal.write("didEnterBackground returned")
    }
}

/// rules §13: `ProcessInfo.performExpiringActivity(withReason:using:)` — "Performs
/// the specified block asynchronously and notifies you if the process is about
/// to be suspended." [D][S: WWDC19 707, for app extensions]
/// https://developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
@Suite("rules §13 — performExpiringActivity")
struct ExpiringActivityTests {
    func run(work: Double, profile: PolicyProfile = .modern) -> (SimulatedDevice, AppID, Journal) {
        let device = SimulatedDevice(profile: profile)
        let journal = Journal()
        let app = device.install(manifest("com.example.notes")) { Saver(work: work, journal: journal) }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        device.perform(.home)
        device.advance(seconds: 120)
        return (device, app, journal)
    }

    @Test("rules §13 [D]: the block runs asynchronously on the background queue with expired == false; the process is held until it returns, then suspends")
    func blockHoldsTheProcess() {
        let (device, app, journal) = run(work: 8)
        #expect(journal.entries == ["didEnterBackground returned", "block expired=false on background", "remaining 30.0"])
        #expect(device.details(of: app, only: ["activity.begin", "callback", "activity.end"]).suffix(4) == [
            "10 callback name=didEnterBackground",
            "10 activity.begin id=1 name=save",
            "10 callback name=performExpiringActivity id=1 expired=false queue=background",
            "18 activity.end id=1 name=save reason=the block returned",
        ])
        #expect(device.story(of: app, only: ["state"]).last == "18 state background→suspended (no assertions)")
    }

    @Test("rules §13 [D]: held like a background task — same budget; where an expiration handler would run (25 s) the block is called again with expired == true, and when that returns the process suspends")
    func expiredCallAtTheBudgetsEnd() {
        let (device, app, journal) = run(work: 600)
        #expect(journal.entries == ["didEnterBackground returned", "block expired=false on background", "remaining 30.0",
                                    "block expired=true on background"])
        #expect(device.details(of: app, only: ["activity.expire", "activity.end"]) == [
            "35 activity.expire id=1 name=save reason=the background time is about to run out: the block is called again with expired = true",
            "35 activity.end id=1 name=save reason=the block's expired call returned: the system takes the assertion back",
        ])
        #expect(device.story(of: app, only: ["state"]).last == "35 state background→suspended (no assertions)")
        #expect(device.terminations(of: app).isEmpty)
        #expect(device.engine.stats(of: app).backgroundTasksBegun == 0)
    }

    @Test("rules §13 [S]: an app extension (WWDC19 707: performExpiringActivity is how extensions ask for time) is held the same way")
    func appExtension() {
        let device = SimulatedDevice()
        let journal = Journal()
        _ = device.install(manifest("com.example.notes")) { PlainApp() }
        var share = AppManifest(bundleIdentifier: "com.example.notes.share")
        share.extensionOf = "com.example.notes"
        let ext = device.install(share) { Saver(work: 600, journal: journal) }
        device.perform(.launch(ext))
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(journal.entries == ["didEnterBackground returned", "block expired=false on background", "remaining 30.0",
                                    "block expired=true on background"])
        #expect(device.details(of: ext, only: ["activity.expire"]) == [
            "25 activity.expire id=1 name=save reason=the background time is about to run out: the block is called again with expired = true",
        ])
        #expect(device.story(of: ext, only: ["state"]).last == "25 state background→suspended (no assertions)")
    }

    @Test("rules §13 [D]: the budget is the profile's background-task budget (backgroundTimeRemaining: modern 30 s, ios12 180 s)")
    func sameBudgetAsBackgroundTasks() {
        let (_, _, journal) = run(work: 1, profile: .ios12)
        #expect(journal.entries.contains("remaining 180.0"))
    }

    @Test("rules §13 [D]: with no assertion to be had (the background time is spent), the block runs once, with expired == true, traced activity.refuse")
    func noAssertionRunsOnceExpired() {
        let device = SimulatedDevice()
        let journal = Journal()
        final class Late: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                _ = application.beginBackgroundTask(withName: "long") {}
                Runtime.asyncAfter(seconds: 27) { [journal] in
                    ProcessInfo.processInfo.performExpiringActivity(withReason: "late") { expired in
                        journal.write("late expired=\(expired)")
                    }
                }
            }
        }
        let app = device.install(manifest("com.example.late")) { Late(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(journal.entries == ["late expired=true"])
        #expect(device.details(of: app, only: ["activity.refuse"]) == [
            "27 activity.refuse name=late reason=the app's background time has expired: the block is called once, with expired = true",
        ])
    }

    @Test("rules §13: in a scenario, performExpiringActivity {reason, work} holds the app while the block works, and is called again with expired = true at the budget's end")
    func scenarioAction() throws {
        let scenario = try ScenarioParser(file: "activity.yaml").parse("""
        duration: 1h
        apps:
          - bundle: com.example.share
            on:
              didEnterBackground:
                - performExpiringActivity: {reason: upload, work: 10s}
                - performExpiringActivity: {reason: index, work: 5m}
        timeline:
          - {at: 1m, user: launch com.example.share}
          - {at: 2m, user: home}
        """)
        let run = try ScenarioRun(scenario)
        run.run()
        let app = try #require(run.device.app("com.example.share"))
        #expect(run.device.details(of: app, only: ["activity.begin", "activity.expire", "activity.end"]).map { $0.components(separatedBy: " reason=")[0] } == [
            "120 activity.begin id=1 name=upload", "120 activity.begin id=2 name=index",
            "130 activity.end id=1 name=upload",
            "145 activity.expire id=2 name=index", "145 activity.end id=2 name=index",
        ])
        #expect(ScenarioErrorTests().error("apps:\n  - bundle: a\n    on:\n      didEnterBackground:\n        - performExpiringActivity: {work: 1s}\n")?.message
                == "'performExpiringActivity' needs a reason (its name, not empty)")
    }
}
