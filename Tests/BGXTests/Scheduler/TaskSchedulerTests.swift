import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

// MARK: - Test support for the scheduler test files (rules §5, §6)

let feedBundle = "com.example.colorfeed"
let feedRefresh = "com.example.colorfeed.refresh"
let feedCleanup = "com.example.colorfeed.cleanup"

/// The Info.plist of a ColorFeed-like app: `fetch` and `processing` modes,
/// both identifiers permitted.
func feedManifest(_ bundle: String = feedBundle, modes: Set<BackgroundMode> = [.fetch, .processing],
                  permitted: [String] = [feedRefresh, feedCleanup]) -> AppManifest {
    AppManifest(bundleIdentifier: bundle, backgroundModes: modes, permittedTaskIdentifiers: permitted)
}

/// Apple's ColorFeed sample, as iOS code: registers its launch handlers in
/// `didFinishLaunching`, schedules the next refresh when it goes to the
/// background (earliest in 15 minutes) and again from the refresh handler,
/// fetches asynchronously, and calls `setTaskCompleted(success:)` when done.
/// Every knob is a way real apps get it wrong.
final class FeedApp: ApplicationDelegate {
    let journal: Journal
    /// Seconds the (asynchronous) network fetch takes.
    var fetchSeconds: Double = 2
    /// Busy main-thread seconds in the launch handler (CPU work).
    var handlerWork: Double = 0
    /// Calls setTaskCompleted(success: true) when the fetch finishes.
    var completes = true
    /// Sets `task.expirationHandler`.
    var setsExpirationHandler = true
    /// The expiration handler calls setTaskCompleted(success: false).
    var completesOnExpiry = true
    /// Schedules the next refresh from the refresh handler.
    var resubmits = true
    /// Schedules a refresh from `applicationDidEnterBackground`.
    var submitsOnBackground = true
    /// Also submits the cleanup processing request when going to the background.
    var processing: (requiresExternalPower: Bool, requiresNetwork: Bool)?
    /// Seconds from now for the refresh's earliestBeginDate.
    var refreshDelay: Double = 15 * 60
    /// Registers the refresh handler (false: forgets to, in every process).
    var registersRefresh = true
    /// Submits a refresh only when none is pending (keeps the first date).
    var keepsPending = false

    init(_ journal: Journal = Journal()) { self.journal = journal }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        if registersRefresh {
            let ok = BGTaskScheduler.shared.register(forTaskWithIdentifier: feedRefresh, using: nil) { task in
                self.handleAppRefresh(task as! BGAppRefreshTask)
            }
            journal.write("register refresh \(ok)")
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: feedCleanup, using: nil) { task in
            self.handleCleanup(task as! BGProcessingTask)
        }
        return true
    }

    func applicationDidEnterBackground(_ application: Application) {
        if submitsOnBackground { scheduleAppRefresh() }
        if let p = processing {
            let request = BGProcessingTaskRequest(identifier: feedCleanup)
            request.requiresExternalPower = p.requiresExternalPower
            request.requiresNetworkConnectivity = p.requiresNetwork
            submit(request)
        }
    }

    func scheduleAppRefresh() {
        if keepsPending {
            var pending = false
            BGTaskScheduler.shared.getPendingTaskRequests { pending = $0.contains { $0.identifier == feedRefresh } }
            if pending { return }
        }
        let request = BGAppRefreshTaskRequest(identifier: feedRefresh)
        request.earliestBeginDate = Runtime.now.addingTimeInterval(refreshDelay)
        submit(request)
    }

    func submit(_ request: BGTaskRequest) {
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch let error as BGTaskScheduler.Error {
            journal.write("submit \(request.identifier) failed: \(error)")
        } catch {
            journal.write("submit \(request.identifier) failed: \(error)")
        }
    }

    func handleAppRefresh(_ task: BGAppRefreshTask) {
        journal.write("refresh started")
        if resubmits { scheduleAppRefresh() }
        run(task)
    }

    func handleCleanup(_ task: BGProcessingTask) {
        journal.write("cleanup started")
        run(task)
    }

    func run(_ task: BGTask) {
        var finished = false
        if setsExpirationHandler {
            task.expirationHandler = {
                self.journal.write("\(task.identifier) expired")
                if self.completesOnExpiry && !finished {
                    finished = true
                    task.setTaskCompleted(success: false)
                }
            }
        }
        if handlerWork > 0 { Runtime.work(seconds: handlerWork) }
        Runtime.asyncAfter(seconds: fetchSeconds) {
            self.journal.write("\(task.identifier) fetched")
            if self.completes && !finished {
                finished = true
                task.setTaskCompleted(success: true)
            }
        }
    }
}

/// One scheduler event of the trace, plainly: when, what, for which
/// identifier, and its reason / error / success / result.
struct SchedulerEvent: CustomStringConvertible {
    var t: Double
    var kind: String
    var identifier: String
    var info: String
    var description: String { "\(Time.format(Time.seconds(t))) \(kind) \(identifier) \(info)" }
}

let schedulerKinds: Set<String> = ["task.register", "task.submit", "task.reject", "task.cancel", "task.defer",
                                   "task.start", "task.expire", "task.complete",
                                   "fetch.defer", "fetch.start", "fetch.complete"]

extension SimulatedDevice {
    /// The BGTaskScheduler and fetch events of an app.
    func schedulerEvents(of app: AppID, only kinds: Set<String> = schedulerKinds) -> [SchedulerEvent] {
        let renderer = self.renderer
        return events(of: app).filter { kinds.contains($0.kindName) }.map { event in
            var identifier = "", info: [String] = []
            for (name, value) in renderer.fields(of: event) {
                let text: String
                switch value {
                case let .string(s): text = s
                case let .bool(b): text = "\(b)"
                case let .number(n): text = n == n.rounded() ? "\(Int64(n))" : "\(n)"
                }
                // (dasd's scores are read on their own: DasdPolicyTests.)
                if name == "identifier" { identifier = text }
                else if !["code", "type", "currentScore", "thresholdScore", "decisionToRun"].contains(name) { info.append(text) }
            }
            return SchedulerEvent(t: Time.toSeconds(event.time), kind: event.kindName, identifier: identifier,
                                  info: info.joined(separator: " "))
        }
    }

    /// Times (seconds) of an app's `task.start` events, optionally for one identifier.
    func taskStarts(of app: AppID, _ identifier: String? = nil) -> [Double] {
        schedulerEvents(of: app, only: ["task.start"])
            .filter { identifier == nil || $0.identifier == identifier }.map(\.t)
    }

    /// The reasons of an app's `task.defer` events.
    func deferReasons(of app: AppID) -> [String] {
        schedulerEvents(of: app, only: ["task.defer"]).map(\.info)
    }

    func advance(hours: Double) { advance(seconds: hours * 3600) }
}

/// A device with the feed app, used once by the person: launched at 60 s,
/// sent home at 120 s (which submits the refresh).
func feedDevice(_ configure: @escaping (FeedApp) -> Void = { _ in }, state: DeviceState = DeviceState(),
                manifest: AppManifest = feedManifest(), journal: Journal = Journal())
    -> (device: SimulatedDevice, app: AppID, journal: Journal) {
    let device = SimulatedDevice(device: state)
    let app = device.install(manifest) {
        let feed = FeedApp(journal)
        configure(feed)
        return feed
    }
    device.advance(seconds: 60)
    device.perform(.launch(app))
    device.advance(seconds: 60)
    device.perform(.home)
    return (device, app, journal)
}

/// 8 h after the first use at 60 s: a used app with no background launch
/// yet gets its refresh once it is this stale (SchedulerSettings.refreshStaleness).
let firstStaleRefresh: Double = 60 + 8 * 3600

// MARK: - rules §5: registration

@Suite("rules §5 — BGTaskScheduler: register, submit, cancel, run, expire")
struct TaskSchedulerTests {

    @Test("rules §5: register before launch finishes returns true and is traced")
    func registerBeforeLaunchFinishes() {
        let (device, app, journal) = feedDevice()
        #expect(journal.entries.first == "register refresh true")
        #expect(device.schedulerEvents(of: app, only: ["task.register"]).map(\.description) == [
            "60 task.register \(feedRefresh) ", "60 task.register \(feedCleanup) ",
        ])
        #expect(device.terminations(of: app).isEmpty)
    }

    @Test("rules §5: register after launch finished kills the app (registrationAfterLaunch)")
    func registerAfterLaunchKills() {
        final class LateApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func applicationDidBecomeActive(_ application: Application) {
                let ok = BGTaskScheduler.shared.register(forTaskWithIdentifier: feedRefresh, using: nil) { _ in }
                journal.write("register \(ok)")
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(feedManifest()) { LateApp(journal) }
        device.advance(seconds: 10)
        device.perform(.launch(app))
        device.advance(seconds: 10)
        let kills = device.terminations(of: app)
        #expect(kills.map(\.t) == [10])
        #expect(kills.map(\.reason) == ["registrationAfterLaunch"])
        #expect(kills.first?.detail.contains("NSInternalInconsistencyException") == true)
        #expect(device.schedulerEvents(of: app, only: ["task.register"]).isEmpty)
        #expect(device.state(of: app) == .notRunning)
    }

    @Test("rules §5: register for an identifier not in BGTaskSchedulerPermittedIdentifiers returns false, no kill")
    func registerNotPermittedReturnsFalse() {
        let (device, app, journal) = feedDevice(manifest: feedManifest(permitted: [feedCleanup]))
        #expect(journal.entries.first == "register refresh false")
        #expect(device.schedulerEvents(of: app, only: ["task.register"]).map(\.identifier) == [feedCleanup])
        #expect(device.terminations(of: app).isEmpty)
        // …and its submit then fails with notPermitted (identifier missing).
        #expect(journal.entries.contains("submit \(feedRefresh) failed: notPermitted"))
    }

    @Test("rules §5: registering the same identifier twice kills the app (launchHandlerRegisteredTwice)")
    func registerTwiceKills() {
        final class TwiceApp: ApplicationDelegate {
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                BGTaskScheduler.shared.register(forTaskWithIdentifier: feedRefresh, using: nil) { _ in }
                BGTaskScheduler.shared.register(forTaskWithIdentifier: feedRefresh, using: nil) { _ in }
                return true
            }
        }
        let device = SimulatedDevice()
        let app = device.install(feedManifest()) { TwiceApp() }
        device.advance(seconds: 5)
        device.perform(.launch(app))
        #expect(device.terminations(of: app).map { "\($0.t) \($0.reason)" } == ["5.0 launchHandlerRegisteredTwice"])
        #expect(device.schedulerEvents(of: app, only: ["task.register"]).count == 1)
    }

    @Test("rules §5: a scenario app killed in the middle of a handler runs none of the handler's later actions")
    func nothingRunsAfterASynchronousKill() throws {
        let run = try ScenarioRun(try ScenarioParser(file: "twice.yaml").parse("""
        duration: 1m
        apps:
          - bundle: com.example.twice
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.twice.refresh]
            on:
              didFinishLaunching:
                - register: com.example.twice.refresh
                - register: com.example.twice.refresh
                - beginBackgroundTask: after
                - notify: {id: after, after: 5s}
        timeline:
          - {at: 1s, user: launch com.example.twice}
        """))
        run.run(until: Time.seconds(60))
        let kinds = run.device.trace.map(\.kindName)
        #expect(kinds.contains("terminate"))
        #expect(!kinds.contains("bgtask.begin") && !kinds.contains("notification.schedule"), "\(kinds)")
    }

    @Test("rules §5: submitting a request with no launch handler registered kills the app (noLaunchHandler)")
    func submitWithoutHandlerKills() {
        let (device, app, _) = feedDevice { $0.registersRefresh = false }
        let kills = device.terminations(of: app)
        #expect(kills.map(\.t) == [120])
        #expect(kills.map(\.reason) == ["noLaunchHandler"])
        #expect(kills.first?.detail.contains("No launch handler registered for task with identifier \(feedRefresh)") == true)
        #expect(device.engine.pendingTaskRequests(for: app).isEmpty)
    }

    @Test("rules §5: a task launched into a process that did not register its handler kills the app (noLaunchHandler)")
    func launchIntoProcessWithoutHandler() {
        // The first process registers and submits; the process the system
        // launches for the task registers nothing (registration hidden
        // behind a user-launch check: a real bug pattern).
        final class ConditionalApp: ApplicationDelegate {
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                if options == nil {
                    BGTaskScheduler.shared.register(forTaskWithIdentifier: feedRefresh, using: nil) { task in
                        task.setTaskCompleted(success: true)
                    }
                }
                return true
            }
            func applicationDidEnterBackground(_ application: Application) {
                try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: feedRefresh))
            }
        }
        let device = SimulatedDevice()
        let app = device.install(feedManifest()) { ConditionalApp() }
        device.perform(.launch(app))
        device.perform(.home)             // registered in this process; submits
        device.advance(seconds: 10)
        device.change(.reboot)            // the process ends (no force-quit mark)
        device.perform(.unlock)
        #expect(device.engine.pendingTaskRequests(for: app).map(\.identifier) == [feedRefresh])
        #expect(device.simulateLaunch(app, identifier: feedRefresh))
        #expect(device.story(of: app, only: ["launch", "terminate"]).suffix(2) == [
            "10 launch bgTask", "10 terminate noLaunchHandler",
        ])
    }

    // MARK: Submission errors

    @Test("rules §5: submit throws unavailable (1) when Background App Refresh is off in Settings")
    func submitUnavailableGlobalSwitch() {
        var state = DeviceState()
        state.backgroundAppRefresh = false
        let (device, app, journal) = feedDevice(state: state)
        #expect(journal.entries.contains("submit \(feedRefresh) failed: unavailable"))
        let rejects = device.schedulerEvents(of: app, only: ["task.reject"])
        #expect(rejects.map(\.description) == [
            "120 task.reject \(feedRefresh) unavailable Background App Refresh is off in Settings",
        ])
        #expect(BGTaskSchedulerError.unavailable.rawValue == 1)
        #expect(device.engine.pendingTaskRequests(for: app).isEmpty)
    }

    @Test("rules §5: submit throws unavailable when the app's own Background App Refresh switch is off")
    func submitUnavailablePerApp() {
        var manifest = feedManifest()
        manifest.backgroundAppRefresh = false
        let (device, app, journal) = feedDevice(manifest: manifest)
        #expect(journal.entries.contains("submit \(feedRefresh) failed: unavailable"))
        #expect(device.schedulerEvents(of: app, only: ["task.reject"]).map(\.info) == [
            "unavailable Background App Refresh is off for this app in Settings",
        ])
    }

    @Test("rules §5: submit throws notPermitted (3) when the background mode is missing")
    func submitNotPermittedMode() {
        // A processing request from an app with only `fetch`.
        let (device, app, journal) = feedDevice({ $0.processing = (false, false) },
                                                manifest: feedManifest(modes: [.fetch]))
        #expect(journal.entries.contains("submit \(feedCleanup) failed: notPermitted"))
        #expect(!journal.entries.contains { $0.hasPrefix("submit \(feedRefresh) failed") })
        #expect(device.schedulerEvents(of: app, only: ["task.reject"]).map(\.info) == [
            "notPermitted UIBackgroundModes lacks 'processing'",
        ])
        #expect(BGTaskSchedulerError.notPermitted.rawValue == 3)
        #expect(device.engine.pendingTaskRequests(for: app).map(\.identifier) == [feedRefresh])
    }

    @Test("rules §5: submit throws notPermitted when the identifier is not in BGTaskSchedulerPermittedIdentifiers")
    func submitNotPermittedIdentifier() {
        let (device, app, journal) = feedDevice(manifest: feedManifest(permitted: [feedCleanup]))
        #expect(journal.entries.contains("submit \(feedRefresh) failed: notPermitted"))
        #expect(device.schedulerEvents(of: app, only: ["task.reject"]).map(\.info) == [
            "notPermitted \(feedRefresh) is not in BGTaskSchedulerPermittedIdentifiers",
        ])
        #expect(device.terminations(of: app).isEmpty)
    }

    /// Submits the given requests from `didEnterBackground`, journaling each result.
    final class ManyRequestsApp: ApplicationDelegate {
        let requests: () -> [BGTaskRequest]
        let journal: Journal
        var pending: [String] = []
        init(_ journal: Journal, _ requests: @escaping () -> [BGTaskRequest]) {
            self.journal = journal
            self.requests = requests
        }
        func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
            for request in requests() {
                BGTaskScheduler.shared.register(forTaskWithIdentifier: request.identifier, using: nil) { $0.setTaskCompleted(success: true) }
            }
            return true
        }
        func applicationDidEnterBackground(_ application: Application) {
            for request in requests() {
                do {
                    try BGTaskScheduler.shared.submit(request)
                    journal.write("\(request.identifier) ok")
                } catch let error as BGTaskScheduler.Error {
                    journal.write("\(request.identifier) \(error) (\(error.rawValue))")
                } catch {
                    journal.write("\(request.identifier) \(error)")
                }
            }
            BGTaskScheduler.shared.getPendingTaskRequests { self.pending = $0.map(\.identifier) }
        }
    }

    @Test("rules §5: submit throws tooManyPendingTaskRequests (2) for a second app-refresh identifier")
    func tooManyRefresh() {
        let ids = ["com.example.multi.a", "com.example.multi.b"]
        let journal = Journal()
        var app: ManyRequestsApp?
        let device = SimulatedDevice()
        let id = device.install(AppManifest(bundleIdentifier: "com.example.multi", backgroundModes: [.fetch],
                                            permittedTaskIdentifiers: ids)) {
            let made = ManyRequestsApp(journal) { ids.map { BGAppRefreshTaskRequest(identifier: $0) } }
            app = made
            return made
        }
        device.perform(.launch(id))
        device.perform(.home)
        #expect(journal.entries == ["com.example.multi.a ok", "com.example.multi.b tooManyPendingTaskRequests (2)"])
        #expect(app?.pending == ["com.example.multi.a"])
        #expect(device.schedulerEvents(of: id, only: ["task.reject"]).map(\.info) == [
            "tooManyPendingTaskRequests 1 appRefresh request(s) already pending (at most 1)",
        ])
    }

    @Test("rules §5: submit throws tooManyPendingTaskRequests for an 11th processing identifier")
    func tooManyProcessing() {
        let ids = (1...11).map { "com.example.multi.p\($0)" }
        let journal = Journal()
        let device = SimulatedDevice()
        var app: ManyRequestsApp?
        let id = device.install(AppManifest(bundleIdentifier: "com.example.multi", backgroundModes: [.processing],
                                            permittedTaskIdentifiers: ids)) {
            let made = ManyRequestsApp(journal) { ids.map { BGProcessingTaskRequest(identifier: $0) } }
            app = made
            return made
        }
        device.perform(.launch(id))
        device.perform(.home)
        #expect(journal.entries.prefix(10).allSatisfy { $0.hasSuffix(" ok") })
        #expect(journal.entries.last == "com.example.multi.p11 tooManyPendingTaskRequests (2)")
        #expect(app?.pending == Array(ids.prefix(10)))
        #expect(device.engine.pendingTaskRequests(for: id).count == 10)
    }

    @Test("rules §5: resubmitting an identifier replaces its pending request (no error, one pending, new date)")
    func resubmitReplaces() {
        let (device, app, journal) = feedDevice()
        // The person uses the app again: didEnterBackground submits again.
        device.advance(seconds: 600)
        device.perform(.launch(app))
        device.perform(.home)
        #expect(!journal.entries.contains { $0.contains("failed") })
        let submits = device.schedulerEvents(of: app, only: ["task.submit"])
        #expect(submits.map(\.description) == [
            "120 task.submit \(feedRefresh) false",
            "720 task.submit \(feedRefresh) true",
        ])
        let pending = device.engine.pendingTaskRequests(for: app)
        #expect(pending.count == 1)
        // The new request's earliest date (720 s + 15 min) replaced the old one (120 s + 15 min).
        #expect(pending.first.flatMap(\.earliestBegin).map { abs(Time.toSeconds($0) - 1620) < 0.001 } == true)
    }

    @Test("rules §5: cancel(taskRequestWithIdentifier:), cancelAllTaskRequests() and getPendingTaskRequests")
    func cancelAndPending() {
        final class CancellingApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                for id in [feedRefresh, feedCleanup] {
                    BGTaskScheduler.shared.register(forTaskWithIdentifier: id, using: nil) { $0.setTaskCompleted(success: true) }
                }
                return true
            }
            func pending() -> String {
                var names: [String] = []
                BGTaskScheduler.shared.getPendingTaskRequests { requests in
                    names = requests.map { "\(type(of: $0)):\($0.identifier)" }
                }
                return names.sorted().joined(separator: ",")
            }
            func applicationDidEnterBackground(_ application: Application) {
                let refresh = BGAppRefreshTaskRequest(identifier: feedRefresh)
                refresh.earliestBeginDate = Runtime.now.addingTimeInterval(3600)
                let cleanup = BGProcessingTaskRequest(identifier: feedCleanup)
                cleanup.requiresExternalPower = true
                try? BGTaskScheduler.shared.submit(refresh)
                try? BGTaskScheduler.shared.submit(cleanup)
                journal.write("pending " + pending())
                BGTaskScheduler.shared.getPendingTaskRequests { requests in
                    let p = requests.compactMap { $0 as? BGProcessingTaskRequest }.first
                    let r = requests.first { $0 is BGAppRefreshTaskRequest }
                    let delay = r?.earliestBeginDate.map { $0.timeIntervalSince(Runtime.now) } ?? -1
                    self.journal.write("power \(p?.requiresExternalPower == true) delay \(Int(delay.rounded()))")
                }
                BGTaskScheduler.shared.cancel(taskRequestWithIdentifier: feedRefresh)
                journal.write("after cancel " + pending())
                BGTaskScheduler.shared.cancel(taskRequestWithIdentifier: "com.example.never.submitted")
                BGTaskScheduler.shared.cancelAllTaskRequests()
                journal.write("after cancelAll " + pending())
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(feedManifest()) { CancellingApp(journal) }
        device.perform(.launch(app))
        device.perform(.home)
        #expect(journal.entries == [
            "pending BGAppRefreshTaskRequest:\(feedRefresh),BGProcessingTaskRequest:\(feedCleanup)",
            "power true delay 3600",
            "after cancel BGProcessingTaskRequest:\(feedCleanup)",
            "after cancelAll ",
        ])
        #expect(device.schedulerEvents(of: app, only: ["task.cancel"]).map(\.identifier) == [feedRefresh, feedCleanup])
        // Nothing cancelled ever runs.
        device.advance(hours: 48)
        #expect(device.taskStarts(of: app).isEmpty)
    }

    // MARK: Running

    @Test("rules §5: each request causes at most one launch; without a resubmission the task never runs again")
    func oneLaunchPerRequest() {
        let (device, app, journal) = feedDevice { $0.resubmits = false }
        device.advance(hours: 72)
        #expect(device.taskStarts(of: app, feedRefresh) == [firstStaleRefresh])
        #expect(journal.entries.filter { $0 == "refresh started" }.count == 1)
        #expect(device.engine.pendingTaskRequests(for: app).isEmpty)
        let story = device.schedulerEvents(of: app, only: ["task.start", "task.complete"]).map(\.description)
        #expect(story.count == 2)
        #expect(story.last == "\(Time.format(Time.seconds(firstStaleRefresh + 2))) task.complete \(feedRefresh) true")
    }

    @Test("rules §5: resubmitting from the launch handler makes the refresh repeat")
    func resubmitRepeats() {
        let (device, app, _) = feedDevice()
        device.advance(hours: 48)
        let starts = device.taskStarts(of: app, feedRefresh)
        #expect(starts.first == firstStaleRefresh)
        #expect(starts.count >= 3, "a resubmitting app keeps getting refreshes: \(starts)")
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 >= 3600 }, "launches are spaced: \(starts)")
    }

    @Test("rules §5: a request resubmitted from its own launch handler waits for that run to end (no restart at the same instant)")
    func resubmitFromHandlerWaitsForTheRun() {
        // A nightly backup resubmits itself first thing in its handler, with
        // no earliest date: the next run must not start while this one runs.
        final class NightlyBackupApp: ApplicationDelegate {
            static let id = "com.example.backup.nightly"
            func schedule() {
                let request = BGProcessingTaskRequest(identifier: Self.id)
                request.requiresExternalPower = true
                try? BGTaskScheduler.shared.submit(request)
            }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.id, using: nil) { task in
                    self.schedule()
                    task.expirationHandler = { task.setTaskCompleted(success: false) }
                    Runtime.asyncAfter(seconds: 10) { task.setTaskCompleted(success: true) }
                }
                return true
            }
            func applicationDidEnterBackground(_ application: Application) { schedule() }
        }
        var state = DeviceState()
        state.charging = true
        let device = SimulatedDevice(device: state)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.backup", backgroundModes: [.processing],
                                             permittedTaskIdentifiers: [NightlyBackupApp.id])) { NightlyBackupApp() }
        var events = 0
        device.traceSink = { batch in
            events += batch.count
            // Before the fix this run never returned: start, resubmit, start … at one instant.
            precondition(events < 100_000, "livelock: a resubmitted task restarts at the same instant")
        }
        device.perform(.launch(app))
        device.advance(seconds: 120)
        device.perform(.lock)                  // idle from 720
        device.advance(seconds: 680)           // t = 800
        device.perform(.unlock)
        let log = device.schedulerEvents(of: app, only: ["task.start", "task.complete"])
        let starts = log.filter { $0.kind == "task.start" }.map(\.t)
        #expect(starts.first == 720)
        #expect(Set(starts).count == starts.count, "two runs started at one instant: \(starts)")
        // Every run starts only after the previous one completed.
        var running = false
        for e in log {
            if e.kind == "task.start" { #expect(!running, "\(e) while the previous run was still running"); running = true }
            else { running = false }
        }
        #expect(device.terminations(of: app).isEmpty)
    }

    @Test("rules §5: a refresh launch of a suspended app resumes it into the background and suspends it after completion")
    func refreshResumesSuspendedApp() {
        let (device, app, _) = feedDevice()
        device.advance(seconds: firstStaleRefresh + 10 - device.nowSeconds)
        let t = Time.format(Time.seconds(firstStaleRefresh))
        let t2 = Time.format(Time.seconds(firstStaleRefresh + 2))
        #expect(device.story(of: app, only: ["state", "callback"]).suffix(3) == [
            "\(t) state suspended→background (resumed)",
            "\(t) callback bgTask",
            "\(t2) state background→suspended (no assertions)",
        ])
    }

    /// Registers every identifier; each handler journals, never finishes its
    /// work, and completes unsuccessfully from its expiration handler.
    final class SlowTasksApp: ApplicationDelegate {
        let requests: () -> [BGTaskRequest]
        let journal: Journal
        init(_ journal: Journal, _ requests: @escaping () -> [BGTaskRequest]) {
            self.journal = journal
            self.requests = requests
        }
        func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
            for request in requests() {
                BGTaskScheduler.shared.register(forTaskWithIdentifier: request.identifier, using: nil) { task in
                    self.journal.write("\(task.identifier) started, \(type(of: task))")
                    task.expirationHandler = {
                        self.journal.write("\(task.identifier) expired")
                        task.setTaskCompleted(success: false)
                    }
                }
            }
            return true
        }
        func applicationDidEnterBackground(_ application: Application) {
            for request in requests() { try? BGTaskScheduler.shared.submit(request) }
        }
    }

    @Test("rules §5: several tasks share one launch — two processing requests start together in one launch and expire together")
    func tasksShareOneLaunch() {
        let ids = ["com.example.photos.index", "com.example.photos.thumbnails"]
        var state = DeviceState()
        state.charging = true
        let device = SimulatedDevice(device: state)
        let journal = Journal()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.photos", backgroundModes: [.processing],
                                             permittedTaskIdentifiers: ids)) {
            SlowTasksApp(journal) { ids.map { BGProcessingTaskRequest(identifier: $0) } }
        }
        device.perform(.launch(app))
        device.advance(seconds: 60)
        device.perform(.lock)              // t = 60: idle from 660
        device.advance(hours: 1)
        #expect(device.schedulerEvents(of: app, only: ["task.start"]).map(\.t) == [660, 660])
        // One process, woken once, carries both tasks.
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        #expect(device.story(of: app, only: ["state"]).filter { $0.contains("resumed") } == [
            "660 state suspended→background (resumed)",
        ])
        #expect(device.story(of: app, only: ["callback"]).filter { $0.hasPrefix("660 ") } == [
            "660 callback bgTask", "660 callback bgTask",
        ])
        // Processing has 300 s per launch: both expire at 295 s, together.
        #expect(device.schedulerEvents(of: app, only: ["task.expire"]).map(\.t) == [955, 955])
        #expect(journal.entries.filter { $0.hasSuffix("expired") }.count == 2)
        #expect(journal.entries.contains("com.example.photos.index started, BGProcessingTask"))
        #expect(device.terminations(of: app).isEmpty)
    }

    @Test("rules §5: the time budget is per launch, not per task — a task handed over 10 s later expires with the first")
    func budgetIsPerLaunch() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(feedManifest()) {
            SlowTasksApp(journal) { [BGAppRefreshTaskRequest(identifier: feedRefresh), BGProcessingTaskRequest(identifier: feedCleanup)] }
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 200)
        #expect(device.simulateLaunch(app, identifier: feedRefresh))   // t = 200: a 30 s refresh launch
        device.advance(seconds: 10)
        #expect(device.simulateLaunch(app, identifier: feedCleanup))   // t = 210: joins the same launch
        device.advance(seconds: 600)
        #expect(device.schedulerEvents(of: app, only: ["task.start", "task.expire", "task.complete"]).map(\.description) == [
            "200 task.start \(feedRefresh) _simulateLaunchForTaskWithIdentifier",
            "210 task.start \(feedCleanup) _simulateLaunchForTaskWithIdentifier",
            "225 task.expire \(feedRefresh) ",
            "225 task.expire \(feedCleanup) ",
            "225 task.complete \(feedRefresh) false",
            "225 task.complete \(feedCleanup) false",
        ])
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        #expect(device.terminations(of: app).isEmpty)
    }

    @Test("rules §5: an app refresh has 30 s — the expiration handler runs at 25 s; completing there avoids a kill")
    func refreshExpiresAt25Seconds() {
        let (device, app, journal) = feedDevice { $0.fetchSeconds = 120; $0.resubmits = false }
        device.advance(hours: 9)
        let t0 = firstStaleRefresh
        #expect(device.schedulerEvents(of: app, only: ["task.start", "task.expire", "task.complete"]).map(\.t) == [
            t0, t0 + 25, t0 + 25,
        ])
        #expect(device.schedulerEvents(of: app, only: ["task.complete"]).map(\.info) == ["false"])
        #expect(journal.entries.contains("\(feedRefresh) expired"))
        #expect(device.story(of: app, only: ["callback"]).contains("\(Time.format(Time.seconds(t0 + 25))) callback bgTaskExpired"))
        #expect(device.terminations(of: app).isEmpty)
    }

    @Test("rules §5: setTaskCompleted is still required after expiry — an expiration handler that only cancels is killed at 30 s (taskNotCompleted)")
    func expiryStillNeedsCompletion() {
        let (device, app, journal) = feedDevice {
            $0.fetchSeconds = 120
            $0.completesOnExpiry = false
            $0.resubmits = false
        }
        device.advance(hours: 9)
        let t0 = firstStaleRefresh
        #expect(journal.entries.contains("\(feedRefresh) expired"))
        let kills = device.terminations(of: app)
        #expect(kills.map(\.t) == [t0 + 30])
        #expect(kills.map(\.reason) == ["taskNotCompleted"])
        #expect(kills.first?.detail.contains("setTaskCompleted(success:) was not called for \(feedRefresh)") == true)
        // The late network reply never arrives: the process is gone.
        #expect(!journal.entries.contains("\(feedRefresh) fetched"))
    }

    @Test("rules §5: no expirationHandler set → the task is completed unsuccessfully at expiry, and the app is not killed")
    func noExpirationHandlerCompletesUnsuccessfully() {
        let (device, app, journal) = feedDevice {
            $0.fetchSeconds = 120
            $0.setsExpirationHandler = false
            $0.resubmits = false
        }
        device.advance(hours: 9)
        let t0 = firstStaleRefresh
        #expect(device.schedulerEvents(of: app, only: ["task.expire", "task.complete"]).map(\.description) == [
            "\(Time.format(Time.seconds(t0 + 25))) task.expire \(feedRefresh) ",
            "\(Time.format(Time.seconds(t0 + 25))) task.complete \(feedRefresh) false",
        ])
        #expect(device.terminations(of: app).isEmpty)
        #expect(!journal.entries.contains("\(feedRefresh) expired"))
        #expect(!device.story(of: app, only: ["callback"]).contains { $0.hasSuffix("bgTaskExpired") })
    }

    @Test("rules §5: a task never completed kills the app (taskNotCompleted) and later launches are spaced further")
    func uncompletedTasksArePenalised() {
        // Two identical apps on two identical devices, used the same way
        // (opened at 08:00, 12:00 and 19:00 every day); one never completes.
        func run(completes: Bool) -> (device: SimulatedDevice, app: AppID) {
            let device = SimulatedDevice()
            let app = device.install(feedManifest()) {
                let feed = FeedApp()
                feed.completes = completes
                feed.completesOnExpiry = completes
                feed.fetchSeconds = completes ? 2 : 3600
                return feed
            }
            for day in 0..<4 {
                for hour in [8, 12, 19] {
                    device.advance(seconds: Double(day * 86_400 + hour * 3600) - device.nowSeconds)
                    device.perform(.launch(app))
                    device.advance(seconds: 300)
                    device.perform(.home)
                }
            }
            device.advance(seconds: 4 * 86_400 - device.nowSeconds)
            return (device, app)
        }
        let honest = run(completes: true)
        let sloppy = run(completes: false)
        let honestStarts = honest.device.taskStarts(of: honest.app)
        let sloppyStarts = sloppy.device.taskStarts(of: sloppy.app)
        let sloppyKills = sloppy.device.terminations(of: sloppy.app)
        #expect(honest.device.terminations(of: honest.app).isEmpty)
        #expect(!sloppyKills.isEmpty)
        #expect(sloppyKills.allSatisfy { $0.reason == "taskNotCompleted" })
        #expect(sloppyKills.count == sloppyStarts.count)
        #expect(zip(sloppyStarts, sloppyKills).allSatisfy { $1.t == $0 + 30 })
        #expect(sloppyStarts.count < honestStarts.count,
                "penalised: \(sloppyStarts.count) launches vs \(honestStarts.count) — \(sloppyStarts) vs \(honestStarts)")
        // The penalty is named where the developer looks: the defer reason and `explain`.
        #expect(sloppy.device.deferReasons(of: sloppy.app).contains {
            $0.hasPrefix("ActivityRateLimitPolicy:") && $0.contains("task(s) left uncompleted")
        })
        #expect(!honest.device.deferReasons(of: honest.app).contains { $0.contains("left uncompleted") })
        let explanation = sloppy.device.engine.explainTask(app: sloppy.app, identifier: feedRefresh)
        #expect(explanation.history.contains { $0.what.contains("never completed") })
    }

    // MARK: Debug controls

    @Test("rules §5: _simulateLaunchForTaskWithIdentifier starts a pending task now, launching the app (cause bgTask) if not running")
    func simulateLaunchStartsNow() {
        let (device, app, journal) = feedDevice { $0.resubmits = false }
        device.perform(.forceQuit(app))     // not running (and force-quit: the debugger does not care)
        device.advance(seconds: 30)         // t = 150
        #expect(device.state(of: app) == .notRunning)
        #expect(device.simulateLaunch(app, identifier: feedRefresh))
        #expect(device.story(of: app, only: ["launch"]).last == "150 launch bgTask")
        #expect(device.schedulerEvents(of: app, only: ["task.start"]).map(\.description) == [
            "150 task.start \(feedRefresh) _simulateLaunchForTaskWithIdentifier",
        ])
        #expect(journal.entries.suffix(2) == ["register refresh true", "refresh started"])
        device.advance(seconds: 5)
        #expect(device.schedulerEvents(of: app, only: ["task.complete"]).map(\.description) == [
            "152 task.complete \(feedRefresh) true",
        ])
        // Nothing pending: a second simulated launch does nothing.
        #expect(!device.simulateLaunch(app, identifier: feedRefresh))
        #expect(device.taskStarts(of: app).count == 1)
    }

    @Test("rules §5: _simulateExpirationForTaskWithIdentifier runs the expiration handler now")
    func simulateExpirationRunsHandler() {
        let (device, app, journal) = feedDevice { $0.fetchSeconds = 20; $0.resubmits = false }
        device.advance(seconds: 80)  // t = 200
        #expect(device.simulateLaunch(app, identifier: feedRefresh))
        device.advance(seconds: 3)   // t = 203
        #expect(device.simulateExpiration(app, identifier: feedRefresh))
        device.advance(seconds: 60)
        #expect(device.schedulerEvents(of: app, only: ["task.start", "task.expire", "task.complete"]).map(\.description) == [
            "200 task.start \(feedRefresh) _simulateLaunchForTaskWithIdentifier",
            "203 task.expire \(feedRefresh) ",
            "203 task.complete \(feedRefresh) false",
        ])
        #expect(journal.entries.contains("\(feedRefresh) expired"))
        #expect(device.terminations(of: app).isEmpty)
        // Expiring a task that is not running does nothing.
        #expect(!device.simulateExpiration(app, identifier: feedRefresh))
    }

    @Test("rules §5: scenario `debug:` entries simulate launch and expiration at their times")
    func scenarioDebugEntries() throws {
        let scenario = try ScenarioParser(file: "debug.yaml").parse("""
        duration: 1h
        apps:
          - bundle: com.example.sync
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.sync.refresh]
            on:
              didFinishLaunching:
                - register: com.example.sync.refresh
              didEnterBackground:
                - submit: {identifier: com.example.sync.refresh, type: appRefresh, earliestBegin: 6h}
              task com.example.sync.refresh:
                - wait: 1m
                - complete: true
              expire com.example.sync.refresh:
                - complete: false
        timeline:
          - {at: 1m, user: launch com.example.sync}
          - {at: 2m, user: home}
          - {at: 2m30s, user: forceQuit com.example.sync}
          - {at: 10m, debug: {simulateLaunch: com.example.sync.refresh}}
          - {at: 10m10s, debug: {simulateExpiration: com.example.sync.refresh, app: com.example.sync}}
        expect:
          - {kind: task.start, app: com.example.sync, reason: _simulateLaunchForTaskWithIdentifier, between: [10m, 10m]}
          - {kind: task.expire, app: com.example.sync, between: [10m10s, 10m10s]}
          - {kind: task.complete, app: com.example.sync, success: "false", between: [10m10s, 10m10s]}
          - {kind: terminate, count: 1}
        """)
        let run = try ScenarioRun(scenario)
        run.run()
        #expect(run.passed, "\(run.results.filter { !$0.passed }.map(\.message))")
        let app = try #require(run.device.app("com.example.sync"))
        #expect(run.device.story(of: app, only: ["launch"]) == ["60 launch user", "600 launch bgTask"])
        #expect(run.device.story(of: app, only: ["callback"]).suffix(2) == ["600 callback bgTask", "610 callback bgTaskExpired"])
        // The earliest date (6 h) was ignored by the debugger, as on iOS.
        #expect(run.device.taskStarts(of: app) == [600])
    }
}
