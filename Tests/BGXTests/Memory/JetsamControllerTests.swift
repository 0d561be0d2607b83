@testable import BGXCore
import Testing

/// rules §10's jetsam as the memory controller decides it, with no engine:
/// the process table is a plain value (`MemoryFacts`), the controller's books
/// are kept by the moments it is told of, and what it decides comes back as
/// effects or a victim for the coordinator to carry out.
@Suite("Jetsam in the memory controller")
struct JetsamControllerTests {
    static let MB: Int64 = 1 << 20

    /// The process table as a plain value.
    struct Table: MemoryFacts {
        var deviceMemory: Int64 = 1024 * MB
        var states: [ProcessState]
        var since: [Nanoseconds]
        var audio: Set<Int> = []
        var kept: Set<Int> = []
        var busy: Set<Int> = []
        var residentApps: AppIndexSet {
            var set = AppIndexSet()
            for (i, s) in states.enumerated() where s != .notRunning { set.insert(Int32(i)) }
            return set
        }
        func state(_ i: Int) -> ProcessState { states[i] }
        func stateSince(_ i: Int) -> Nanoseconds { since[i] }
        func holdsAudioOrAccessory(_ i: Int) -> Bool { audio.contains(i) }
        func keptRunningInBackground(_ i: Int) -> Bool { kept.contains(i) }
        func mainThreadFree(_ i: Int) -> Bool { !busy.contains(i) }
    }

    /// A controller and its table with apps of these footprints (in MB), none running.
    struct World {
        var controller: MemoryController
        var table: Table
        init(_ footprints: [Int64], settings: MemorySettings = MemorySettings()) {
            controller = MemoryController(settings: settings)
            for (i, f) in footprints.enumerated() {
                controller.appInstalled(AppManifest(bundleIdentifier: "com.example.app\(i)", memory: f * MB))
            }
            table = Table(states: Array(repeating: .notRunning, count: footprints.count),
                          since: Array(repeating: 0, count: footprints.count))
        }
        /// The app's process goes to `state` at `now`, as the coordinator tells it.
        mutating func move(_ i: Int, to state: ProcessState, at now: Nanoseconds) {
            let context = ControllerContext(now: now, wallClockOffset: 0, deviceMemory: table.deviceMemory,
                                            locationNeedsOptIn: true)
            var effects: [Effect] = []
            let app = AppID(index: Int32(i))
            controller.processStateChanged(app, from: table.states[i], to: state, context, &effects)
            table.states[i] = state
            table.since[i] = now
            if state == .notRunning { controller.processEnded(app, .memoryPressure, context, &effects) }
        }
    }

    func app(_ i: Int) -> AppID { AppID(index: Int32(i)) }

    // 1 GB: the system keeps 256 MB; warnings below 102.4 MB free, jetsam below 51.2 MB.

    /// The apps the coordinator warns at an episode's start, asked in index order.
    static func warned(_ w: World) -> [Int: Int64] {
        var warned: [Int: Int64] = [:]
        for index in w.table.residentApps {
            let i = Int(index)
            if let footprint = w.controller.warning(i, running: w.table.states[i].isRunning) { warned[i] = footprint }
        }
        return warned
    }

    @Test("rules §10: below the warning level an episode begins once and every running app jetsam has not chosen is warned with its footprint; below the critical level one jetsam check is queued, the kill delay from now")
    func warningsAndOneCheck() {
        var settings = MemorySettings()
        settings.killDelay = Time.seconds(2)
        var w = World([300, 300, 150, 100], settings: settings)
        w.move(2, to: .active, at: 0)
        w.move(0, to: .background, at: 0)
        w.move(1, to: .background, at: 1)
        w.move(1, to: .suspended, at: 2)
        w.move(3, to: .background, at: 3)
        w.controller.choose(app(3), JetsamKill(footprint: 1, level: 2, memory: 3, band: .idleDeferred, cause: .pressure))
        let free = (1024 - 256 - 850) * Self.MB
        #expect(w.controller.checkPressure(now: Time.seconds(10), deviceMemory: w.table.deviceMemory)
                == PressureVerdict(free: free, warns: true, jetsamCheckAt: Time.seconds(12)))
        // The suspended app runs no code to hear it; the chosen one is on its way out.
        #expect(Self.warned(w) == [0: 300 * Self.MB, 2: 150 * Self.MB])
        // The same episode: nobody is warned again, and a check is already queued.
        #expect(w.controller.checkPressure(now: Time.seconds(11), deviceMemory: w.table.deviceMemory)
                == PressureVerdict(free: free, warns: false, jetsamCheckAt: nil))
        // Once the check has come due, another may be queued.
        _ = w.controller.jetsamCheckDue(resident: w.table.residentApps, w.table)
        #expect(w.controller.checkPressure(now: Time.seconds(13), deviceMemory: w.table.deviceMemory)
                == PressureVerdict(free: free, warns: false, jetsamCheckAt: Time.seconds(15)))
    }

    @Test("rules §10: free memory back above the warning level ends the episode, so the next one warns again")
    func episodeEnds() {
        var w = World([600, 100])
        w.move(0, to: .active, at: 0)
        w.controller.allocate(app(0), bytes: 100 * Self.MB)
        let deviceMemory = w.table.deviceMemory
        // 68 MB free: warned, no check.
        #expect(w.controller.checkPressure(now: 0, deviceMemory: deviceMemory)
                == PressureVerdict(free: 68 * Self.MB, warns: true, jetsamCheckAt: nil))
        #expect(Self.warned(w) == [0: 700 * Self.MB])
        w.controller.allocate(app(0), bytes: -100 * Self.MB)
        #expect(!w.controller.checkPressure(now: 1, deviceMemory: deviceMemory).warns && !w.controller.warned)
        w.controller.allocate(app(0), bytes: 100 * Self.MB)
        #expect(w.controller.checkPressure(now: 2, deviceMemory: deviceMemory).warns)
    }

    @Test("rules §10 [D]: jetsam kills the idle band first, the app suspended longest first (ties to the lowest index), until free memory, counting what chosen apps give back, is above the critical level")
    func idleBandInOrder() {
        var w = World([100, 100, 100, 100, 100, 80])
        for i in 0..<5 { w.move(i, to: .background, at: 0) }
        w.move(3, to: .suspended, at: 5)
        w.move(1, to: .suspended, at: 7)
        w.move(0, to: .suspended, at: 7)
        w.move(5, to: .active, at: 8)
        // 1024 − 256 − 580 = 188 MB free: nothing to do.
        #expect(w.controller.nextPressureKill(reclaiming: 0, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table) == nil)
        w.controller.allocate(app(5), bytes: 200 * Self.MB)  // −12 MB free
        let first = w.controller.nextPressureKill(reclaiming: 0, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table)
        #expect(first == JetsamVictim(app: app(3), footprint: 100 * Self.MB, graceful: false))
        #expect(w.controller.apps[3].jettison == JetsamKill(footprint: 100 * Self.MB, level: 53_687_091,
                                                             memory: -12 * Self.MB, band: .idle, cause: .pressure))
        // Not yet gone: counted as coming back, the next is chosen only if that is not enough.
        let second = w.controller.nextPressureKill(reclaiming: 100 * Self.MB, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table)
        #expect(second == nil)
        w.move(3, to: .notRunning, at: 9)
        w.controller.allocate(app(5), bytes: 100 * Self.MB)  // −12 MB free again
        // Apps 0 and 1 were suspended at one instant: the lower index goes first.
        #expect(w.controller.nextPressureKill(reclaiming: 0, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table)?.app == app(0))
        #expect(w.controller.nextPressureKill(reclaiming: 0, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table)?.app == app(1))
        #expect(w.controller.jettisonsUnderway == 2)
    }

    @Test("rules §10: past the idle band, the band above it; a background app whose main thread is free goes gracefully (willTerminate), a busy one at once")
    func bandsAboveIdle() {
        var w = World([300, 300, 300])
        w.move(0, to: .background, at: 0)
        w.move(1, to: .background, at: 1)
        w.move(2, to: .active, at: 2)
        w.table.kept = [0]  // app 0 holds an assertion: band background; app 1: idleDeferred
        w.table.busy = [1]
        let victim = w.controller.nextPressureKill(reclaiming: 0, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table)
        #expect(victim == JetsamVictim(app: app(1), footprint: 300 * Self.MB, graceful: false))
        #expect(w.controller.apps[1].jettison?.band == .idleDeferred)
        w.table.busy = []
        let next = w.controller.nextPressureKill(reclaiming: 0, deviceMemory: w.table.deviceMemory, resident: w.table.residentApps, w.table)
        #expect(next == JetsamVictim(app: app(0), footprint: 300 * Self.MB, graceful: true))
        #expect(w.controller.apps[0].jettison?.band == .background)
    }

    @Test("rules §10: with the largest-first order, the band's largest app goes first; the kept LRU order and a full pass agree, and stale entries leave the idle order")
    func largestFirstAndTheFullPass() {
        var settings = MemorySettings()
        settings.orderWithinBand = .largestFirst
        var w = World([100, 200, 150], settings: settings)
        for i in 0..<3 { w.move(i, to: .background, at: 0); w.move(i, to: .suspended, at: Nanoseconds(i + 1)) }
        #expect(w.controller.nextVictim(resident: w.table.residentApps, w.table) == app(1))
        var lru = World([100, 200, 150])
        for i in 0..<3 { lru.move(i, to: .background, at: 0); lru.move(i, to: .suspended, at: Nanoseconds(3 - i)) }
        // App 2 resumed and suspended again: its first entry is stale and goes when it reaches the front.
        lru.move(2, to: .background, at: 4)
        lru.move(2, to: .suspended, at: 5)
        #expect(lru.controller.idleOrder.count == 4)
        #expect(lru.controller.nextVictim(resident: lru.table.residentApps, lru.table) == app(1))
        #expect(lru.controller.victimByFullPass(resident: lru.table.residentApps, lru.table) == app(1))
        #expect(lru.controller.idleOrder.map(\.app) == [app(1), app(0), app(2)])
    }

    @Test("rules §10 [O]: an app above the per-process limit is chosen at once, with the limit as a share of RAM; under it, it is not")
    func perProcessLimit() {
        var w = World([500, 100])
        w.move(0, to: .background, at: 0)
        w.move(1, to: .active, at: 0)
        #expect(!w.controller.isOverLimit(app(0), deviceMemory: w.table.deviceMemory))
        w.controller.allocate(app(0), bytes: 100 * Self.MB)  // 600 MB of a 563.2 MB limit
        #expect(w.controller.isOverLimit(app(0), deviceMemory: w.table.deviceMemory))
        let chosen = w.controller.chooseForLimit(app(0), deviceMemory: w.table.deviceMemory, w.table)
        #expect(chosen)
        #expect(w.controller.apps[0].jettison == JetsamKill(
            footprint: 600 * Self.MB, level: 590_558_003, memory: 1024 * Self.MB, band: .idleDeferred,
            cause: .perProcessLimit, percent: 55))
        let within = w.controller.chooseForLimit(app(1), deviceMemory: w.table.deviceMemory, w.table)
        #expect(!within && w.controller.apps[1].jettison == nil)
    }

    @Test("rules §10: a change of the device's memory is a step back into the controller: limits first, then pressure")
    func deviceMemoryChange() {
        let c = MemoryController()
        var effects: [Effect] = []
        let context = ControllerContext(now: 0, wallClockOffset: 0, deviceMemory: 1 << 30, locationNeedsOptIn: true)
        c.deviceChanged(.memory(1 << 30), context, &effects)
        #expect(effects == [.continueMemory(.deviceMemoryChanged)])
        effects.removeAll()
        c.deviceChanged(.battery(50), context, &effects)
        #expect(effects.isEmpty)
    }

    @Test("rules §10: the band of each state; audio or an accessory lifts a running app, never a suspended one")
    func bands() {
        #expect(JetsamBand.of(.notRunning, audioOrAccessory: true) { true } == nil)
        #expect(JetsamBand.of(.suspended, audioOrAccessory: true) { true } == .idle)
        #expect(JetsamBand.of(.background, audioOrAccessory: true) { false } == .audioAndAccessory)
        #expect(JetsamBand.of(.active, audioOrAccessory: false) { false } == .foreground)
        #expect(JetsamBand.of(.background, audioOrAccessory: false) { true } == .background)
        #expect(JetsamBand.of(.background, audioOrAccessory: false) { false } == .idleDeferred)
    }
}
