import HeapModule

// Small read-only helpers that mutating code calls on its hot paths are
// `@inline(__always)`: called out of line from a mutating method, Swift
// copies the whole engine (about 1 KB) to pass `self`.

/// The system itself: one pure, deterministic value (SWIM's `SWIMInstance`).
/// Inputs — user actions, device changes, app API calls, the passing of
/// time — go in through mutating methods; directives for the host and trace
/// events come out. No I/O, no wall clock, no global randomness.
public struct Engine: Sendable, Codable {
    public let profile: PolicyProfile
    public internal(set) var device: DeviceState
    public internal(set) var now: Nanoseconds = 0
    public var random: SeededRandom

    var apps: [AppProcess] = []
    /// Apps by bundle identifier: scenarios name apps, and with thousands a pass to find one is too slow.
    var appIndex: [String: Int32] = [:]
    var queue = EventQueue()
    /// The app in front of the user, if any.
    public internal(set) var frontApp: AppID?
    /// The app that was in front when the device was locked (unlock returns to it).
    var frontAppWhenLocked: AppID?
    var nextTimerToken: Int32 = 1
    var unarmedWatchdogs: [PendingWatchdog] = []
    /// Apps with a process (any state but not running): few, as memory bounds
    /// them, so jetsam and memory warnings look at these, not at every app.
    var residentApps = AppIndexSet()
    /// Each app's pushes (rules §7).
    var pushes = PushController()
    /// Who may be launched into the background, and the verdicts acted on (rules §11).
    var launches: LaunchController
    /// Each app's `beginBackgroundTask` assertions and background-time window (rules §2, §13).
    var backgroundTasks = BackgroundTaskController()
    /// What each process holds of memory and CPU, and jetsam's books (rules §10).
    var memory: MemoryController
    /// Local notifications and Notification Center (rules §9).
    var notifications: NotificationController
    /// The transfer daemon and each app's events wake and rate limiter (rules §8).
    var transfers = TransferController()
    var texts = TextTable()
    /// The words of a budget-timeout kill, by the one open task's name.
    var budgetTimeoutDetails: [TextID: TextID] = [:]
    /// Each app's long-running services: audio, location, accessories, VoIP (rules §4).
    var services = LongRunningServicesController()
    /// Where the device is (rules §4 location).
    var sensors = SensorState()
    /// The controllers' effects at the moment being told (see `forEachController`).
    var hookEffects = HookEffects()

    // MARK: Scheduler state (rules §5, §6)
    /// Time of day at t = 0: the predictor and `clockText` think in wall-clock time.
    public let wallClockOffset: Nanoseconds
    /// Unix seconds at t = 0: calendar dates (rules §9) are read from it.
    public let startEpochSeconds: Int64
    /// Requests, usage, fetch and budgets: what dasd knows (rules §5, §6).
    var scheduler: SchedulerController
    /// Each process's launch handlers, running BGTasks and their launch's budget (rules §5).
    var taskScheduler = TaskSchedulerController()
    /// Continued-processing tasks, queued or running, device-wide (rules §13).
    var continuedProcessing: ContinuedProcessingController
    /// When the scheduler will next look again, if only time passes.
    public var schedulerWake: Nanoseconds? { scheduler.wake }
    /// How often the scheduler has judged its candidates (a diagnostic).
    public var schedulerEvaluations: Int { scheduler.evaluations }
    /// How many requests and fetch opportunities it has judged (a diagnostic: it grows with what happens, not with apps × events).
    public var schedulerJudgements: Int { scheduler.judgements }
    /// When set, each BGTask start keeps its decision in dasd's terms
    /// (`dasdStarts`), so a logged decision that let a task run can be laid
    /// beside bgx's at that moment. Off by default: it costs a judgement per start.
    public var recordsDasdDecisions: Bool {
        get { scheduler.recordsDasdDecisions }
        set { scheduler.recordDasdDecisions(newValue) }
    }
    public var dasdStarts: [DasdStart] { scheduler.dasdStarts }
    /// When the device was last locked (nil while unlocked).
    var lockedSince: Nanoseconds?
    /// When the device last restarted.
    var lastBoot: Nanoseconds?

    /// Directives not yet taken by the host, in order.
    @usableFromInline var outbox: [Directive] = []
    /// Trace events not yet taken by the host, in order.
    public var trace: [TraceEvent] = []
    /// Events handled so far (for benchmarks and diagnostics).
    public internal(set) var eventsHandled = 0

    public init(profile: PolicyProfile = .modern, device: DeviceState = DeviceState(), seed: UInt64 = 0,
                wallClockOffset: Nanoseconds = 0, startEpochSeconds: Int64? = nil) {
        self.profile = profile
        self.device = device
        self.random = SeededRandom(seed: seed)
        self.wallClockOffset = wallClockOffset
        self.startEpochSeconds = startEpochSeconds ?? wallClockOffset / Time.nanosecondsPerSecond
        self.scheduler = SchedulerController(settings: profile.scheduler, herd: ThunderingHerd(
            locked: device.locked, charging: device.charging, online: device.network != .none))
        self.memory = MemoryController(settings: profile.memory)
        self.continuedProcessing = ContinuedProcessingController(settings: profile.continuedProcessing)
        self.notifications = NotificationController(settings: profile.notifications,
                                                    startEpochSeconds: self.startEpochSeconds)
        self.launches = LaunchController(policy: LaunchPolicy(
            relaunchLocationAfterForceQuit: profile.relaunchLocationAfterForceQuit,
            launchVoIPPushAfterForceQuit: profile.launchVoIPPushAfterForceQuit))
        if device.locked { lockedSince = 0 } else { scheduler.deviceUnlocked(at: 0) }
        scheduler.watchDeviceUse(fromWall: wallClockOffset, charging: device.charging, wallClockOffset: wallClockOffset)
        if device.passcode && device.locked { self.device.unlockedSinceBoot = false }
    }

    // MARK: Apps

    public mutating func install(_ manifest: AppManifest) -> AppID {
        apps.append(AppProcess(manifest: manifest))
        forEachController(AppInstalled(manifest: manifest))
        let index = Int32(apps.count - 1)
        // The first app of a name is the one a name finds.
        if appIndex[manifest.bundleIdentifier] == nil { appIndex[manifest.bundleIdentifier] = index }
        return AppID(index: index)
    }
    public var appIDs: [AppID] { apps.indices.map { AppID(index: Int32($0)) } }
    public func manifest(_ app: AppID) -> AppManifest { apps[Int(app.index)].manifest }
    public func bundleIdentifier(_ app: AppID) -> String { apps[Int(app.index)].manifest.bundleIdentifier }
    public func app(named bundle: String) -> AppID? {
        appIndex[bundle].map { AppID(index: $0) }
    }
    public func state(of app: AppID) -> ProcessState { apps[Int(app.index)].state }
    public func isForceQuit(_ app: AppID) -> Bool { apps[Int(app.index)].forceQuit }
    /// Which lifetime of the app's process this is: it changes the moment
    /// the process is terminated, before the host hears of it.
    public func processEpoch(of app: AppID) -> UInt32 { apps[Int(app.index)].epoch }
    public func openBackgroundTasks(of app: AppID) -> [(id: Int, name: String)] {
        backgroundTasks.apps[Int(app.index)].tasks.filter { !$0.isExpiringActivity }.map { ($0.id, $0.name) }
    }
    /// `performExpiringActivity` assertions the app holds (rules §13).
    public func openExpiringActivities(of app: AppID) -> [(id: Int, name: String)] {
        backgroundTasks.apps[Int(app.index)].tasks.filter(\.isExpiringActivity).map { ($0.id, $0.name) }
    }

    /// Statistics with the current state's time counted up to `now`.
    public func stats(of app: AppID) -> AppStats {
        let i = Int(app.index)
        var s = apps[i].stats
        s.timeInState[apps[i].state] += now - apps[i].stateSince
        return s
    }

    // MARK: Time and events

    /// Schedules an input (a user action, a device change) at a moment.
    public mutating func schedule(_ event: consuming EngineEvent, at time: Nanoseconds) {
        queue.push(event, at: max(time, now))
    }
    public var nextEventTime: Nanoseconds? {
        // Inlined so that `Engine.nextEventTime(of:)` reads the engine in place.
        // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
        // in Engine/ (3 of them in this file) cost the engine 31 instructions per event.
        @inline(__always) get {
            if scheduler.dirty || !scheduler.dirtyApps.isEmpty { return now }
            var next = queue.nextTime
            for w in unarmedWatchdogs where isRunning(w) && (next.map { w.at < $0 } ?? true) {
                next = w.at
            }
            return next
        }
    }

    /// Handles the next event, moving `now` to its time. Returns false when
    /// nothing is scheduled.
    @discardableResult
    public mutating func step() -> Bool {
        if !unarmedWatchdogs.isEmpty { armWatchdogs() }
        if scheduler.dirty || !scheduler.dirtyApps.isEmpty {
            evaluateScheduler()
            return true
        }
        guard let next = queue.pop() else { return false }
        now = next.time
        if now >= services.runsEndBy { serviceRunsReachedTheirEnd() }
        eventsHandled &+= 1
        // The event is handed over, not copied: each case then knows what
        // it holds, and only a device change has anything to release
        // (releasing any event here cost about 35 instructions per engine event, callgrind).
        handle(next.takeEvent())
        return true
    }

    /// Lets time pass with nothing happening (time only moves forward).
    public mutating func advanceClock(to time: Nanoseconds) {
        precondition(queue.nextTime.map { $0 >= time } ?? true, "events are due before \(time)")
        if time > now { now = time }
        if now >= services.runsEndBy { serviceRunsReachedTheirEnd() }
    }

    /// Moves the directives produced so far into `buffer` (which is emptied
    /// first), keeping both arrays' storage for reuse.
    @inlinable public mutating func takeDirectives(into buffer: inout [Directive]) {
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &outbox)
    }
    @inlinable public var hasDirectives: Bool { !outbox.isEmpty }

    mutating func handle(_ event: consuming EngineEvent) {
        switch event {
        case let .user(action):
            handleUser(action)
        case let .device(change):
            apply(change)
        case let .watchdog(app, ticket):
            if isOutstanding(ticket, .job, app) { watchdogFired(app) }
        case let .expirationWarning(app, ticket):
            if isOutstanding(ticket, .backgroundWindow, app) { expirationWarningFired(app, ticket) }
        case let .budgetDeadline(app, ticket):
            if isOutstanding(ticket, .backgroundWindow, app) { budgetDeadlineFired(app) }
        case let .timer(app, epoch, token, continuation):
            timerFired(app, epoch: epoch, token: token, continuation: continuation)
        case let .notificationFire(app, id, generation):
            notificationFired(app, id, generation: generation)
        case let .schedulerWake(generation):
            schedulerWakeFired(generation: generation)
        case let .taskExpiry(app, ticket):
            if isOutstanding(ticket, .taskBudget, app) { taskExpiryFired(app, ticket) }
        case let .taskDeadline(app, ticket):
            if isOutstanding(ticket, .taskBudget, app) { taskDeadlineFired(app) }
        case let .fetchTimeout(app, ticket):
            if isOutstanding(ticket, .fetch, app) { fetchTimeoutFired(app) }
        case let .cpuCheck(app, ticket):
            if isOutstanding(ticket, .cpuCheck, app) { cpuCheckFired(app) }
        case let .simulateLaunch(app, id):
            _ = simulateLaunch(for: app, identifier: text(id))
        case let .simulateExpiration(app, id):
            _ = simulateExpiration(for: app, identifier: text(id))
        case .jetsamCheck:
            jetsamCheckFired()
        case let .audioEnd(app, ticket):
            if isOutstanding(ticket, .audio, app) { audioEnded(app) }
        case let .serviceWakeEnd(app, ticket):
            if isOutstanding(ticket, .serviceWake, app) { serviceWakeEnded(app) }
        case let .locationMove(meters):
            moveDevice(meters: meters)
        case let .significantChangeDue(app, generation):
            significantChangeDue(app, generation: generation)
        case let .accessoryData(app, transport):
            accessoryDataArrived(for: app, transport)
        case let .transferReview(generation):
            transferReviewFired(generation: generation)
        case let .transferWake(app, session, number):
            transferWakeFired(app, session: session, number: number)
        case let .transferEventsDeadline(app, ticket):
            if isOutstanding(ticket, .transferEvents, app) { transferEventsDeadlineFired(app) }
        case let .push(app, push):
            receivePush(push, for: app)
        case let .pushTimeout(app, ticket):
            if isOutstanding(ticket, .pushCompletion, app) { pushTimeoutFired(app) }
        case let .pushRetry(app, generation):
            pushRetryFired(app, generation: generation)
        case let .voipSocketTraffic(app):
            voipSocketTraffic(app)
        case let .keepAlive(app, ticket):
            if isOutstanding(ticket, .keepAlive, app) { keepAliveFired(app, ticket) }
        }
    }

    // MARK: Recording

    @inline(__always)
    mutating func record(_ app: AppID?, _ kind: TraceEvent.Kind) {
        trace.append(TraceEvent(time: now, app: app, kind: kind))
    }

    mutating func setState(_ app: AppID, _ to: ProcessState, _ reason: StateReason) {
        let i = Int(app.index)
        let from = apps[i].state
        guard from != to else { return }
        // The app's record is changed in one access (`Self.enter`), not field by field.
        Self.enter(&apps[i], to, from: from, now: now)
        forEachController(ProcessStateChanged(app: app, from: from, to: to, context: controllerContext))
        // Apps with a process, so jetsam and memory warnings look at these, not at every app.
        if from == .notRunning {
            residentApps.insert(app.index)
        } else if to == .notRunning {
            residentApps.remove(app.index)
        }
        if to == .suspended { sweepIdleOrderIfLong() }
        record(app, .state(from: from, to: to, reason: reason))
    }

    /// `setState`'s changes to the app's record: the time spent in `from`
    /// and the new state.
    @inline(__always)
    static func enter(_ a: inout AppProcess, _ to: ProcessState, from: ProcessState, now: Nanoseconds) {
        a.stats.timeInState[from] += now - a.stateSince
        a.state = to
        a.stateSince = now
    }

    // MARK: Device

    /// A device change: each controller hears it is coming (what ran at the
    /// old conditions settles), the device takes the new value and traces it,
    /// then each controller hears it happened, in `forEachController`'s order.
    mutating func apply(_ change: DeviceChange) {
        forEachController(DeviceWillChange(change: change, context: controllerContext))
        switch change {
        case let .battery(v): device.battery = v; recordDevice("battery", "\(v)%")
        case let .charging(v): device.charging = v; recordDevice("charging", "\(v)")
        case let .network(v): device.network = v; recordDevice("network", v.rawValue)
        case let .bandwidth(v): device.bandwidth = v; recordDevice("bandwidth", "\(v)")
        case let .lowPowerMode(v): device.lowPowerMode = v; recordDevice("lowPowerMode", "\(v)")
        case let .backgroundAppRefresh(v):
            device.backgroundAppRefresh = v; recordDevice("backgroundAppRefresh", "\(v)")
        case let .passcode(v): device.passcode = v; recordDevice("passcode", "\(v)")
        case let .memory(v): device.memory = v; recordDevice("memory", "\(v)")
        case let .multitasking(v): device.multitasking = v; recordDevice("multitasking", "\(v)")
        case let .thermal(v): device.thermal = v; recordDevice("thermal", v.rawValue)
        case let .backgroundGPU(v): device.backgroundGPU = v; recordDevice("backgroundGPU", "\(v)")
        case let .cpuLoad(v): device.cpuLoad = v; recordDevice("cpuLoad", "\(v)%")
        case let .memoryPressure(v): device.memoryPressure = v; recordDevice("memoryPressure", v.rawValue)
        case let .cameraActive(v): device.cameraActive = v; recordDevice("cameraActive", "\(v)")
        case let .timeZone(v): device.timeZone = v; recordDevice("timeZone", v.identifier)
        case .reboot: reboot()
        }
        forEachController(DeviceChanged(change: change, context: controllerContext))
    }

    mutating func recordDevice(_ property: String, _ value: String) {
        record(nil, .device(property: text(property), value: text(value)))
    }

    mutating func setLocked(_ locked: Bool) {
        guard device.locked != locked else { return }
        device.locked = locked
        scheduler.judgeEverything()
        recordDevice("locked", "\(locked)")
        let firstUnlock = !locked && !device.unlockedSinceBoot
        let herdChanged = scheduler.lockChanged(locked, now: now)
        if herdChanged && !locked { apply(scheduler.herdTriggerEffects()) }
        if firstUnlock {
            device.unlockedSinceBoot = true
            recordDevice("firstUnlockSinceBoot", "true")
            reviewHeldTransferSessions()
        }
        if locked {
            lockedSince = now
            scheduler.deviceLocked(at: now, wallClockOffset: wallClockOffset)
        } else {
            lockedSince = nil
            scheduler.deviceUnlocked(at: now)
            expireProcessingTasksForDeviceUse()
        }
        if firstUnlock {
            relaunchVoIPAppsAtBoot()
        }
        // The person put the device down: the herd's in-use window is over, held pushes may go.
        if firstUnlock || (herdChanged && locked) { apply(pushes.heldPushRetries()) }
    }

    /// The device is shutting down (the live host's SIGTERM): a running app
    /// whose main thread is free hears `willTerminate` and is ended when it
    /// returns (or by the willTerminate watchdog); a suspended or busy one is
    /// simply gone, as at a force quit [S]. Reason `reboot`.
    public mutating func shutDown() {
        for i in apps.indices {
            let app = AppID(index: Int32(i))
            switch apps[i].state {
            case .notRunning:
                continue
            case .suspended:
                terminate(app, .reboot, detail: "the device is shutting down")
            case .inactive, .active, .background:
                if apps[i].inFlight == nil {
                    apps[i].jobs.removeAll()
                    apps[i].jobs.append(.terminateGracefully(.reboot))
                    pump(app)
                } else {
                    terminate(app, .reboot, detail: "the device is shutting down while the app is busy")
                }
            }
        }
    }

    /// Every app stops; force-quit marks are forgotten; with a passcode the
    /// device stays locked until the first unlock (rules §1, §11).
    mutating func reboot() {
        recordDevice("reboot", "true")
        lastBoot = now
        for i in apps.indices {
            let app = AppID(index: Int32(i))
            if apps[i].state != .notRunning { terminate(app, .reboot, detail: "the device restarted") }
            apps[i].forceQuit = false
        }
        frontApp = nil
        frontAppWhenLocked = nil
        if device.passcode {
            device.unlockedSinceBoot = false
            if !device.locked {
                device.locked = true
                lockedSince = now
                scheduler.deviceLocked(at: now, wallClockOffset: wallClockOffset)
                recordDevice("locked", "true")
            }
        } else {
            device.unlockedSinceBoot = true
        }
        scheduler.booted(now: now, locked: device.locked)
        if !device.passcode { relaunchVoIPAppsAtBoot() }
    }
}

extension Engine {
    /// Records a console message for an app (what iOS would log). Once the
    /// host writes its trace out (`traceWritten`), a message is a one-off
    /// text, let go once written: many name an instance ("Background Task
    /// 709 …") or what an app passed, and interned they would add up for as
    /// long as the daemon runs. A simulation interns them, as it always has.
    public mutating func log(_ app: AppID?, _ message: String) {
        record(app, .log(texts.lettingGo ? appendText(message) : text(message)))
    }
}

extension Engine {
    /// Events scheduled and not yet handled.
    public var queuedEventCount: Int { queue.count }
    /// Events queued so far, and how many of them went through the heap
    /// rather than a sorted lane (see `EventQueue`).
    public var queuePushes: (total: Int, heap: Int) { (queue.pushes, queue.heapPushes) }
}

/// A watchdog not yet in the queue (see `deliver`).
struct PendingWatchdog: Sendable, Codable {
    var app: AppID
    /// The callback's job number, in its process.
    var ticket: Ticket
    var at: Nanoseconds
}

/// Interned trace text (see `TextID`). A scheduling decision's words are
/// kept as the decision (`strings` holds "" in its place) and written when read.
struct TextTable: Sendable, Codable {
    var strings: [String] = []
    var index: [String: Int32] = [:]
    /// Text indices holding a decision, ascending, and the decisions.
    var decisionIndices: [Int32] = []
    var decisions: [DecisionWords] = []
    /// What a host that writes its trace out lets go (`Engine.traceWritten`):
    /// slots of one-off texts no longer referred to, reused before new ones
    /// are appended; one-off texts the engine's state still refers to; slots
    /// reused since; where the texts appended since begin. Empty in a
    /// simulation, which keeps its whole trace.
    var free: [Int32] = []
    var retained: [Int32] = []
    var reusedSince: [Int32] = []
    var writtenUpTo: Int32 = 0
    /// The host writes its trace out and lets written texts go (it has called `traceWritten`).
    var lettingGo = false

    func decision(at i: Int32) -> DecisionWords? {
        let k = firstDecision(atOrAfter: i)
        return k < decisionIndices.count && decisionIndices[k] == i ? decisions[k] : nil
    }

    /// Where the first decision at text index `i` or after is kept (their indices ascend).
    func firstDecision(atOrAfter i: Int32) -> Int {
        var lo = 0, hi = decisionIndices.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if decisionIndices[mid] < i { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

extension Engine {
    /// Interns a piece of trace text.
    /// Interns a name for an input that carries one (`UserAction.cancelTask`).
    public mutating func internText(_ s: String) -> TextID { text(s) }

    mutating func text(_ s: String) -> TextID {
        if let i = texts.index[s] { return TextID(index: i) }
        texts.strings.append(s)
        let i = Int32(texts.strings.count - 1)
        texts.index[s] = i
        return TextID(index: i)
    }
    public func text(_ id: TextID) -> String {
        let s = texts.strings[Int(id.index)]
        if s.isEmpty, let d = texts.decision(at: id.index) { return d.text(wallClockOffset: wallClockOffset) }
        return s
    }

    /// The policy a stored scheduling decision names first in its words — what
    /// a reason's text would start with ("ChargerPluggedInPolicy: …", or "score
    /// … — ApplicationPolicy: …") — found without putting the decision into
    /// words; nil for every other text. A fleet sorts millions of reasons by it.
    public func decidingPolicy(of id: TextID) -> String? {
        guard texts.strings[Int(id.index)].isEmpty, let d = texts.decision(at: id.index) else { return nil }
        switch d.key {
        case let .mustNot(p): return p.rawValue
        case let .ran(p), let .waits(p): return p?.rawValue
        case .absolutelyMust, .launchRefused: return nil
        }
    }

    /// Stores a scheduling decision as trace text, to be put into words when read.
    mutating func appendDecision(_ d: DecisionWords) -> TextID {
        if !texts.free.isEmpty { return TextID(index: texts.reuseSlot(for: d)) }
        texts.strings.append("")
        let i = Int32(texts.strings.count - 1)
        texts.decisionIndices.append(i)
        texts.decisions.append(d)
        return TextID(index: i)
    }

    /// Stores text that rarely repeats (a decision's reason) without
    /// hashing it for reuse.
    mutating func appendText(_ s: String) -> TextID {
        if !texts.free.isEmpty { return TextID(index: texts.reuseSlot(for: s)) }
        texts.strings.append(s)
        return TextID(index: Int32(texts.strings.count - 1))
    }
    /// Interns text for an event the host schedules.
    public mutating func intern(_ s: String) -> TextID { text(s) }
}
