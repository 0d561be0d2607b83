import BGXApp
@testable import BGXCore
import BGXSimulation
import BGXTestKit
import Foundation
import PropertyBased
import Testing

let MB: Int64 = 1024 * 1024

/// An app that allocates in its callbacks, as iOS code would.
final class MemoryApp: ApplicationDelegate {
    var onActive: Int64 = 0
    var onWarning: Int64 = 0
    var onBackground: ((Application) -> Void)?
    var warnings = 0
    var heard: [String] = []
    init(onActive: Int64 = 0, onWarning: Int64 = 0) {
        self.onActive = onActive
        self.onWarning = onWarning
    }
    func applicationDidBecomeActive(_ application: Application) {
        if onActive != 0 { Runtime.allocate(bytes: onActive) }
    }
    func applicationDidReceiveMemoryWarning(_ application: Application) {
        warnings += 1
        if onWarning != 0 { Runtime.allocate(bytes: onWarning) }
    }
    func applicationDidEnterBackground(_ application: Application) { onBackground?(application) }
    func applicationWillTerminate(_ application: Application) { heard.append("willTerminate") }
}

extension SimulatedDevice {
    /// The `terminate` lines of an app, rendered.
    func kills(of app: AppID) -> [String] {
        events(of: app).filter { $0.kindName == "terminate" }.map { renderer.jsonLine($0) }
    }
}

/// A 2 GB device: the system keeps 512 MB, 1536 MB is the apps'; the
/// warning level is 204.8 MB free, the critical level 102.4 MB, the
/// per-process limit 1126.4 MB (modern profile).
func twoGigabyteDevice(_ policy: MemorySettings = .modern) -> SimulatedDevice {
    var state = DeviceState()
    state.memory = 2048 * MB
    var profile = PolicyProfile.modern
    profile.memory = policy
    return SimulatedDevice(profile: profile, device: state)
}

@Suite("rules §10 — memory and resource enforcement")
struct MemoryTests {

    @Test("rules §10: the jetsam band follows the state and assertions — foreground 100, background under a task 30, suspended 0, none when not running")
    func bandsFollowState() {
        let device = twoGigabyteDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.a")) {
            let a = MemoryApp()
            a.onBackground = { application in
                var task = BackgroundTaskIdentifier.invalid
                task = application.beginBackgroundTask { application.endBackgroundTask(task) }
                Runtime.asyncAfter(seconds: 10) { application.endBackgroundTask(task) }
            }
            return a
        }
        #expect(device.engine.jetsamBand(of: app) == nil)
        device.perform(.launch(app))
        #expect(device.engine.jetsamBand(of: app) == .foreground)
        device.perform(.home)
        #expect(device.state(of: app) == .background)
        #expect(device.engine.jetsamBand(of: app) == .background)
        device.advance(seconds: 11)
        #expect(device.state(of: app) == .suspended)
        #expect(device.engine.jetsamBand(of: app) == .idle)
        #expect(device.engine.footprint(of: app) == 100 * MB)
        #expect(JetsamBand.allCases.map(\.rawValue) == [0, 10, 30, 100, 120])
    }

    @Test("rules §10: under pressure running apps hear didReceiveMemoryWarning first; then jetsam purges from the lowest band — the suspended app, with no notice — and leaves the front app")
    func warningThenPurgeLowestBand() {
        let device = twoGigabyteDevice()
        let old = device.install(AppManifest(bundleIdentifier: "com.example.old", memory: 400 * MB)) { MemoryApp() }
        let fg = MemoryApp(onActive: 1000 * MB)
        let game = device.install(AppManifest(bundleIdentifier: "com.example.game", memory: 100 * MB)) { fg }
        device.perform(.launch(old))
        device.advance(seconds: 60)
        device.perform(.launch(game))
        device.advance(seconds: 1)
        #expect(fg.warnings == 1)
        #expect(device.state(of: old) == .notRunning)
        #expect(device.state(of: game) == .active)
        let kill = device.kills(of: old)
        #expect(kill.count == 1)
        #expect(kill.first?.contains("\"reason\": \"memoryPressure\", \"band\": 0, \"bandName\": \"idle\", \"footprintMB\": 400") == true)
        #expect(!device.story(of: old).contains { $0.contains("willTerminate") || $0.contains("memory.warning") })
        // The warning line comes before the kill.
        let kinds = device.trace.filter { $0.kindName == "memory.warning" || $0.kindName == "terminate" }.map(\.kindName)
        #expect(kinds == ["memory.warning", "terminate"])
        #expect(device.engine.freeMemory == (2048 - 512 - 1100) * MB)
    }

    @Test("rules §10: memory an app frees in didReceiveMemoryWarning counts before jetsam looks — nobody is killed")
    func warningHandlerFreesMemory() {
        let device = twoGigabyteDevice()
        let old = device.install(AppManifest(bundleIdentifier: "com.example.old", memory: 400 * MB)) { MemoryApp() }
        let game = device.install(AppManifest(bundleIdentifier: "com.example.game", memory: 100 * MB)) {
            MemoryApp(onActive: 1000 * MB, onWarning: -300 * MB)
        }
        device.perform(.launch(old))
        device.perform(.launch(game))
        device.advance(seconds: 1)
        #expect(device.state(of: old) == .suspended)
        #expect(device.engine.footprint(of: game) == 800 * MB)
        #expect(device.kills(of: old).isEmpty)
    }

    @Test("rules §10: a running background app killed for memory hears willTerminate first; the suspended one, lower, went before it")
    func backgroundAppHearsWillTerminate() {
        let device = twoGigabyteDevice()
        let suspended = device.install(AppManifest(bundleIdentifier: "com.example.idle", memory: 100 * MB)) { MemoryApp() }
        let worker = MemoryApp()
        worker.onBackground = { application in
            _ = application.beginBackgroundTask(withName: "upload", expirationHandler: nil)
        }
        let busy = device.install(AppManifest(bundleIdentifier: "com.example.uploader", memory: 500 * MB)) { worker }
        let game = device.install(AppManifest(bundleIdentifier: "com.example.game", memory: 100 * MB)) {
            MemoryApp(onActive: 900 * MB)
        }
        device.perform(.launch(suspended))
        device.perform(.launch(busy))
        device.perform(.launch(game))
        device.advance(seconds: 1)
        #expect(worker.heard == ["willTerminate"])
        #expect(device.state(of: busy) == .notRunning)
        #expect(device.state(of: game) == .active)
        let order = device.trace.compactMap { e -> String? in
            guard e.kindName == "terminate", let app = e.app else { return nil }
            return device.renderer.appNames[Int(app.index)]
        }
        #expect(order == ["com.example.idle", "com.example.uploader"])
        #expect(device.kills(of: busy).first?.contains("\"band\": 30, \"bandName\": \"background\"") == true)
    }

    @Test("rules §10: an app above its own limit is killed at once, even in front with memory to spare (cause perProcessLimit)")
    func perProcessLimit() {
        let device = twoGigabyteDevice()
        let editor = device.install(AppManifest(bundleIdentifier: "com.example.editor", memory: 200 * MB)) {
            MemoryApp(onActive: 1000 * MB)
        }
        device.perform(.launch(editor))
        #expect(device.state(of: editor) == .notRunning)
        let kill = device.kills(of: editor).first ?? ""
        #expect(kill.contains("\"band\": 100") && kill.contains("\"cause\": \"perProcessLimit\"")
                && kill.contains("\"footprintMB\": 1200"))
        #expect(device.engine.appMemoryLimit == Int64(Double(2048 * MB) * 0.55))
    }

    @Test("rules §10: within a band the profile's order decides — least recently used (XNU's FIFO) or largest first")
    func orderWithinBand() {
        func firstVictim(_ order: JetsamOrder) -> String? {
            var policy = MemorySettings.modern
            policy.orderWithinBand = order
            let device = twoGigabyteDevice(policy)
            let small = device.install(AppManifest(bundleIdentifier: "com.example.small", memory: 150 * MB)) { MemoryApp() }
            let big = device.install(AppManifest(bundleIdentifier: "com.example.big", memory: 300 * MB)) { MemoryApp() }
            let game = device.install(AppManifest(bundleIdentifier: "com.example.game", memory: 100 * MB)) {
                MemoryApp(onActive: 950 * MB)
            }
            device.perform(.launch(small))      // suspended first: least recently used
            device.advance(seconds: 60)
            device.perform(.launch(big))
            device.advance(seconds: 60)
            device.perform(.launch(game))
            device.advance(seconds: 1)
            let killed = device.trace.filter { $0.kindName == "terminate" }.compactMap(\.app)
            #expect(killed.count == 1)
            return killed.first.map { device.renderer.appNames[Int($0.index)] }
        }
        #expect(firstVictim(.leastRecentlyUsed) == "com.example.small")
        #expect(firstVictim(.largestFirst) == "com.example.big")
    }

    @Test("rules §10/§11: a memory kill is not a force-quit — the app is still launched for fetch; the user's return is a cold launch, counted apart from warm ones")
    func memoryKillIsNotForceQuit() {
        let device = twoGigabyteDevice()
        let reader = device.install(AppManifest(bundleIdentifier: "com.example.reader", backgroundModes: [.fetch],
                                                memory: 400 * MB)) { MemoryApp() }
        let game = device.install(AppManifest(bundleIdentifier: "com.example.game", memory: 100 * MB)) {
            MemoryApp(onActive: 1000 * MB)
        }
        device.perform(.launch(reader))
        device.perform(.home)
        device.perform(.launch(reader))      // warm: it was suspended
        device.perform(.launch(game))
        device.advance(seconds: 1)
        #expect(device.state(of: reader) == .notRunning)
        #expect(!device.engine.isForceQuit(reader))
        device.perform(.launch(reader))      // cold: it was purged
        let summary = device.summary(of: reader)
        #expect(summary.coldLaunches == 2 && summary.warmLaunches == 1)
        #expect(summary.text.contains("2 new processes (user 2), 1 return to the front from memory"))
    }

    @Test("rules §10: GPU use in the background terminates at once (gpuInBackground); in front it is fine")
    func gpuInBackground() {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.game")) {
            let a = MemoryApp()
            a.onBackground = { application in
                _ = application.beginBackgroundTask(withName: "render", expirationHandler: nil)
                Runtime.asyncAfter(seconds: 2) { Runtime.useGPU() }
            }
            return a
        }
        device.perform(.launch(app))
        device.process(of: app)?.useGPU()
        #expect(device.state(of: app) == .active)
        device.perform(.home)
        device.advance(seconds: 3)
        #expect(device.kills(of: app).first?.contains("\"reason\": \"gpuInBackground\"") == true)
    }

    @Test("rules §10: a file lock still held at suspension terminates the app (lockHeldWhileSuspended, 0xdead10cc); released in time, it just suspends")
    func lockHeldWhileSuspended() {
        for releases in [false, true] {
            let device = SimulatedDevice()
            let app = device.install(AppManifest(bundleIdentifier: "com.example.db")) {
                let a = MemoryApp()
                a.onBackground = { _ in
                    let lock = FileLock(path: "db.sqlite")
                    lock.lock()
                    if releases { lock.unlock() }
                }
                return a
            }
            device.perform(.launch(app))
            device.perform(.home)
            if releases {
                #expect(device.state(of: app) == .suspended)
                #expect(device.kills(of: app).isEmpty)
            } else {
                #expect(device.state(of: app) == .notRunning)
                let kill = device.kills(of: app).first ?? ""
                #expect(kill.contains("\"reason\": \"lockHeldWhileSuspended\", \"code\": \"0xdead10cc\""))
                #expect(kill.contains("db.sqlite"))
            }
        }
    }

    @Test("rules §10: listeners and Bonjour services close on suspension, connections are torn down during a long suspension; the app hears of both when it runs again")
    func socketsOnSuspension() {
        let device = SimulatedDevice()
        var states: [String: NetworkSocket.State] = [:]
        let app = device.install(AppManifest(bundleIdentifier: "com.example.chat")) {
            final class Chat: ApplicationDelegate {
                var sockets: [NetworkSocket] = []
                let record: (String, NetworkSocket.State) -> Void
                init(_ record: @escaping (String, NetworkSocket.State) -> Void) { self.record = record }
                func applicationDidBecomeActive(_ application: Application) {
                    guard sockets.isEmpty else { return }
                    sockets = [NWListener(name: "listener"), BonjourService(name: "_chat._tcp"), NWConnection(name: "server")]
                    for s in sockets {
                        s.stateUpdateHandler = { [record] state in record(s.name, state) }
                        s.start()
                    }
                }
            }
            return Chat { states[$0] = $1 }
        }
        device.perform(.launch(app))
        #expect(states["listener"] == .ready && states["server"] == .ready)
        device.perform(.home)
        #expect(device.engine.openSockets(of: app).map(\.name) == ["server"])
        #expect(states["listener"] == .ready)  // the app runs no code while suspended
        device.advance(seconds: 3600)
        device.perform(.launch(app))
        #expect(states["listener"] == .failed("listening sockets and Bonjour services are closed on suspension"))
        #expect(states["_chat._tcp"] == .failed("listening sockets and Bonjour services are closed on suspension"))
        #expect(states["server"].map { if case let .failed(why) = $0 { why.hasPrefix("torn down after") } else { false } } == true)
        #expect(device.events(of: app).filter { $0.kindName == "socket.close" }.count == 3)
    }

    @Test("rules §10: the snapshot is taken when didEnterBackground returns, showing what the UI showed then")
    func snapshotAfterDidEnterBackground() {
        for hides in [false, true] {
            let device = SimulatedDevice()
            let app = device.install(AppManifest(bundleIdentifier: "com.example.bank")) {
                let a = MemoryApp()
                a.onBackground = { application in if hides { application.isSensitiveContentVisible = false } }
                return a
            }
            device.perform(.launch(app))
            device.process(of: app)?.application.isSensitiveContentVisible = true
            device.perform(.home)
            let story = device.story(of: app)
            let callback = story.firstIndex { $0.hasSuffix("callback didEnterBackground") }
            let snapshot = story.firstIndex { $0.contains("snapshot") }
            #expect(callback != nil && snapshot != nil && callback! < snapshot!)
            #expect(story[snapshot!].contains(hides ? "bool(false)" : "bool(true)"))
        }
    }

    @Test("rules §10 scenario vocabulary: impossible sizes are clear errors; 'holdLock: false' is not a lock named false")
    func impossibleSizes() {
        func error(_ yaml: String) -> String? {
            do { _ = try ScenarioParser(file: "m.yaml").parse(yaml); return nil } catch { return "\(error)" }
        }
        #expect(error("device: {memory: 2GB}\napps: [{bundle: a, memory: -5MB}]\n")?.contains("cannot be negative") == true)
        #expect(error("device: {memory: 2GB}\napps: [{bundle: a, memory: 3GB}]\n")?
            .contains("more than the device's 2048 MB") == true)
        #expect(error("apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - allocate: lots\n")?
            .contains("m.yaml:5:21: allocate: 'lots' is not a size") == true)
        #expect(error("apps:\n  - bundle: a\n    on:\n      memoryWarning:\n        - allocate: -50MB\n") == nil)
        #expect(error("apps:\n  - bundle: a\n    on:\n      didBecomeActive:\n        - alocate: 5MB\n")?
            .contains("did you mean 'allocate'") == true)
        #expect(error("apps:\n  - bundle: a\n    on:\n      didEnterBackground:\n        - holdLock: false\n")?
            .contains("m.yaml:5:21: 'holdLock: false' holds nothing; leave the action out, or name the lock") == true)
        #expect(error("apps:\n  - bundle: a\n    on:\n      didEnterBackground:\n        - holdLock: db.sqlite\n        - releaseLock\n") == nil)
    }
}

/// A random memory run driven at the engine's level, one event at a time, so
/// the bands of every app can be read just before jetsam acts.
struct RandomMemoryRun {
    var footprints: [UInt64]
    var actions: [UInt64]

    /// Checks the invariants after every step; returns the memory kills seen.
    func run(check: (String) -> Void) -> Int {
        var device = DeviceState()
        device.memory = 1024 * MB
        var engine = Engine(profile: .modern, device: device, seed: 1)
        let ids = footprints.enumerated().map { i, f in
            engine.install(AppManifest(bundleIdentifier: "com.example.app\(i)", memory: Int64(20 + f % 300) * MB))
        }
        var directives: [Directive] = []
        var openTasks: [AppID: Int] = [:]
        var kills = 0
        var t: Nanoseconds = 0
        for action in actions {
            var a = action
            let app = ids[Int(a % UInt64(ids.count))]; a /= UInt64(ids.count)
            let kind = a % 6; a /= 6
            let size = Int64(a % 400) * MB; a /= 400
            t += Time.seconds(Int(a % 40))
            switch kind {
            case 0: engine.schedule(.user(.launch(app)), at: t)
            case 1: engine.schedule(.user(.home), at: t)
            case 2: if engine.state(of: app).isRunning { engine.allocate(for: app, bytes: size) }
            case 3: if engine.state(of: app).isRunning { engine.allocate(for: app, bytes: -size) }
            case 4:
                if engine.state(of: app).isRunning, openTasks[app] == nil {
                    openTasks[app] = engine.beginBackgroundTask(for: app, name: "t")
                }
            default:
                if let id = openTasks.removeValue(forKey: app) { engine.endBackgroundTask(for: app, id) }
            }
            while let next = engine.nextEventTime, next <= t {
                // The bands just before the step: jetsam acts within one step.
                let before = ids.map { engine.isBeingJettisoned($0) ? nil : engine.jetsamBand(of: $0) }
                // The idle band's kept LRU order picks what a pass over every app picks.
                var probe = engine
                if probe.nextJetsamVictim() != engine.jetsamVictimByFullPass() {
                    check("the kept LRU order chose \(String(describing: probe.nextJetsamVictim())), "
                          + "a full pass \(String(describing: engine.jetsamVictimByFullPass()))")
                }
                let traceStart = engine.trace.count
                engine.step()
                var chosen: [JetsamBand] = []
                for event in engine.trace[traceStart...] {
                    if case let .memoryKill(kill) = event.kind, kill.cause == .pressure { chosen.append(kill.band) }
                }
                for (i, app) in ids.enumerated() where before[i] != nil && engine.isBeingJettisoned(app) {
                    chosen.append(before[i]!)
                }
                kills += chosen.count
                if let highest = chosen.max() {
                    for (i, app) in ids.enumerated() {
                        guard let band = before[i], engine.jetsamBand(of: app) != nil, !engine.isBeingJettisoned(app) else { continue }
                        if band < highest { check("app\(i) in band \(band) outlived a kill from band \(highest)") }
                    }
                }
                // Answer every callback at once (the apps do nothing).
                engine.answerAtOnce(&directives) { d, _ in
                    switch d {
                    case let .deliver(app, .didEnterBackground), let .terminate(app): openTasks[app] = nil
                    default: break
                    }
                }
                for app in ids where engine.footprint(of: app) < 0 { check("negative footprint") }
                let used = ids.reduce(Int64(0)) { $0 + engine.footprint(of: $1) }
                if used < 0 || used > engine.device.memory * 2 { check("accounting out of range: \(used)") }
                // Free memory is kept as a running total; it must equal the sum of the footprints.
                let system = Int64(Double(engine.device.memory) * engine.profile.memory.systemShare)
                if engine.freeMemory != engine.device.memory - system - used {
                    check("free memory \(engine.freeMemory) ≠ RAM − system − footprints \(engine.device.memory - system - used)")
                }
            }
            engine.advanceClock(to: t)
        }
        return kills
    }
}

@Suite("Properties of memory enforcement (rules §10)")
struct MemoryPropertyTests {
    @Test("rules §10: no app is killed for memory while an app in a lower band is still alive; the idle band goes in LRU order; footprints never go negative; free memory adds up")
    func killsGoLowestBandFirst() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max).array(of: 4),
                            Gen.uint64(in: 0...UInt64.max).array(of: 1...60)) { footprints, actions in
            var problems: [String] = []
            _ = RandomMemoryRun(footprints: footprints, actions: actions).run { problems.append($0) }
            #expect(problems.isEmpty, "\(problems.first ?? "")")
        }
    }

    @Test("rules §10: the random memory runs do reach jetsam")
    func runsReachJetsam() {
        var random = SeededRandom(seed: 10)
        var total = 0
        for _ in 0..<50 {
            let run = RandomMemoryRun(footprints: (0..<4).map { _ in random.next() },
                                      actions: (0..<60).map { _ in random.next() })
            total += run.run { _ in }
        }
        #expect(total > 0)
    }
}

@Test("rules §10: memory in kill details reads as MB rounded to a tenth")
func megabyteWords() {
    let mb: Int64 = 1024 * 1024
    #expect(Engine.mb(400 * mb) == "400 MB")
    #expect(Engine.mb(12 * mb + 3 * mb / 10) == "12.3 MB")
    #expect(Engine.mb(13 * mb - mb / 50) == "13.0 MB")
    #expect(Engine.mb(-(12 * mb + mb / 2)) == "-12.5 MB")
    #expect(Engine.mb(0) == "0 MB")
}

/// An app that allocates a different amount each time it becomes active.
final class StagedAllocator: ApplicationDelegate {
    var stages: [Int64]
    var warnings = 0
    init(_ stages: [Int64]) { self.stages = stages }
    func applicationDidBecomeActive(_ application: Application) {
        guard !stages.isEmpty else { return }
        let bytes = stages.removeFirst()
        if bytes != 0 { Runtime.allocate(bytes: bytes) }
    }
    func applicationDidReceiveMemoryWarning(_ application: Application) { warnings += 1 }
}

/// An app that allocates in `willTerminate` (saving state into a new buffer).
final class AllocatesOnTerminate: ApplicationDelegate {
    let bytes: Int64
    init(_ bytes: Int64) { self.bytes = bytes }
    func applicationDidEnterBackground(_ application: Application) {
        _ = application.beginBackgroundTask(withName: "upload", expirationHandler: nil)
    }
    func applicationWillTerminate(_ application: Application) { Runtime.allocate(bytes: bytes) }
}

@Suite("rules §10 — memory enforcement, review fixes")
struct MemoryReviewTests {
    @Test("rules §10: a smaller device (device memory change) lowers the per-process limit — an app now above it is killed (perProcessLimit)")
    func shrinkingDeviceMemoryEnforcesLimit() {
        let device = twoGigabyteDevice()
        let editor = device.install(AppManifest(bundleIdentifier: "com.example.editor", memory: 200 * MB)) {
            MemoryApp(onActive: 500 * MB)
        }
        device.perform(.launch(editor))
        #expect(device.state(of: editor) == .active)
        device.change(.memory(1024 * MB))   // limit 563.2 MB, footprint 700 MB
        #expect(device.state(of: editor) == .notRunning)
        #expect(device.kills(of: editor).first?.contains("\"cause\": \"perProcessLimit\"") == true)
    }

    @Test("rules §10: when a process's end lifts free memory above the warning level, the episode is over — the next shortage warns again")
    func warningEpisodeEndsWhenAProcessEnds() {
        let device = twoGigabyteDevice()
        let r = device.install(AppManifest(bundleIdentifier: "com.example.r", memory: 250 * MB)) { MemoryApp() }
        let photos = StagedAllocator([0, 1000 * MB])
        let p = device.install(AppManifest(bundleIdentifier: "com.example.p", memory: 100 * MB)) { photos }
        let game = MemoryApp(onActive: 650 * MB)
        let q = device.install(AppManifest(bundleIdentifier: "com.example.q", memory: 400 * MB)) { game }
        device.perform(.launch(r))
        device.perform(.launch(p))
        device.perform(.launch(q))          // 1400 MB resident: 136 MB free, below the warning level
        device.advance(seconds: 1)
        #expect(game.warnings == 1)
        device.perform(.forceQuit(q))       // 1186 MB free: the episode is over
        device.advance(seconds: 1)
        device.perform(.switchTo(p))        // a warm return: P allocates 1000 MB, 186 MB free
        device.advance(seconds: 1)
        #expect(device.state(of: p) == .active)
        #expect(photos.warnings == 1)
    }

    @Test("rules §10: an app kept running by a service (standard location updates) holds an assertion — jetsam band background (30), not idleDeferred")
    func serviceKeepsBackgroundBand() {
        let device = twoGigabyteDevice()
        let app = device.install(modes("com.example.navigation", [.location])) { LocationApp(Journal(), [.standard]) }
        device.perform(.launch(app))
        device.perform(.lock)
        device.advance(seconds: 60)
        #expect(device.state(of: app) == .background)
        #expect(device.engine.jetsamBand(of: app) == .background)
    }

    @Test("rules §10: an app jetsam chose that passes its own limit in willTerminate is one kill, not two (the count of kills under way returns to 0)")
    func jettisonedAppOverLimitCountedOnce() {
        let device = twoGigabyteDevice()
        let busy = device.install(AppManifest(bundleIdentifier: "com.example.uploader", memory: 500 * MB)) {
            AllocatesOnTerminate(2000 * MB)
        }
        let game = device.install(AppManifest(bundleIdentifier: "com.example.game", memory: 100 * MB)) {
            MemoryApp(onActive: 1000 * MB)
        }
        device.perform(.launch(busy))
        device.perform(.launch(game))
        device.advance(seconds: 1)
        #expect(device.state(of: busy) == .notRunning)
        #expect(device.engine.jettisonsUnderway == 0)
    }

    @Test("rules §10: an absurd allocation (Int64.max) is a per-process-limit kill, not an overflow")
    func hugeAllocationDoesNotOverflow() {
        let device = twoGigabyteDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.a", memory: 100 * MB)) {
            MemoryApp(onActive: .max)
        }
        device.perform(.launch(app))
        #expect(device.state(of: app) == .notRunning)
        #expect(device.engine.freeMemory == 1536 * MB)
    }
}

@Test("rules §10: when a process ends, what it held in memory (allocations, locks, sockets, a chosen kill, unsaved work) is gone — every field as a new process's")
func processMemoryEndsAsNew() {
    var memory = ProcessMemory()
    memory.allocated = 5
    memory.jettison = JetsamKill(footprint: 1, level: 2, memory: 3, band: .idle, cause: .pressure)
    memory.locks = ["db.sqlite"]
    memory.sockets = [OpenSocket(name: "listener", kind: .listener)]
    memory.closedWhileSuspended = [ClosedSocket(name: "listener", reason: "closed")]
    memory.sensitiveContentVisible = true
    memory.hasUnsavedChanges = true
    memory.processEnded()
    // Every stored field, by reflection: a field added later and not reset fails here.
    let ended = Mirror(reflecting: memory).children.map { "\($0.label ?? ""): \($0.value)" }
    let fresh = Mirror(reflecting: ProcessMemory()).children.map { "\($0.label ?? ""): \($0.value)" }
    #expect(ended == fresh)
    #expect(ended.count == 7)
}
