import BGXCore
import Foundation

/// An app written as a scenario's handler lists (docs/scenarios.md,
/// "Handlers"), run by a small interpreter. `work` keeps the main thread busy
/// (the callback has not returned); `wait` is asynchronous work (the callback
/// returns, and the rest continues later — frozen while suspended, lost if
/// the app is terminated).
public final class ScenarioApp: HostedApp {
    public struct Spec: Sendable {
        public var manifest: AppManifest
        public var handlers: [Handler: [LocatedAction]]
        public var location: SourceLocation
        /// Where each handler's key is written, for `bgx check`'s findings.
        public var handlerLocations: [Handler: SourceLocation] = [:]
        /// The Info.plist the manifest was read from (`infoPlist:`), as its path.
        public var infoPlist: String?
        /// The background plugin the app uses (`plugin:`), and what it does natively.
        public var plugin: PluginUse?
        /// `notifications:` — the person's answer to the app's authorization request (rules §9).
        public var notifications: NotificationAuthorization?
        public var pluginExpansion: PluginExpansion?
    }

    public enum Handler: Hashable, Sendable, CustomStringConvertible {
        case didFinishLaunching, didBecomeActive, willResignActive, didEnterBackground,
             willEnterForeground, willTerminate, localNotification, memoryWarning
        case backgroundTaskExpired(String)
        /// `task ID`: the BGTaskScheduler launch handler; `expire ID`: the task's expiration handler.
        case task(String)
        case expire(String)
        case performFetch
        /// rules §4: a location fix or region event; data from an accessory or a Bluetooth peripheral.
        case location, accessory, bluetooth
        /// `backgroundTransfer SESSION`: `handleEventsForBackgroundURLSession` for the
        /// session (the app recreates it first), or a Newsstand download's completion.
        case backgroundTransfer(String)
        /// `didReceiveRemoteNotification` (rules §7); PushKit's VoIP push
        /// handler; data on the VoIP socket; the keep-alive handler (rules §4).
        case silentPush, voipPush, voipSocket, keepAlive
        /// A handler this version does not simulate yet (kept for `bgx check`).
        case unsupported(String)

        /// As a scenario writes it (`didBecomeActive`, `task ID`): from the
        /// parser's table of handlers, where each name is declared.
        public var description: String {
            if case let .unsupported(name) = self { return name }
            for word in ScenarioParser.handlers {
                switch word.read {
                case let .plain(handler) where handler == self: return word.name
                case let .argument(_, _, make) where argument.map(make) == self: return word.name + " " + argument!
                default: continue
                }
            }
            preconditionFailure("every handler is declared in ScenarioParser.handlers")
        }

        /// The argument of `task ID`, `expire ID`, `backgroundTransfer SESSION`, `backgroundTaskExpired NAME`.
        var argument: String? {
            switch self {
            case let .task(a), let .expire(a), let .backgroundTransfer(a), let .backgroundTaskExpired(a): a
            default: nil
            }
        }
    }

    /// `notify: {id, after | at, repeat, body, sound, badge, timeZone}` (rules §9); without
    /// `after` or `at`, a request with no trigger (delivered at once).
    public struct Notify: Sendable, Equatable {
        public enum When: Sendable, Equatable {
            /// Neither `after` nor `at`: a request with no trigger, delivered at once.
            case now
            /// A time-interval trigger.
            case after(Nanoseconds)
            /// A moment of the run (`at: 90s`), fixed whatever the clocks say.
            case at(Nanoseconds)
            /// `at: HH:MM`, `Nd HH:MM` or `Mon HH:MM`: a calendar trigger on the
            /// clock of `timeZone`, or the device's when there is none.
            case clock(day: Int?, weekday: Int?, timeOfDay: Nanoseconds)
        }
        public var id: String
        public var when: When
        public var repeats: Bool
        public var content: NotificationContent
        public var timeZone: TimeZoneRules?
    }

    /// `submit: {identifier, type, earliestBegin, requiresNetworkConnectivity, requiresExternalPower}`.
    public struct Submit: Sendable, Equatable {
        public var identifier: String
        public var kind: BGTaskKind
        /// From the moment of submission.
        public var earliestBegin: Nanoseconds?
        public var requiresNetworkConnectivity = false
        public var requiresExternalPower = false
    }

    /// `download: {session, bytes, discretionary, earliestBegin, …}` (rules §8). The
    /// session settings apply when the action creates the session in this process.
    public struct Download: Sendable, Equatable {
        public var session: String
        public var bytes: Int64
        public var kind: TransferKind = .download
        public var discretionary = false
        /// From the moment the task is created.
        public var earliestBegin: Nanoseconds?
        public var newsstand = false
        public var sessionSendsLaunchEvents = true
        public var timeoutIntervalForRequest: Nanoseconds?
        public var timeoutIntervalForResource: Nanoseconds?
    }

    public enum Completion: Sendable, Equatable {
        case task(success: Bool)
        case fetch(BackgroundFetchResult)
    }

    public enum Action: Sendable, Equatable {
        case register(String)
        case submit(Submit)
        /// rules §13: a `BGContinuedProcessingTaskRequest`, and its task's progress.
        case submitContinued(ContinuedProcessingRequest)
        case progress(completed: Int64, total: Int64)
        /// `BGContinuedProcessingTask.updateTitle(_:subtitle:)`.
        case updateTitle(title: String, subtitle: String)
        case cancel(String)
        case complete(Completion)
        /// nil is `never`.
        case setMinimumBackgroundFetchInterval(Nanoseconds?)
        case work(Nanoseconds)
        case wait(Nanoseconds)
        case beginBackgroundTask(String)
        case endBackgroundTask(String)
        case notify(Notify)
        case cancelNotification(String)
        /// `UNUserNotificationCenter.requestAuthorization(options:)` (rules §9).
        case requestAuthorization(NotificationPresentation)
        /// rules §4: `playAudio {for: D}` (nil: until `stopAudio`), `stopAudio`,
        /// `startLocation` / `stopLocation` standard|significant|region.
        case playAudio(Nanoseconds?)
        case stopAudio
        case startLocation(LocationService)
        case stopLocation(LocationService)
        case download(Download)
        /// `URLSession(configuration: .background(withIdentifier: ID), …)`: (re)creates the session object.
        case createSession(String)
        /// CallKit's `reportNewIncomingCall` (rules §4).
        case reportCall
        case setKeepAliveTimeout(Nanoseconds)
        case exit
        /// rules §10: grow (negative: shrink) the footprint by this many bytes.
        case allocate(Int64)
        case useGPU
        case holdLock(String)
        case releaseLock(String)
        /// What the UI shows, for the app-switcher snapshot.
        case showSensitiveContent(Bool)
        /// `requestSceneSessionRefresh`: a new snapshot, if in the background.
        case requestSceneSessionRefresh
        /// The person's work: `makeUnsavedChanges` (true) / `saveChanges` (false).
        case unsavedChanges(Bool)
        /// rules §13: `writeFile: {path, protection}`, `readFile: PATH`.
        case writeFile(path: String, protection: FileProtection)
        case readFile(String)
        /// rules §13: `performExpiringActivity: {reason, work}` — the block,
        /// on the background queue, is busy for `work` and returns.
        case performExpiringActivity(reason: String, work: Nanoseconds)
        /// Parsed for `bgx check` but not simulated yet: what it is, the
        /// background mode it needs and the task identifier it names, if any.
        case unsupported(name: String, mode: BackgroundMode?, taskIdentifier: String?)
    }

    public struct LocatedAction: Sendable {
        public var action: Action
        public var location: SourceLocation
    }

    let spec: Spec
    /// The identifier each named background task got last (`.invalid` if refused),
    /// like the variable an app keeps it in: beginning the name again overwrites it.
    var taskIDs: [String: Int] = [:]
    /// The name each task was begun under: when it expires, that name's
    /// `backgroundTaskExpired` handler runs, as the closure passed to that
    /// `beginBackgroundTask` would.
    var taskNames: [Int: String] = [:]
    /// How many times each BGTask identifier's launch handler has been
    /// called: a handler's actions belong to one run, as an iOS handler's
    /// closures hold that run's `BGTask` object.
    var taskRuns: [String: Int] = [:]
    /// Background sessions this process has created.
    var sessions: Set<String> = []
    /// What each expiring activity's block does (`expired == false`).
    var activityWork: [Int: Nanoseconds] = [:]

    public init(spec: Spec) { self.spec = spec }

    /// What `complete` completes: the task or fetch whose handler runs.
    /// `newsstand`: a Newsstand download's result — no completion handler to call.
    enum Context { case none, task(String, run: Int), fetch, transferEvents(String), newsstand, push(UInt32) }

    public func handle(_ callback: Callback, process: AppRuntime) -> Bool {
        let handler: Handler
        var context = Context.none
        switch callback {
        case let .bgTask(id):
            let name = process.device.withEngine { $0.text(id) }
            // A continued-processing task runs the handler registered for its wildcard form.
            let registered = process.device.withEngine { $0.launchHandlerIdentifier(for: process.app, identifier: name) }
            handler = .task(registered)
            taskRuns[name, default: 0] += 1
            context = .task(name, run: taskRuns[name]!)
            // The expiration handler is "set" when the scenario has one.
            process.setTaskExpirationHandler(identifier: name, isSet: spec.handlers[.expire(registered)] != nil)
        case let .bgTaskExpired(id):
            let name = process.device.withEngine { $0.text(id) }
            handler = .expire(process.device.withEngine { $0.launchHandlerIdentifier(for: process.app, identifier: name) })
            context = .task(name, run: taskRuns[name, default: 0])
        case .performFetch:
            handler = .performFetch
            context = .fetch
        case .didFinishLaunching: handler = .didFinishLaunching
        case .didBecomeActive: handler = .didBecomeActive
        case .willResignActive: handler = .willResignActive
        case .didEnterBackground: handler = .didEnterBackground
        case .willEnterForeground: handler = .willEnterForeground
        case .willTerminate: handler = .willTerminate
        case .localNotification, .notificationResponse: handler = .localNotification
        case .didReceiveMemoryWarning: handler = .memoryWarning
        case .socketsClosed:
            process.deliverClosedSockets()
            return true
        case .didUpdateLocations, .didEnterRegion, .didExitRegion: handler = .location
        case let .accessoryData(transport): handler = transport == .accessory ? .accessory : .bluetooth
        case .accessoryDidDisconnect, .audioInterruptionBegan: return true
        case let .handleEventsForBackgroundURLSession(id):
            let name = process.device.withEngine { $0.text(id) }
            handler = .backgroundTransfer(name)
            context = .transferEvents(name)
            // An app with a handler for the session recreates it; one without never does.
            if spec.handlers[handler] != nil { createSession(BackgroundSessionConfiguration(identifier: name), process) }
        case let .urlSessionTaskDidComplete(id, _, _, _):
            // Only a Newsstand download's completion runs a handler; a session's
            // results are seen through handleEventsForBackgroundURLSession.
            guard process.device.withEngine({ $0.isNewsstandSession(process.app, id) }) else { return true }
            handler = .backgroundTransfer(process.device.withEngine { $0.text(id) })
            context = .newsstand
        case .urlSessionDidFinishEvents:
            return true
        case let .backgroundTaskExpired(id):
            guard let name = taskNames[id] else { return true }
            handler = .backgroundTaskExpired(name)
        case let .remoteNotification(number, _):
            handler = .silentPush
            context = .push(number)
        case .voipPush: handler = .voipPush
        case .voipSocket: handler = .voipSocket
        case .keepAlive: handler = .keepAlive
        case let .expiringActivity(id, expired):
            // The expired call stops the work at once (it returns); the first call works, then returns.
            guard !expired, let work = activityWork.removeValue(forKey: id) else { return true }
            return run([LocatedAction(action: .work(work), location: spec.location)], from: 0, context: .none, process: process)
        }
        if handler == .didFinishLaunching { openSessions(process) }
        guard let actions = spec.handlers[handler] else {
            // An app without the method: the system completes the push for it.
            if case let .push(number) = context { process.completeRemoteNotification(number: number, result: .noData) }
            return true
        }
        return run(actions, from: 0, context: context, process: process)
    }

    /// Runs actions until the list ends (true: the job is done) or a `work`
    /// holds the main thread (false: a continuation finishes it).
    func run(_ actions: [LocatedAction], from start: Int, context: Context, process: AppRuntime) -> Bool {
        var pc = start
        while pc < actions.count {
            let next = pc + 1
            switch actions[pc].action {
            case let .work(duration):
                process.device.withEngine { $0.noteBusy(process.app, duration) }
                process.continueJob(after: duration) { [unowned self] in
                    self.run(actions, from: next, context: context, process: process)
                }
                return false
            case let .wait(duration):
                process.enqueue(after: duration) { [unowned self] in
                    self.run(actions, from: next, context: context, process: process)
                }
                return true
            case let .register(identifier):
                _ = process.device.withEngine { $0.registerTask(for: process.app, identifier: identifier) }
            case let .submit(s):
                let request = TaskRequestSpec(identifier: s.identifier, kind: s.kind,
                                              earliestBegin: s.earliestBegin.map { process.device.now + $0 },
                                              requiresNetworkConnectivity: s.requiresNetworkConnectivity,
                                              requiresExternalPower: s.requiresExternalPower)
                // A rejection is in the trace (task.reject, with its reason); the app carries on.
                try? process.device.withEngine { try $0.submitTask(for: process.app, request) }
            case let .submitContinued(r):
                // A rejection is in the trace (task.reject, with its reason); the app carries on.
                try? process.device.withEngine { try $0.submitContinuedProcessingTask(for: process.app, r) }
            case let .progress(completed, total):
                guard case let .task(name, _) = context else {
                    preconditionFailure("the parser only allows 'progress' in a task handler")
                }
                process.device.withEngine {
                    $0.reportContinuedProgress(for: process.app, identifier: name, completed: completed, total: total)
                }
            case let .updateTitle(title, subtitle):
                guard case let .task(name, _) = context else {
                    preconditionFailure("the parser only allows 'updateTitle' in a task handler")
                }
                process.device.withEngine {
                    $0.updateContinuedTitle(for: process.app, identifier: name, title: title, subtitle: subtitle)
                }
            case let .cancel(identifier):
                process.cancelTask(identifier: identifier)
            case let .complete(completion):
                switch (completion, context) {
                case let (.task(success), .task(name, run)):
                    // A continuation of an earlier run (its `wait` outlived that run's
                    // expiry) holds the old task, not the one running now: on iOS
                    // its setTaskCompleted does not complete the new run.
                    guard run == taskRuns[name] else {
                        process.device.withEngine {
                            $0.log(process.app, "BGTaskScheduler: setTaskCompleted on run \(run) of \(name), "
                                   + "which has already ended (run \(self.taskRuns[name] ?? 0) is the current one); ignored")
                        }
                        break
                    }
                    process.completeTask(identifier: name, success: success)
                case let (.fetch(result), .fetch): process.completeFetch(result)
                case let (.task(true), .transferEvents(session)):
                    process.completeBackgroundSessionEvents(identifier: session)
                case (.task(true), .newsstand):
                    break   // the same handler serves a session's events; a Newsstand result has nothing to complete
                case let (.fetch(result), .push(number)): process.completeRemoteNotification(number: number, result: result)
                default: preconditionFailure("the parser only allows 'complete' where it has a meaning")
                }
            case let .setMinimumBackgroundFetchInterval(interval):
                process.device.withEngine { $0.setMinimumBackgroundFetchInterval(for: process.app, interval) }
            case let .beginBackgroundTask(name):
                let id = process.beginBackgroundTask(name: name, expirationHandler: nil)
                taskIDs[name] = id
                taskNames[id] = name
            case let .endBackgroundTask(name):
                process.endBackgroundTask(taskIDs[name] ?? Engine.invalidBackgroundTask)
            case let .notify(n):
                schedule(n, process: process)
            case let .cancelNotification(id):
                process.removePendingNotifications(identifiers: [id])
            case let .requestAuthorization(options):
                _ = process.requestNotificationAuthorization(options: options)
            case let .playAudio(duration):
                _ = process.device.withEngine { $0.startAudio(for: process.app, duration: duration) }
            case .stopAudio:
                process.stopAudio()
            case let .startLocation(service):
                if service == .standard && spec.manifest.backgroundModes.contains(.location) {
                    process.setAllowsBackgroundLocationUpdates(true)
                }
                process.startLocation(service)
            case let .stopLocation(service):
                process.stopLocation(service)
            case let .download(d):
                startDownload(d, process)
            case let .createSession(id):
                createSession(BackgroundSessionConfiguration(identifier: id), process)
            case .reportCall:
                process.reportNewIncomingCall()
            case let .setKeepAliveTimeout(interval):
                _ = process.device.withEngine { $0.setKeepAliveTimeout(for: process.app, interval) }
            case .exit:
                process.exit()
                return true
            case let .allocate(bytes):
                process.allocate(bytes: bytes)
            case .useGPU:
                process.useGPU()
            case let .holdLock(name):
                process.holdLock(name)
            case let .releaseLock(name):
                process.releaseLock(name)
            case let .showSensitiveContent(visible):
                process.isSensitiveContentVisible = visible
            case .requestSceneSessionRefresh:
                process.requestSnapshotRefresh()
            case let .unsavedChanges(unsaved):
                process.hasUnsavedChanges = unsaved
            case let .writeFile(path, protection):
                // A refusal is in the trace (file.write, ok false, with its reason); the app carries on.
                _ = process.device.withEngine { $0.writeFile(for: process.app, path: path, protection: protection) }
            case let .readFile(path):
                _ = process.device.withEngine { $0.readFile(for: process.app, path: path) }
            case let .performExpiringActivity(reason, work):
                // No assertion to be had: the block's one call (expired) does nothing; traced activity.refuse.
                if let id = process.device.withEngine({ $0.performExpiringActivity(for: process.app, reason: reason) }) {
                    activityWork[id] = work
                }
            case let .unsupported(name, _, _):
                preconditionFailure("scenario validation lets no unsupported action (\(name)) reach the interpreter")
            }
            if process.isTerminated { return true }
            pc = next
        }
        return true
    }

    /// An app with an `accessory` handler talks to a connected accessory; one
    /// with a `bluetooth` handler connects to its peripheral with a restore
    /// identifier. Both open their session as they launch, as such apps do.
    func openSessions(_ process: AppRuntime) {
        if spec.handlers[.accessory] != nil { process.openAccessorySession(.accessory, restores: false) }
        if spec.handlers[.bluetooth] != nil { process.openAccessorySession(.bluetooth, restores: true) }
    }

    func createSession(_ config: BackgroundSessionConfiguration, _ process: AppRuntime) {
        guard !sessions.contains(config.identifier) else { return }
        if process.device.withEngine({ $0.createBackgroundSession(for: process.app, config) }) {
            sessions.insert(config.identifier)
        }
    }

    func startDownload(_ d: Download, _ process: AppRuntime) {
        var config = BackgroundSessionConfiguration(identifier: d.session)
        config.isDiscretionary = d.discretionary
        config.newsstand = d.newsstand
        config.sessionSendsLaunchEvents = d.sessionSendsLaunchEvents
        config.timeoutIntervalForRequest = d.timeoutIntervalForRequest
        config.timeoutIntervalForResource = d.timeoutIntervalForResource
        createSession(config, process)
        let spec = TransferTaskSpec(kind: d.kind, bytes: d.bytes,
                                    earliestBegin: d.earliestBegin.map { process.device.now + $0 },
                                    discretionary: d.discretionary)
        // A refusal is logged by the system; the app carries on.
        _ = process.device.withEngine { $0.startTransfer(for: process.app, session: d.session, spec) }
    }

    /// What an app would build: a time-interval trigger, or a calendar one.
    func schedule(_ n: Notify, process: AppRuntime) {
        let trigger: NotificationTrigger = process.device.withEngine { engine in
            switch n.when {
            case .now:
                return .immediate
            case let .after(d):
                return .timeInterval(d, repeats: n.repeats)
            case let .at(t):
                // Every component of that moment, on the UTC clock: once past, it never fires.
                let unix = engine.unixSeconds(at: t)
                let date = CivilDate(day: unix / 86_400)
                let second = Int(unix % 86_400)
                return .calendar(DateMatch(year: Int(date.year), month: date.month, day: date.day, hour: second / 3600,
                                           minute: second / 60 % 60, second: second % 60),
                                 timeZone: .utc, repeats: false)
            case let .clock(day, weekday, timeOfDay):
                let second = Int(timeOfDay / Time.nanosecondsPerSecond)
                var match = DateMatch(weekday: weekday, hour: second / 3600, minute: second / 60 % 60, second: second % 60)
                if let day {
                    let date = engine.date(daysAfterStart: day, in: n.timeZone ?? engine.device.timeZone)
                    (match.year, match.month, match.day) = (Int(date.year), date.month, date.day)
                }
                return .calendar(match, timeZone: n.timeZone, repeats: n.repeats)
            }
        }
        process.addNotification(identifier: n.id, content: n.content, trigger: trigger)
    }
}
