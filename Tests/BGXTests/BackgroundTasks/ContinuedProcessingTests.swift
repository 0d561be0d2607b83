import BGXApp
import BGXCore
import BGXSimulation
import BGXTestKit
import Foundation
import Testing

/// A photo app that exports when the person taps Export (iOS 26): it
/// registers its handler for the wildcard identifier and reports progress.
final class ExportApp: ApplicationDelegate {
    let journal: Journal
    var strategy: BGContinuedProcessingTaskRequest.SubmissionStrategy = .queue
    var resources: BGContinuedProcessingTaskRequest.Resources = []
    /// The queue the launch handler is registered with (nil: the system's background queue).
    let queue: DispatchQueue?
    init(journal: Journal, queue: DispatchQueue? = nil) {
        self.journal = journal
        self.queue = queue
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.photos.export.*", using: queue) { task in
            guard let task = task as? BGContinuedProcessingTask else { return self.journal.write("not a continued task") }
            self.journal.write("started \(task.identifier)")
            task.expirationHandler = {
                self.journal.write("expired \(task.identifier)")
                task.setTaskCompleted(success: false)
            }
            task.progress.totalUnitCount = 3
            func step(_ n: Int64) {
                Runtime.asyncAfter(seconds: 60) {
                    task.progress.completedUnitCount = n
                    if n == 3 { task.setTaskCompleted(success: true); self.journal.write("done \(task.identifier)") }
                    else { step(n + 1) }
                }
            }
            step(1)
        }
        return true
    }

    /// The person tapped Export.
    func export(_ name: String) {
        let request = BGContinuedProcessingTaskRequest(identifier: "com.example.photos.export.\(name)",
                                                       title: "Exporting \(name)", subtitle: "3 items")
        request.strategy = strategy
        request.requiredResources = resources
        do { try BGTaskScheduler.shared.submit(request) } catch {
            journal.write("refused \(name): \(error)")
        }
    }
}

/// rules §13 [D]: BGContinuedProcessingTaskRequest (iOS 26) — Apple's
/// BackgroundTasks documentation ("Performing long-running tasks on iOS and
/// iPadOS", BGContinuedProcessingTask, BGTaskScheduler.Error.Code) and WWDC25
/// "Finish tasks in the background".
@Suite("Continued processing (rules §13, iOS 26)")
struct ContinuedProcessingTests {
    static let manifest = AppManifest(bundleIdentifier: "com.example.photos",
                                      permittedTaskIdentifiers: ["com.example.photos.export.*"])

    func device(_ profile: PolicyProfile = .ios26, gpu: Bool = false,
                queue: DispatchQueue? = nil) -> (SimulatedDevice, AppID, () -> ExportApp?) {
        var state = DeviceState()
        state.backgroundGPU = gpu
        let device = SimulatedDevice(profile: profile, device: state)
        var made: ExportApp?
        let journal = Journal()
        let app = device.install(Self.manifest, delegate: { made = ExportApp(journal: journal, queue: queue); return made! })
        device.perform(.launch(app))
        device.advance(seconds: 1)
        return (device, app, { made })
    }

    /// Runs app code the way a tap in the app would.
    func tap(_ device: SimulatedDevice, _ app: AppID, _ body: () -> Void) {
        ProcessContext.$current.withValue(device.process(of: app)!.application) { body() }
    }

    @Test("rules §13: submitted in front, it starts at once under the wildcard handler, reports progress and runs on in the background until completed")
    func startsAtOnceAndRunsInBackground() {
        let (device, app, delegate) = device()
        tap(device, app) { delegate()!.export("album") }
        device.advance(seconds: 1)
        device.perform(.home)
        device.advance(seconds: 100)
        #expect(device.state(of: app) == .background)   // not suspended: the task holds it
        device.advance(seconds: 100)
        #expect(delegate()!.journal.entries == ["started com.example.photos.export.album", "done com.example.photos.export.album"])
        #expect(device.state(of: app) == .suspended)
        let progress = device.story(of: app, only: ["task.progress"])
        #expect(progress.count == 4)   // total set, then 1, 2, 3 of 3
    }

    @Test("rules §5 [D]: a handler registered under the wildcard with using: .main runs on the main queue — the queue is the registration's, found through the wildcard")
    func wildcardHandlerRunsOnItsQueue() {
        let (onMain, mainApp, mainDelegate) = device(queue: .main)
        tap(onMain, mainApp) { mainDelegate()!.export("album") }
        onMain.advance(seconds: 1)
        #expect(onMain.details(of: mainApp, only: ["callback"]).last
                == "1 callback name=bgTask identifier=com.example.photos.export.album")
        let (onNil, nilApp, nilDelegate) = device()
        tap(onNil, nilApp) { nilDelegate()!.export("album") }
        onNil.advance(seconds: 1)
        #expect(onNil.details(of: nilApp, only: ["callback"]).last
                == "1 callback name=bgTask identifier=com.example.photos.export.album queue=background")
    }

    @Test("rules §13: from the background the request is refused (notPermitted), with its reason")
    func refusedFromBackground() {
        let (device, app, delegate) = device()
        device.perform(.home)
        device.advance(seconds: 1)
        tap(device, app) { delegate()!.export("late") }
        #expect(delegate()!.journal.entries == ["refused late: notPermitted"])
        #expect(device.traceLines.contains { $0.contains("task.reject") && $0.contains("not in the foreground") })
    }

    @Test("rules §13: requiredResources .gpu is refused as notPermitted where the device has no background GPU (iOS 26.6.1, observed), accepted where it has")
    func gpuWithoutBackgroundGPUIsNotPermitted() {
        let (without, a1, d1) = device(gpu: false)
        tap(without, a1) { d1()!.resources = .gpu; d1()!.export("upscale") }
        #expect(d1()!.journal.entries == ["refused upscale: notPermitted"])
        let (with, a2, d2) = device(gpu: true)
        tap(with, a2) { d2()!.resources = .gpu; d2()!.export("upscale") }
        with.advance(seconds: 1)
        #expect(d2()!.journal.entries == ["started com.example.photos.export.upscale"])
    }

    @Test("rules §13: with every slot taken, strategy .fail is refused (immediateRunIneligible, 4) and .queue waits for a slot")
    func failAndQueueStrategies() {
        let (device, app, delegate) = device()
        tap(device, app) {
            delegate()!.export("a")
            delegate()!.export("b")
            delegate()!.strategy = .fail
            delegate()!.export("c")
            delegate()!.strategy = .queue
            delegate()!.export("d")
        }
        device.advance(seconds: 1)
        #expect(delegate()!.journal.entries.contains("refused c: immediateRunIneligible"))
        #expect(!delegate()!.journal.entries.contains("started com.example.photos.export.d"))
        device.advance(seconds: 200)
        #expect(delegate()!.journal.entries.contains("started com.example.photos.export.d"))
        #expect(BGTaskSchedulerError.immediateRunIneligible.rawValue == 4)
    }

    @Test("rules §13: profiles before iOS 26 do not have the request: refused as unavailable, saying which profile has it")
    func olderProfileRefuses() {
        let (device, app, delegate) = device(.modern)
        tap(device, app) { delegate()!.export("album") }
        #expect(delegate()!.journal.entries == ["refused album: unavailable"])
        #expect(device.traceLines.contains { $0.contains("use profile ios26") })
    }

    @Test("rules §13: the person cancelling the task runs its expiration handler")
    func personCancelRunsExpirationHandler() {
        let (device, app, delegate) = device()
        tap(device, app) { delegate()!.export("album") }
        device.perform(.home)
        device.advance(seconds: 30)
        device.cancelContinuedTask("com.example.photos.export.album")
        device.advance(seconds: 1)
        #expect(delegate()!.journal.entries == ["started com.example.photos.export.album", "expired com.example.photos.export.album"])
        #expect(device.traceLines.contains { $0.contains("\"task.expire\"") && $0.contains("the person cancelled it") })
        device.advance(seconds: 10)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §13: under resource pressure the system ends first the task whose progress has not moved")
    func pressureEndsStalledTaskFirst() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec13-continued-processing.yaml").path
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
        run.run()
        let ended = run.device.traceLines.filter { $0.contains("\"task.expire\"") && $0.contains("resource pressure") }
        #expect(ended.count == 1)
        #expect(ended.first?.contains("com.example.stuck.job.1") == true)
        #expect(ended.first?.contains("has not moved") == true)
    }

    @Test("rules §13: resource pressure ends a task still working, not one already expired and winding down (the engine alone)")
    func pressurePassesOverExpiredTasks() throws {
        var engine = Engine(profile: .ios26)
        let app = engine.install(Self.manifest)
        func run(until time: Nanoseconds) {
            var directives: [Directive] = []
            // Handlers return at once; tasks run until completed.
            func drain() {
                engine.answerAtOnce(&directives) { d, engine in
                    if case let .deliver(to, .didFinishLaunching) = d {
                        _ = engine.registerTask(for: to, identifier: "com.example.photos.export.*")
                    }
                }
            }
            drain()
            while let next = engine.nextEventTime, next <= time { engine.step(); drain() }
            engine.advanceClock(to: time)
        }
        func request(_ name: String) -> ContinuedProcessingRequest {
            ContinuedProcessingRequest(identifier: "com.example.photos.export.\(name)", title: name, subtitle: "3 items")
        }
        engine.schedule(.user(.launch(app)), at: 0)
        run(until: Time.seconds(1))
        try engine.submitContinuedProcessingTask(for: app, request("old"))
        try engine.submitContinuedProcessingTask(for: app, request("new"))
        engine.setTaskExpirationHandler(for: app, identifier: "com.example.photos.export.old", isSet: true)
        run(until: Time.seconds(100))
        engine.reportContinuedProgress(for: app, identifier: "com.example.photos.export.new", completed: 1, total: 3)
        // The person cancels the older one: expired, its handler winds it down (it has not completed yet).
        engine.cancelContinuedTask(for: app, identifier: "com.example.photos.export.old")
        run(until: Time.seconds(200))
        engine.trace.removeAll()
        engine.schedule(.device(.thermal(.serious)), at: Time.seconds(200))
        run(until: Time.seconds(201))
        let ended = engine.trace.compactMap { event -> String? in
            guard case let .taskExpireWithReason(id, reason) = event.kind else { return nil }
            return engine.text(id) + ": " + engine.text(reason)
        }
        #expect(ended.count == 1)
        #expect(ended.first?.hasPrefix("com.example.photos.export.new: resource pressure (thermal serious)") == true)
    }

    static let appSwitcher = repositoryRoot.appendingPathComponent("Scenarios/spec13-continued-processing-app-switcher.yaml").path

    @Test("rules §13 [D]: the system cancels queued requests when the person closes the app from the app switcher")
    func queuedRequestsCancelledWhenClosedFromAppSwitcher() throws {
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: Self.appSwitcher))
        run.run()
        let failed = run.results.filter { !$0.passed }.map(\.message)
        #expect(failed.isEmpty, "\(failed)")
        let photos = try #require(run.device.app("com.example.photos"))
        let story = run.device.events(of: photos).map(\.kindName)
        #expect(story.contains("task.cancel"))
        #expect(!story.contains("task.start"), "the queued export never ran")
        #expect(run.device.summary(of: photos).requests.cancelled == 1)
    }

    @Test("rules §13 [D]: updateTitle(_:subtitle:) changes what the person sees of a running task; of one not running it changes nothing")
    func updateTitleChangesWhatThePersonSees() {
        let (device, app, delegate) = device()
        tap(device, app) { delegate()!.export("album") }
        device.advance(seconds: 1)
        let process = device.process(of: app)!
        process.updateContinuedTitle(identifier: "com.example.photos.export.album", title: "Exporting album", subtitle: "60 of 120")
        process.updateContinuedTitle(identifier: "com.example.photos.export.none", title: "Nothing", subtitle: "here")
        let logs = device.traceLines.filter { $0.contains("\"kind\": \"log\"") }
        #expect(logs.contains { $0.contains("com.example.photos.export.album: the person now sees \\\"Exporting album\\\" — \\\"60 of 120\\\"") },
                "\(logs)")
        #expect(logs.contains { $0.contains("updateTitle for com.example.photos.export.none, which is not running") })
    }
}
