import BGXApp
@testable import BGXCore
@testable import BGXSimulation
import Foundation
import PropertyBased
import Testing

/// A random app of rules §4: which modes it declares, whether and when it
/// plays audio, which location services it starts, whether it talks to an
/// accessory or a Bluetooth peripheral, and how long its handlers take.
struct ServiceBehaviour {
    var modes: Set<BackgroundMode> = []
    var playsInFront: Double?
    var playsInBackground: Double?
    var category: AudioSession.Category
    var mixes: Bool
    var location: Set<LocationService> = []
    var allowsBackground: Bool
    var accessory: Bool
    var bluetooth: Bool
    var restores: Bool
    var handlerWork: Double
    var uploadSeconds: Double?

    init(gene: UInt64) {
        var g = gene
        func pick<T>(_ options: [T]) -> T {
            let value = options[Int(g % UInt64(options.count))]
            g /= UInt64(options.count)
            return value
        }
        for mode in [BackgroundMode.audio, .location, .externalAccessory, .bluetoothCentral] where pick([true, false]) {
            modes.insert(mode)
        }
        playsInFront = pick([nil, 0, 30, 600])
        playsInBackground = pick([nil, nil, 20, 3600])
        category = pick([.playback, .playback, .soloAmbient, .ambient])
        mixes = pick([false, false, true])
        for service in LocationService.allCases where pick([false, true]) { location.insert(service) }
        allowsBackground = pick([true, false])
        accessory = pick([false, true])
        bluetooth = pick([false, true])
        restores = pick([true, false])
        handlerWork = pick([0, 0.5, 3, 12])
        uploadSeconds = pick([nil, nil, 5, 40])
    }
}

final class ServiceApp: ApplicationDelegate, LocationManagerDelegate, AccessorySessionDelegate, CentralManagerDelegate {
    let b: ServiceBehaviour
    var player: AudioPlayer?
    var manager: LocationManager?
    var session: AccessorySession?
    var central: CentralManager?
    init(_ behaviour: ServiceBehaviour) { b = behaviour }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        try? AudioSession.sharedInstance().setCategory(b.category, options: b.mixes ? .mixWithOthers : [])
        player = AudioPlayer()
        let manager = LocationManager()
        manager.delegate = self
        self.manager = manager
        if b.location.contains(.standard) {
            manager.allowsBackgroundLocationUpdates = b.allowsBackground && b.modes.contains(.location)
            manager.startUpdatingLocation()
        }
        if b.location.contains(.significant) { manager.startMonitoringSignificantLocationChanges() }
        if b.location.contains(.region) { manager.startMonitoring(for: CircularRegion(identifier: "r", radius: 300)) }
        if b.accessory {
            session = AccessorySession(protocolString: "com.example.p")
            session?.delegate = self
        }
        if b.bluetooth {
            central = CentralManager(delegate: self, restoreIdentifier: b.restores ? "c" : nil)
            central?.connect("p")
        }
        return true
    }
    func applicationDidBecomeActive(_ application: Application) {
        if let seconds = b.playsInFront { player?.play(for: seconds == 0 ? nil : seconds) }
    }
    func applicationDidEnterBackground(_ application: Application) {
        if let seconds = b.playsInBackground { player?.play(for: seconds) }
    }
    func handle() {
        Runtime.work(seconds: b.handlerWork)
        guard let seconds = b.uploadSeconds else { return }
        let application = Application.shared
        var task = BackgroundTaskIdentifier.invalid
        task = application.beginBackgroundTask(withName: "upload") { application.endBackgroundTask(task) }
        Runtime.asyncAfter(seconds: seconds) { application.endBackgroundTask(task) }
    }
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) { handle() }
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) { handle() }
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) { handle() }
    func accessorySessionHasBytesAvailable(_ session: AccessorySession) { handle() }
    func centralManager(_ central: CentralManager, didUpdateValueForPeripheral peripheral: String) { handle() }
}

/// Which trace kinds (and launch causes) the random runs produced.
final class SeenKinds: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: Set<String> = []
    var kinds: Set<String> { lock.withLock { storage } }
    func note(_ event: TraceEvent) {
        let name = if case let .launch(cause) = event.kind { "launch \(cause)" } else { event.kindName }
        lock.withLock { _ = storage.insert(name) }
    }
}

/// One random run of service apps, the person, the device moving and
/// accessories talking.
struct ServiceRun {
    static let gaps: [Double] = [0, 0, 1, 5, 9.999, 10, 11, 60, 299, 300, 1200]
    static let moves: [Int64] = [50, 120, 250, 499, 500, 800, -120, -300, -800]
    var deviceGene: UInt64
    var appGenes: [UInt64]
    var actions: [UInt64]

    func run() -> SimulatedDevice {
        var d = deviceGene
        let profile = PolicyProfile.all[Int(d % 3)]; d /= 3
        var state = DeviceState()
        state.passcode = d % 2 == 0; d /= 2
        let device = SimulatedDevice(profile: profile, device: state, seed: d)
        var ids: [AppID] = []
        for (i, gene) in appGenes.enumerated() {
            let behaviour = ServiceBehaviour(gene: gene)
            ids.append(device.install(AppManifest(bundleIdentifier: "com.example.s\(i)", backgroundModes: behaviour.modes)) {
                ServiceApp(behaviour)
            })
        }
        for action in actions {
            var a = action
            let kind = a % 12; a /= 12
            let app = ids[Int(a % UInt64(ids.count))]; a /= UInt64(ids.count)
            let gap = ServiceRun.gaps[Int(a % UInt64(ServiceRun.gaps.count))]; a /= UInt64(ServiceRun.gaps.count)
            switch kind {
            case 0, 1: device.perform(.launch(app))
            case 2: device.perform(.home)
            case 3: device.perform(.lock)
            case 4: device.perform(.unlock)
            case 5: device.perform(.forceQuit(app))
            case 6: device.change(.reboot)
            case 7, 8: device.move(ServiceRun.moves[Int(a % UInt64(ServiceRun.moves.count))])
            case 9: device.accessoryData(app, .accessory)
            case 10: device.accessoryData(app, .bluetooth)
            default: device.systemKill(app)
            }
            device.advance(seconds: gap)
        }
        device.advance(seconds: 4_000)
        return device
    }
}

@Suite("Properties of the long-running modes over random runs (rules §4, §11)")
struct LongRunningPropertyTests {
    @Test("rules §4: no callback reaches a suspended app; no app is suspended while its audio plays; every refusal has a reason")
    func invariants() async {
        await propertyCheck(count: 300, input: runGenerators.device, runGenerators.apps,
                            runGenerators.actions) { deviceGene, appGenes, actions in
            let device = ServiceRun(deviceGene: deviceGene, appGenes: appGenes, actions: actions).run()
            let renderer = device.renderer
            var current: [AppID: ProcessState] = [:]
            var playing: Set<AppID> = []
            for (n, event) in device.trace.enumerated() {
                guard let app = event.app else { continue }
                switch event.kind {
                case let .state(_, to, _):
                    current[app] = to
                    #expect(!(to == .suspended && playing.contains(app)), "event \(n): suspended while playing audio")
                    if to == .notRunning { playing.remove(app) }
                case let .callback(callback), let .callbackOnQueue(callback):
                    #expect((current[app] ?? .notRunning).isRunning, "event \(n): \(callback.name) to a \(current[app] ?? .notRunning) app")
                case .audioStart: playing.insert(app)
                case .audioStop: playing.remove(app)
                case .launch(.accessory):
                    Issue.record("event \(n): accessory data launched an app")
                default: break
                }
                if ["audio.stop", "audio.refuse", "location.drop", "location.defer", "accessory.drop",
                    "accessory.disconnect"].contains(event.kindName) {
                    let reason = renderer.fields(of: event).first { $0.0 == "reason" }?.1
                    #expect(reason != nil && reason != .string(""), "event \(n): \(event.kindName) without a reason")
                }
            }
        }
    }

    @Test("The random service runs reach every part of rules §4 (else the properties prove little)")
    func generatorCoverage() {
        // Fixed seeds: the property tests draw fresh ones each run, so whether
        // one of their runs reaches, say, a Bluetooth relaunch is luck.
        var random = SeededRandom(seed: 4)
        let seen = SeenKinds()
        for _ in 0..<300 {
            let run = ServiceRun(deviceGene: random.next(), appGenes: (0..<3).map { _ in random.next() },
                                 actions: (0..<Int(1 + random.next() % 40)).map { _ in random.next() })
            for event in run.run().trace { seen.note(event) }
        }
        for kind in ["audio.start", "audio.stop", "audio.refuse", "location.deliver", "location.drop", "location.defer",
                     "accessory.deliver", "accessory.drop", "accessory.disconnect", "launch location", "launch region",
                     "launch bluetooth"] {
            #expect(seen.kinds.contains(kind), "no run produced \(kind)")
        }
    }

    @Test("rules §11: a force-quit app is relaunched by no service event — location and region only where the profile allows")
    func forceQuitIsRespected() async {
        await propertyCheck(count: 300, input: runGenerators.device, runGenerators.apps,
                            runGenerators.actions) { deviceGene, appGenes, actions in
            let device = ServiceRun(deviceGene: deviceGene, appGenes: appGenes, actions: actions).run()
            let locationExempt = device.engine.profile.relaunchLocationAfterForceQuit
            let renderer = device.renderer
            var forceQuit: Set<AppID> = []
            for (n, event) in device.trace.enumerated() {
                switch event.kind {
                case .user(.forceQuit): if let app = event.app { forceQuit.insert(app) }
                case .user(.launch), .user(.switchTo): if let app = event.app { forceQuit.remove(app) }
                case let .device(property, _):
                    if renderer.names.text(property) == "reboot" { forceQuit.removeAll() }
                case let .launch(cause):
                    guard let app = event.app, forceQuit.contains(app), !cause.launchesIntoForeground else { break }
                    let exempt = locationExempt && (cause == .location || cause == .region)
                    #expect(exempt, "event \(n): a force-quit app was launched for \(cause)")
                default: break
                }
            }
        }
    }

    @Test("the same random service run gives the same trace")
    func deterministic() async {
        await propertyCheck(count: 50, input: runGenerators.device, runGenerators.apps,
                            runGenerators.actions) { deviceGene, appGenes, actions in
            let run = ServiceRun(deviceGene: deviceGene, appGenes: appGenes, actions: actions)
            #expect(run.run().traceLines == run.run().traceLines)
        }
    }
}

