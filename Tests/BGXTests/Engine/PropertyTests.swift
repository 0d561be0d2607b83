import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import PropertyBased
import Testing

/// A random app: each gene picks how it behaves in every callback — busy
/// work (sometimes past a watchdog), background tasks begun in the
/// foreground or the background, network calls of random length, expiration
/// handlers that do or don't end their task, ending twice, notifications,
/// `UIApplicationExitsOnSuspend`.
struct RandomBehaviour: CustomStringConvertible {
    var exitsOnSuspend: Bool
    var launchWork: Double
    var beginsInForeground: Bool
    var beginsInBackground: Bool
    var networkSeconds: Double
    var endsOnExpiry: Bool
    var enterBackgroundWork: Double
    var willTerminateWork: Double
    var endsTwice: Bool
    var notifyAfter: Double?
    var backgroundTimer: Double?
    var expirationWork: Double

    init(gene: UInt64) {
        var g = gene
        func pick<T>(_ options: [T]) -> T {
            let value = options[Int(g % UInt64(options.count))]
            g /= UInt64(options.count)
            return value
        }
        exitsOnSuspend = pick([false, false, false, false, false, false, false, true])
        launchWork = pick([0, 0, 0, 0.5, 3, 19.5, 21])
        beginsInForeground = pick([false, true])
        beginsInBackground = pick([true, true, false])
        networkSeconds = pick([0, 1, 4.5, 10, 24.99, 25, 29.999, 30, 45, 200, 700])
        endsOnExpiry = pick([true, true, false])
        enterBackgroundWork = pick([0, 0, 0, 1, 4.999, 5, 6])
        willTerminateWork = pick([0, 0, 0, 2, 6])
        endsTwice = pick([false, false, true])
        notifyAfter = pick([nil, nil, 30, 90, 600])
        backgroundTimer = pick([nil, nil, 0, 15, 120])
        expirationWork = pick([0, 0, 0, 1, 6])
    }

    var description: String {
        "exits=\(exitsOnSuspend) launch=\(launchWork) fg=\(beginsInForeground) bg=\(beginsInBackground) "
            + "net=\(networkSeconds) endsOnExpiry=\(endsOnExpiry) enterBg=\(enterBackgroundWork) "
            + "willTerminate=\(willTerminateWork) twice=\(endsTwice) notify=\(String(describing: notifyAfter)) "
            + "timer=\(String(describing: backgroundTimer)) expiration=\(expirationWork)"
    }
}

/// The random app as ordinary iOS code.
final class RandomApp: ApplicationDelegate {
    let b: RandomBehaviour
    var tasks: [BackgroundTaskIdentifier] = []
    var notified = false

    init(_ behaviour: RandomBehaviour) { b = behaviour }

    func beginTask(_ application: Application, _ name: String) {
        var task = BackgroundTaskIdentifier.invalid
        task = application.beginBackgroundTask(withName: name) {
            Runtime.work(seconds: self.b.expirationWork)
            if self.b.endsOnExpiry { self.end(task, application) }
        }
        guard task != .invalid else { return }
        tasks.append(task)
        Runtime.asyncAfter(seconds: b.networkSeconds) { self.end(task, application) }
    }

    func end(_ task: BackgroundTaskIdentifier, _ application: Application) {
        application.endBackgroundTask(task)
        if b.endsTwice { application.endBackgroundTask(task) }
        tasks.removeAll { $0 == task }
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        Runtime.work(seconds: b.launchWork)
        if let after = b.notifyAfter, !notified {
            notified = true
            UNUserNotificationCenter.current().add(UNNotificationRequest(
                identifier: "n\(Int(after))", content: UNMutableNotificationContent(),
                trigger: UNTimeIntervalNotificationTrigger(timeInterval: after, repeats: after >= 60)))
        }
        return true
    }
    func applicationDidBecomeActive(_ application: Application) {
        if b.beginsInForeground { beginTask(application, "foreground") }
    }
    func applicationDidEnterBackground(_ application: Application) {
        if b.beginsInBackground { beginTask(application, "background") }
        if let after = b.backgroundTimer { Runtime.asyncAfter(seconds: after) { _ = application.backgroundTimeRemaining } }
        Runtime.work(seconds: b.enterBackgroundWork)
    }
    func applicationWillTerminate(_ application: Application) {
        Runtime.work(seconds: b.willTerminateWork)
    }
    func application(_ application: Application, didReceiveLocalNotification identifier: String) {
        Runtime.work(seconds: 0.25)
    }
}

/// One random run: the device, its apps and what the person does, decoded
/// from plain numbers so PropertyBased can generate and shrink them.
struct RandomRun {
    static let apps = ["com.example.a", "com.example.b", "com.example.c"]
    static let gaps: [Double] = [0, 0, 0.5, 2, 4.999, 5, 10, 20, 25, 30, 31, 120, 700]

    var deviceGene: UInt64
    var appGenes: [UInt64]
    var actions: [UInt64]

    /// Runs the scenario and returns the device afterwards.
    func run() -> SimulatedDevice {
        var d = deviceGene
        let profile = PolicyProfile.all[Int(d % 3)]; d /= 3
        var state = DeviceState()
        state.multitasking = d % 8 != 0; d /= 8
        state.passcode = d % 2 == 0; d /= 2
        let device = SimulatedDevice(profile: profile, device: state, seed: d)
        var ids: [AppID] = []
        for (i, bundle) in RandomRun.apps.enumerated() {
            let behaviour = RandomBehaviour(gene: appGenes[i % appGenes.count])
            ids.append(device.install(AppManifest(bundleIdentifier: bundle, exitsOnSuspend: behaviour.exitsOnSuspend)) {
                RandomApp(behaviour)
            })
        }
        for action in actions {
            var a = action
            let kind = a % 9; a /= 9
            let app = ids[Int(a % UInt64(ids.count))]; a /= UInt64(ids.count)
            let gap = RandomRun.gaps[Int(a % UInt64(RandomRun.gaps.count))]
            switch kind {
            case 0, 1: device.perform(.launch(app))
            case 2: device.perform(.home)
            case 3: device.perform(.lock)
            case 4: device.perform(.unlock)
            case 5: device.perform(.switchTo(app))
            case 6: device.perform(.forceQuit(app))
            case 7: device.change(.reboot)
            default: break   // the person does nothing; time passes
            }
            device.advance(seconds: gap)
        }
        device.advance(seconds: 1_000)   // let everything that is pending play out
        return device
    }
}

let runGenerators = (
    device: Gen.uint64(in: 0...UInt64.max),
    apps: Gen.uint64(in: 0...UInt64.max).array(of: 3),
    actions: Gen.uint64(in: 0...UInt64.max).array(of: 1...40)
)

@Suite("Properties over random user actions and app behaviour (docs/fuzzing.md, \"Property tests\")")
struct PropertyTests {

    @Test("rules §1: a suspended or not-running app never receives a callback")
    func suspendedAppsGetNoCallbacks() async {
        await propertyCheck(count: 500, input: runGenerators.device, runGenerators.apps, runGenerators.actions) {
            deviceGene, appGenes, actions in
            let device = RandomRun(deviceGene: deviceGene, appGenes: appGenes, actions: actions).run()
            var current: [AppID: ProcessState] = [:]
            var callbacks = 0
            for (n, event) in device.trace.enumerated() {
                guard let app = event.app else { continue }
                switch event.kind {
                case let .state(from, to, _):
                    let was = current[app] ?? .notRunning
                    #expect(from == was, "event \(n): state change from \(from) but the app was \(was)")
                    current[app] = to
                case let .callback(callback), let .callbackOnQueue(callback):
                    callbacks += 1
                    let state = current[app] ?? .notRunning
                    #expect(state.isRunning,
                            "event \(n): \(callback.name) delivered to \(device.renderer.appNames[Int(app.index)]) while \(state)")
                default:
                    break
                }
            }
            if actions.contains(where: { $0 % 9 < 2 }) { #expect(callbacks > 0) }
        }
    }

    @Test("rules §1, the trace's terminate (docs/scenarios.md): every terminate has a reason and a detail, and every change to notRunning follows a terminate at the same moment")
    func everyTerminationHasAReason() async {
        await propertyCheck(count: 500, input: runGenerators.device, runGenerators.apps, runGenerators.actions) {
            deviceGene, appGenes, actions in
            let device = RandomRun(deviceGene: deviceGene, appGenes: appGenes, actions: actions).run()
            let renderer = device.renderer
            var lastEvent: [AppID: TraceEvent] = [:]
            for (n, event) in device.trace.enumerated() {
                guard let app = event.app else { continue }
                if case let .terminate(reason, detail) = event.kind {
                    #expect(!reason.description.isEmpty)
                    #expect(!renderer.names.text(detail).isEmpty, "event \(n): terminate \(reason) without a detail")
                    let line = renderer.jsonLine(event)
                    #expect(line.contains("\"reason\": \"\(reason)\"") && line.contains("\"detail\": \""))
                }
                if case let .state(_, to, _) = event.kind, to == .notRunning {
                    let previous = lastEvent[app]
                    var precededByTerminate = false
                    if let previous, previous.terminationReason != nil, previous.time == event.time {
                        precededByTerminate = true
                    }
                    #expect(precededByTerminate, "event \(n): \(renderer.jsonLine(event)) not preceded by a terminate")
                }
                lastEvent[app] = event
            }
        }
    }

    @Test("docs/scenarios.md `seed`: the same inputs and seed give a byte-identical trace")
    func sameInputsSameTrace() async {
        await propertyCheck(count: 200, input: runGenerators.device, runGenerators.apps, runGenerators.actions) {
            deviceGene, appGenes, actions in
            let run = RandomRun(deviceGene: deviceGene, appGenes: appGenes, actions: actions)
            let first = run.run().traceLines
            let second = run.run().traceLines
            if actions.contains(where: { $0 % 9 != 8 }) { #expect(!first.isEmpty) }
            #expect(first == second)
        }
    }
}
