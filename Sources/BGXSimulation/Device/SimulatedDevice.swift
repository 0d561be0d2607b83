import BGXApp
import BGXCore
import Foundation

/// An app as the device runs it: something that handles callbacks and
/// timers on its main thread. `handle` returns true when the job's
/// synchronous part is done; false when the program has scheduled a
/// continuation and will finish the job later.
public protocol HostedApp: AnyObject {
    func handle(_ callback: Callback, process: AppRuntime) -> Bool
}

/// The simulated device: the engine plus a host that runs app code in
/// process, in virtual time, deterministically — the way `EmbeddedEventLoop`
/// runs what is due before moving time on.
public final class SimulatedDevice {
    /// Accessed without run-time exclusivity checks: the device is used from
    /// one thread, and the engine is pure — code inside `withEngine` never
    /// calls back into the device (the checks were ~6 % of a simulated week).
    @exclusivity(unchecked) public private(set) var engine: Engine
    /// Wall-clock time at t = 0 (for time of day and `Runtime.now`).
    public let startDate: Date
    /// The scenario's seed: the engine's, and app code's randomness.
    public let seed: UInt64
    var factories: [() -> HostedApp] = []
    var processes: [AppRuntime?] = []
    /// Modules whose statics each launch of an app finds uninitialised, by app.
    var staticsReset: [AppID: [ModuleStatics]] = [:]
    /// What apps wrote to the device's disk, by app and path (rules §13); the
    /// engine keeps each file's protection class and decides who may read it.
    var fileContents: [AppID: [String: Data]] = [:]
    /// The system's record of each app's background-session tasks (outlives its processes).
    var transferBook: [AppID: TransferBook] = [:]
    /// The payloads pushes sent with `push(_:to:userInfo:)` carry, by `Push.payload` - 1.
    var pushPayloads: [[AnyHashable: Any]] = []
    /// What Core Bluetooth keeps of each app's restoring managers (outlives its processes).
    var bluetoothRestoration: [AppID: BluetoothRestoration] = [:]
    private var directives: [Directive] = []
    /// Handed to one app thread at a time (see `AppThread`).
    let baton = Baton()
    /// Trace events taken from the engine so far.
    public private(set) var trace: [TraceEvent] = []
    /// Called with each batch of new events (e.g. to stream a trace file).
    public var traceSink: (([TraceEvent]) -> Void)?
    /// Keep every event in `trace` (turn off for long runs that stream).
    public var keepsTrace = true
    /// Every request's and push's fate so far, kept even when the trace is not:
    /// the summary's "why not yet" comes from it.
    public private(set) var ledger = RequestLedger()
    /// Keep `ledger` (turn off where no summary is read: a fleet's devices, which tally their own).
    public var keepsLedger = true

    public init(profile: PolicyProfile = .modern, device: DeviceState = DeviceState(), seed: UInt64 = 0,
                startDate: Date = Date(timeIntervalSince1970: 1_767_571_200)) {  // 2026-01-05 00:00 UTC
        self.engine = Engine(profile: profile, device: device, seed: seed,
                             wallClockOffset: Units.timeOfDay(of: startDate),
                             startEpochSeconds: Int64(startDate.timeIntervalSince1970.rounded(.down)))
        self.startDate = startDate
        self.seed = seed
        _ = AppConcurrency.installed
    }

    deinit {
        for process in processes { process?.tearDown() }
    }

    // MARK: Installing apps

    /// Installs an app whose code is a `HostedApp`; `make` creates a fresh
    /// instance for every launch (a new process has no memory of the last).
    @discardableResult
    public func install(_ manifest: AppManifest, program make: @escaping () -> HostedApp) -> AppID {
        let id = engine.install(manifest)
        factories.append(make)
        processes.append(nil)
        return id
    }

    /// Installs an app written against `BGXApp`, as on iOS.
    @discardableResult
    public func install(_ manifest: AppManifest, delegate make: @escaping () -> ApplicationDelegate) -> AppID {
        install(manifest, program: { DelegateApp(make()) })
    }

    /// Every launch of `app` finds `module`'s statics and globals as a new
    /// process does, uninitialised: a `static let shared` singleton is built
    /// again, and what its `init` registers is registered again. Call it right
    /// after installing, before the module's code runs (see `ModuleStatics`).
    public func resetStatics(of module: String, onEveryLaunchOf app: AppID) throws {
        staticsReset[app, default: []].append(try ModuleStatics(module: module))
    }

    public func app(_ bundle: String) -> AppID? { engine.app(named: bundle) }

    /// Says something about `app` in the trace (a `log` event), now.
    public func log(_ app: AppID, _ message: String) { withEngine { $0.log(app, message) } }
    public func state(of app: AppID) -> ProcessState { engine.state(of: app) }
    /// The running process of an app, if any.
    public func process(of app: AppID) -> AppRuntime? { processes[Int(app.index)] }

    // MARK: Acting and letting time pass

    /// Virtual time now, in nanoseconds since the start.
    public var now: Nanoseconds { engine.now }
    public var nowSeconds: Double { Time.toSeconds(engine.now) }

    /// The person does something, now.
    public func perform(_ action: UserAction) {
        engine.schedule(.user(action), at: engine.now)
        run(until: engine.now)
    }

    /// The person taps a notification in Notification Center, now (rules §9).
    public func tapNotification(_ id: String) {
        perform(.tapNotification(withEngine { $0.internNotification(id) }))
    }

    /// The person cancels a continued-processing task from its Live Activity, now (rules §13).
    public func cancelContinuedTask(_ identifier: String) {
        perform(.cancelTask(withEngine { $0.internText(identifier) }))
    }

    /// The device changes, now.
    public func change(_ change: DeviceChange) {
        engine.schedule(.device(change), at: engine.now)
        run(until: engine.now)
    }

    public func schedule(_ event: EngineEvent, at time: Nanoseconds) { engine.schedule(event, at: time) }

    /// `_simulateLaunchForTaskWithIdentifier`, now.
    @discardableResult
    public func simulateLaunch(_ app: AppID, identifier: String) -> Bool {
        let ok = engine.simulateLaunch(for: app, identifier: identifier)
        run(until: engine.now)
        return ok
    }

    /// `_simulateExpirationForTaskWithIdentifier`, now.
    @discardableResult
    public func simulateExpiration(_ app: AppID, identifier: String) -> Bool {
        let ok = engine.simulateExpiration(for: app, identifier: identifier)
        run(until: engine.now)
        return ok
    }

    /// A push reaches the device for `app`, now (rules §7, §4).
    public func push(_ push: Push, to app: AppID) {
        engine.schedule(.push(app, push), at: engine.now)
        run(until: engine.now)
    }

    /// A push with its payload (`userInfo`) reaches the device for `app`,
    /// now: `didReceiveRemoteNotification` or PushKit's `dictionaryPayload`
    /// gets it as sent. Without an `aps` dictionary it gets the one its type
    /// implies (`content-available: 1` for a background push).
    public func push(_ push: Push, to app: AppID, userInfo: [AnyHashable: Any]) {
        var push = push
        pushPayloads.append(userInfo)
        push.payload = UInt32(pushPayloads.count)
        self.push(push, to: app)
    }

    /// The payload a push carried (`Push.payload`, counted from 1), with the
    /// `aps` its type implies when the sender left it out.
    func pushPayload(_ id: UInt32, type: PushType) -> [AnyHashable: Any] {
        var userInfo = id == 0 ? [:] : pushPayloads[Int(id) - 1]
        if userInfo["aps"] == nil {
            userInfo["aps"] = switch type {
            case .background: ["content-available": 1] as [String: Any]
            case .alert: ["alert": "", "sound": "default"] as [String: Any]
            case .voip: [String: Any]()
            }
        }
        return userInfo
    }

    /// The person's choice about `app`'s notifications: the answer they will
    /// give when it asks (`requestAuthorization`), or, once it has, its
    /// switch in Settings. Logged in the trace.
    public func setNotificationsAllowed(_ allowed: Bool, for app: AppID) {
        withEngine { $0.setNotificationsAllowed(allowed, for: app) }
    }

    /// Data arrives on `app`'s VoIP socket, now (rules §4).
    public func voipSocketTraffic(to app: AppID) {
        engine.schedule(.voipSocketTraffic(app), at: engine.now)
        run(until: engine.now)
    }

    public func advance(by duration: Nanoseconds) { run(until: engine.now + duration) }
    public func advance(seconds: Double) { advance(by: Time.seconds(seconds)) }

    /// Runs every event due up to and including `time`, then sets the clock there.
    public func run(until time: Nanoseconds) {
        drain()
        // Through `withEngine` (inout): reading a computed property of the
        // stored engine would copy the whole engine.
        while let next = withEngine({ Engine.nextEventTime(of: &$0) }), next <= time {
            withEngine { _ = $0.step() }
            drain()
        }
        engine.advanceClock(to: time)
        flushTrace()
    }

    /// Carries out the engine's directives until it has none left; app code
    /// may produce more as it runs.
    func drain() {
        while withEngine({ $0.hasDirectives }) {
            withEngine { $0.takeDirectives(into: &directives) }
            let batch = directives
            for directive in batch { carryOut(directive) }
        }
        if engine.trace.count >= 4096 { flushTrace() }
    }

    func flushTrace() {
        guard !engine.trace.isEmpty else { return }
        traceSink?(engine.trace)
        if keepsLedger { ledger.record(engine.trace) }
        if keepsTrace { trace.append(contentsOf: engine.trace) }
        engine.trace.removeAll(keepingCapacity: true)
    }

    private func carryOut(_ directive: Directive) {
        switch directive {
        case let .launch(app, cause):
            let i = Int(app.index)
            for statics in staticsReset[app] ?? [] { statics.reset() }
            let process = AppRuntime(device: self, app: app, cause: cause, program: LaunchingApp())
            processes[i] = process
            // The delegate's `init` is app code of the new process: it may register task
            // handlers (SwiftUI's `App.init()` pattern), and it reads the device's clocks.
            process.program = runningAppCode(app) { ProcessContext.$current.withValue(process.application) { factories[i]() } }
            if let delegate = (process.program as? DelegateApp)?.delegate { process.application.attachDelegate(delegate) }
        case let .deliver(app, callback):
            guard let process = processes[Int(app.index)] else { return }
            let queue = withEngine { Engine.queue(of: callback, for: app, in: &$0) }
            if process.program is ScenarioApp {
                process.runScenarioJob(on: queue) { process.program.handle(callback, process: process) }
            } else {
                process.runJob(on: queue) { process.program.handle(callback, process: process) }
            }
        case let .fire(app, token, _):
            guard let process = processes[Int(app.index)] else { return }
            process.fireTimer(token)
        case .suspend, .resume:
            break  // in process, a suspended app simply gets no events
        case let .terminate(app):
            processes[Int(app.index)]?.isTerminated = true
            processes[Int(app.index)]?.tearDown()
            processes[Int(app.index)] = nil
        }
    }

    /// Engine access for app processes (they call in synchronously).
    func withEngine<R, E: Error>(_ body: (inout Engine) throws(E) -> R) throws(E) -> R { try body(&engine) }

    // MARK: Reading the trace

    public var renderer: TraceRenderer { engine.traceRenderer }
    public var traceLines: [String] {
        flushTrace()
        let r = renderer
        return trace.map(r.jsonLine)
    }
    public func summary(of app: AppID) -> AppSummary {
        flushTrace()
        return summary(of: app, names: engine.traceNames)
    }

    /// Every app's summary, in install order (the names are resolved once for all).
    public func summaries() -> [AppSummary] {
        flushTrace()
        let names = engine.traceNames
        return engine.appIDs.map { summary(of: $0, names: names) }
    }

    private func summary(of app: AppID, names: TraceNames) -> AppSummary {
        AppSummary(bundleIdentifier: engine.bundleIdentifier(app), stats: engine.stats(of: app), ledger: ledger,
                   app: app, names: names, now: engine.now)
    }

    /// The trace events of one app (or device-wide ones for nil).
    public func events(of app: AppID?) -> [TraceEvent] {
        flushTrace()
        return trace.filter { $0.app == app }
    }
}
