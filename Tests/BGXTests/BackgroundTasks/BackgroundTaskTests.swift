import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Begins a background task in the foreground (when the user taps "Send"),
/// the network call takes `sendSeconds`; the expiration handler ends the task
/// only if `endsOnExpiry`.
final class SendInForegroundApp: ApplicationDelegate {
    let sendSeconds: Double
    let endsOnExpiry: Bool
    let journal: Journal
    var sendTask: BackgroundTaskIdentifier = .invalid

    init(sendSeconds: Double, endsOnExpiry: Bool = true, journal: Journal = Journal()) {
        self.sendSeconds = sendSeconds
        self.endsOnExpiry = endsOnExpiry
        self.journal = journal
    }

    func applicationDidBecomeActive(_ application: Application) {
        guard sendTask == .invalid else { return }
        sendTask = application.beginBackgroundTask(withName: "send") {
            self.journal.write("expired, \(application.backgroundTimeRemaining) s left")
            if self.endsOnExpiry {
                application.endBackgroundTask(self.sendTask)
                self.sendTask = .invalid
            }
        }
        journal.write("began \(sendTask)")
        Runtime.asyncAfter(seconds: sendSeconds) {
            self.journal.write("sent")
            guard self.sendTask != .invalid else { return }
            application.endBackgroundTask(self.sendTask)
            self.sendTask = .invalid
        }
    }
}

@Suite("rules §2 — finite-length background tasks")
struct BackgroundTaskTests {

    @Test("rules §2: beginBackgroundTask returns a unique identifier per call, each balanced by its own end")
    func uniqueIdentifiers() {
        final class ThreeUploadsApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                for (name, seconds) in [("photos", 2.0), ("videos", 4.0), ("contacts", 6.0)] {
                    let task = application.beginBackgroundTask(withName: name) {}
                    journal.write("\(name)=\(task)")
                    Runtime.asyncAfter(seconds: seconds) { application.endBackgroundTask(task) }
                }
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.backup")) { ThreeUploadsApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)

        let ids = journal.entries.map { $0.split(separator: "=")[1] }
        #expect(ids.count == 6)
        #expect(Set(ids).count == 6, "identifiers must not repeat, even across background sessions: \(ids)")
        #expect(!ids.contains("0"))
        #expect(device.story(of: app, only: ["bgtask.begin", "bgtask.end"]).suffix(6) == [
            "60 bgtask.begin 4 photos",
            "60 bgtask.begin 5 videos",
            "60 bgtask.begin 6 contacts",
            "62 bgtask.end 4",
            "64 bgtask.end 5",
            "66 bgtask.end 6",
        ])
        #expect(device.engine.openBackgroundTasks(of: app).isEmpty)
    }

    @Test("rules §2: beginBackgroundTask returns .invalid when running in the background is not possible")
    func invalidWhenBackgroundNotPossible() {
        // (1) UIApplicationExitsOnSuspend: the app never runs in the background.
        do {
            let device = SimulatedDevice()
            let journal = Journal()
            let app = device.install(manifest("com.example.legacy", exitsOnSuspend: true)) {
                SendInForegroundApp(sendSeconds: 10, journal: journal)
            }
            device.perform(.launch(app))
            #expect(journal.entries == ["began 0"])
            #expect(device.story(of: app, only: ["bgtask.invalid", "bgtask.begin"]) ==
                    ["0 bgtask.invalid send: the app exits on suspend (UIApplicationExitsOnSuspend)"])
        }
        // (2) The background time is used up: a task begun from the
        // expiration handler is refused.
        do {
            final class GreedyApp: ApplicationDelegate {
                let journal: Journal
                var task: BackgroundTaskIdentifier = .invalid
                init(_ journal: Journal) { self.journal = journal }
                func applicationDidEnterBackground(_ application: Application) {
                    task = application.beginBackgroundTask(withName: "first") {
                        let another = application.beginBackgroundTask(withName: "more time please") {}
                        self.journal.write("another=\(another)")
                        application.endBackgroundTask(self.task)
                    }
                }
            }
            let device = SimulatedDevice()
            let journal = Journal()
            let app = device.install(manifest("com.example.greedy")) { GreedyApp(journal) }
            device.perform(.launch(app))
            device.perform(.home)
            device.advance(seconds: 60)
            #expect(journal.entries == ["another=0"])
            #expect(device.story(of: app, only: ["bgtask.invalid"]) ==
                    ["25 bgtask.invalid more time please: the app's background time has expired"])
            #expect(device.terminations(of: app).isEmpty)
            #expect(device.state(of: app) == .suspended)
        }
        // (3) The app is not running (Engine).
        do {
            var engine = Engine()
            let app = engine.install(manifest("com.example.ghost"))
            #expect(engine.beginBackgroundTask(for: app, name: "ghost") == Engine.invalidBackgroundTask)
            guard case let .bgtaskInvalid(name, reason)? = engine.trace.last?.kind else {
                Issue.record("expected bgtask.invalid, got \(String(describing: engine.trace.last))")
                return
            }
            #expect(engine.text(name) == "ghost" && engine.text(reason) == "the app is not running")
        }
        // (Multitasking off is covered in the §1 suite.)
    }

    @Test("rules §2: the budget counts from entering the background — a task begun 60 s earlier in the foreground still gets 30 s")
    func budgetStartsInBackground() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.chat")) {
            SendInForegroundApp(sendSeconds: 1000, endsOnExpiry: false, journal: journal)
        }
        device.perform(.launch(app))   // t = 0: the task begins in the foreground
        device.advance(seconds: 60)
        #expect(device.events(of: app).allSatisfy { $0.kindName != "bgtask.expire" })

        device.perform(.home)           // t = 60: the clock starts now
        device.advance(seconds: 200)

        #expect(device.story(of: app, only: ["bgtask.begin", "bgtask.expire", "terminate"]) == [
            "0 bgtask.begin 1 send",
            "85 bgtask.expire 1",
            "90 terminate backgroundTaskTimeout",
        ])
        #expect(journal.entries == ["began 1", "expired, 5.0 s left"])
    }

    @Test("rules §2: the expiration handler runs 5 s before the 30 s budget ends; ending the task there suspends the app")
    func expirationHandlerFiveSecondsEarly() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.upload")) { UploadApp(uploadSeconds: 120, journal: journal) }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        device.perform(.home)
        device.advance(seconds: 24.999)
        #expect(journal.entries.isEmpty)
        device.advance(seconds: 300)

        #expect(device.story(of: app).suffix(6) == [
            "10 bgtask.begin 1 upload",
            "10 snapshot sensitiveContentVisible=bool(false)",   // rules §10, after didEnterBackground returns
            "35 bgtask.expire 1",
            "35 callback backgroundTaskExpired 1",
            "35 bgtask.end 1",
            "35 state background→suspended (no assertions)",
        ])
        #expect(journal.entries == ["upload expired"])   // the upload never finished: suspended
        #expect(device.terminations(of: app).isEmpty)
        // The trace line names the task it expires, so it reads without finding its bgtask.begin.
        let expire = device.traceLines.first { $0.contains("\"kind\": \"bgtask.expire\"") }
        #expect(expire == #"{"t": 35, "app": "com.example.upload", "kind": "bgtask.expire", "id": 1, "name": "upload"}"#)
    }

    @Test("rules §2: a task still open when the 30 s budget ends → terminated, reason backgroundTaskTimeout (0x2182bad2), at exactly 30 s")
    func taskOpenAtBudgetEndTerminates() {
        final class ForgetfulApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                _ = application.beginBackgroundTask(withName: "sync") {
                    self.journal.write("expiring")   // ... but never ends the task
                }
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.sync")) { ForgetfulApp(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 7)
        device.perform(.home)
        device.advance(seconds: 29.999)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 100)

        #expect(device.story(of: app).suffix(6) == [
            "7 bgtask.begin 1 sync",
            "7 snapshot sensitiveContentVisible=bool(false)",   // rules §10, after didEnterBackground returns
            "32 bgtask.expire 1",
            "32 callback backgroundTaskExpired 1",
            "37 terminate backgroundTaskTimeout",
            "37 state background→notRunning (terminated)",
        ])
        let kill = device.terminations(of: app).first
        #expect(kill?.code == "0x2182bad2")
        #expect(kill?.detail == "background task \"sync\" still open when the 30s background budget ran out")
        #expect(journal.entries == ["expiring"])
    }

    @Test("rules §2: the budget is 30 s in modern, 180 s in ios12 and 600 s in ios6; expiration 5 s before",
          arguments: [("modern", 30.0), ("ios12", 180.0), ("ios6", 600.0)])
    func budgetPerProfile(profileName: String, budget: Double) throws {
        let profile = try #require(PolicyProfile.named(profileName))
        let device = SimulatedDevice(profile: profile)
        let app = device.install(manifest("com.example.sync")) {
            SendInForegroundApp(sendSeconds: 10_000, endsOnExpiry: false)
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: budget - 0.001)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 1000)

        let expire = Time.format(Time.seconds(budget - 5))
        let end = Time.format(Time.seconds(budget))
        #expect(device.story(of: app, only: ["bgtask.expire", "terminate"]) == [
            "\(expire) bgtask.expire 1",
            "\(end) terminate backgroundTaskTimeout",
        ])
    }

    @Test("rules §2: backgroundTimeRemaining is greatestFiniteMagnitude in the foreground or with no task open, else the budget left")
    func backgroundTimeRemaining() {
        final class CarefulApp: ApplicationDelegate {
            let journal: Journal
            var task: BackgroundTaskIdentifier = .invalid
            init(_ journal: Journal) { self.journal = journal }
            func note(_ label: String, _ application: Application) {
                let left = application.backgroundTimeRemaining
                journal.write("\(label): " + (left == .greatestFiniteMagnitude ? "max" : "\(left)"))
            }
            func applicationDidBecomeActive(_ application: Application) {
                note("active, no task", application)
                task = application.beginBackgroundTask(withName: "prefetch") {}
                note("active, task open", application)
            }
            func applicationDidEnterBackground(_ application: Application) {
                note("entered background", application)
                Runtime.asyncAfter(seconds: 12.5) {
                    self.note("12.5 s later", application)
                    application.endBackgroundTask(self.task)
                    self.note("task ended", application)
                }
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.reader")) { CarefulApp(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 3)
        device.perform(.home)
        device.advance(seconds: 60)

        #expect(journal.entries == [
            "active, no task: max",
            "active, task open: max",
            "entered background: 30.0",
            "12.5 s later: 17.5",
            "task ended: max",
        ])
        #expect(Double.greatestFiniteMagnitude == 1.7976931348623157e308)
    }

    @Test("rules §2: ending an unknown or already-ended identifier logs \"no background task exists with identifier N\" and carries on")
    func endingTwiceIsLoggedNotFatal() {
        final class SloppyApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                let task = application.beginBackgroundTask(withName: "save") {}
                Runtime.asyncAfter(seconds: 2) {
                    application.endBackgroundTask(task)
                    application.endBackgroundTask(task)   // twice
                    application.endBackgroundTask(BackgroundTaskIdentifier(rawValue: 42))   // never begun
                    self.journal.write("still here")
                }
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.sloppy")) { SloppyApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)

        #expect(journal.entries == ["still here"])
        #expect(device.story(of: app).suffix(6) == [
            "0 bgtask.begin 1 save",
            "0 snapshot sensitiveContentVisible=bool(false)",   // rules §10, after didEnterBackground returns
            "2 bgtask.end 1",
            "2 log Can't end BackgroundTask: no background task exists with identifier 1, or it may have already "
                + "been ended. Break in UIApplicationEndBackgroundTaskError() to debug.",
            "2 log Can't end BackgroundTask: no background task exists with identifier 42, or it may have already "
                + "been ended. Break in UIApplicationEndBackgroundTaskError() to debug.",
            "2 state background→suspended (no assertions)",
        ])
        #expect(device.terminations(of: app).isEmpty)
    }

    @Test("rules §2, USER-CASES: an expiration handler that ends a stale identifier (one variable, two tasks) ends the wrong one — the first task stays open and the app is killed")
    func staleIdentifierInExpirationHandler() {
        final class UploaderApp: ApplicationDelegate {
            var upload: BackgroundTaskIdentifier = .invalid
            func startUpload(_ application: Application, seconds: Double) {
                upload = application.beginBackgroundTask(withName: "upload") {
                    application.endBackgroundTask(self.upload)   // whichever upload the variable holds now
                }
                Runtime.asyncAfter(seconds: seconds) { application.endBackgroundTask(self.upload) }
            }
            func applicationDidEnterBackground(_ application: Application) {
                startUpload(application, seconds: 10)
                Runtime.asyncAfter(seconds: 2) { self.startUpload(application, seconds: 5) }   // overwrites `upload`
            }
        }
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.uploader")) { UploaderApp() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)

        #expect(device.story(of: app, only: ["bgtask.begin", "bgtask.end", "bgtask.expire", "log"]) == [
            "0 bgtask.begin 1 upload",
            "2 bgtask.begin 2 upload",
            "7 bgtask.end 2",
            "10 log Can't end BackgroundTask: no background task exists with identifier 2, or it may have already "
                + "been ended. Break in UIApplicationEndBackgroundTaskError() to debug.",
            "25 bgtask.expire 1",
            "25 log Can't end BackgroundTask: no background task exists with identifier 2, or it may have already "
                + "been ended. Break in UIApplicationEndBackgroundTaskError() to debug.",
        ])
        #expect(device.terminations(of: app).map(\.reason) == ["backgroundTaskTimeout"])
    }

    @Test("rules §2: the app is suspended as soon as its last background task ends")
    func suspendedWhenLastTaskEnds() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.backup")) {
            final class TwoUploads: ApplicationDelegate {
                func applicationDidEnterBackground(_ application: Application) {
                    let thumbnails = application.beginBackgroundTask(withName: "thumbnails") {}
                    let originals = application.beginBackgroundTask(withName: "originals") {}
                    Runtime.asyncAfter(seconds: 3) { application.endBackgroundTask(thumbnails) }
                    Runtime.asyncAfter(seconds: 7.25) { application.endBackgroundTask(originals) }
                }
            }
            return TwoUploads()
        }
        device.perform(.launch(app))
        device.advance(seconds: 1)
        device.perform(.home)
        device.advance(seconds: 6)
        #expect(device.state(of: app) == .background)   // one task still open at t = 7
        device.advance(seconds: 60)

        #expect(device.story(of: app, only: ["bgtask.end", "state"]).suffix(3) == [
            "4 bgtask.end 1",
            "8.25 bgtask.end 2",
            "8.25 state background→suspended (no assertions)",
        ])
    }

    @Test("rules §2: open tasks survive a return to the foreground; the next background entry starts a new budget")
    func tasksSurviveReturnToForeground() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.chat")) {
            SendInForegroundApp(sendSeconds: 10_000, endsOnExpiry: false)
        }
        device.perform(.launch(app))
        device.advance(seconds: 1)
        device.perform(.home)          // budget window 1: t = 1 … 31
        device.advance(seconds: 20)
        device.perform(.launch(app))   // back in front at t = 21, before the warning at 26
        #expect(device.engine.openBackgroundTasks(of: app).map(\.name) == ["send"])
        device.advance(seconds: 100)   // the old window's deadlines (26, 31) pass harmlessly
        #expect(device.state(of: app) == .active)
        #expect(device.engine.openBackgroundTasks(of: app).map(\.id) == [1])

        device.perform(.home)          // t = 121: a fresh 30 s
        device.advance(seconds: 100)

        #expect(device.story(of: app, only: ["bgtask.expire", "terminate"]) == [
            "146 bgtask.expire 1",
            "151 terminate backgroundTaskTimeout",
        ])
    }

    @Test("rules §2: every open task's expiration handler runs once, at the same moment")
    func everyExpirationHandlerRuns() {
        final class TwoTasksApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidEnterBackground(_ application: Application) {
                var a = BackgroundTaskIdentifier.invalid, b = BackgroundTaskIdentifier.invalid
                a = application.beginBackgroundTask(withName: "a") {
                    self.journal.write("a expired at \(Runtime.now.timeIntervalSince1970 - 1_767_571_200)")
                    application.endBackgroundTask(a)
                }
                b = application.beginBackgroundTask(withName: "b") {
                    self.journal.write("b expired at \(Runtime.now.timeIntervalSince1970 - 1_767_571_200)")
                    application.endBackgroundTask(b)
                }
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.pair")) { TwoTasksApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        #expect(journal.entries == ["a expired at 25.0", "b expired at 25.0"])
        #expect(device.story(of: app).suffix(7) == [
            "25 bgtask.expire 1",
            "25 bgtask.expire 2",
            "25 callback backgroundTaskExpired 1",
            "25 bgtask.end 1",
            "25 callback backgroundTaskExpired 2",
            "25 bgtask.end 2",
            "25 state background→suspended (no assertions)",
        ])
    }
}
