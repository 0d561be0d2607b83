import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A news app using legacy background fetch (iOS 7–12 style): asks for the
/// minimum interval at launch, and fetches in `performFetch`.
final class NewsFetchApp: ApplicationDelegate {
    enum Behaviour {
        /// Fetches over the network for `seconds`, then reports newData.
        case honest(seconds: Double)
        /// Reports newData at once, without fetching anything.
        case liar
        /// Never calls the completion handler.
        case forgetful
    }
    let behaviour: Behaviour
    /// nil: never calls setMinimumBackgroundFetchInterval (the default is never).
    let interval: TimeInterval?
    let journal: Journal

    init(_ behaviour: Behaviour, interval: TimeInterval? = Application.backgroundFetchIntervalMinimum,
         journal: Journal = Journal()) {
        self.behaviour = behaviour
        self.interval = interval
        self.journal = journal
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launched \(options.map { "\($0.cause)" } ?? "by the user")")
        if let interval { application.setMinimumBackgroundFetchInterval(interval) }
        return true
    }

    func application(_ application: Application,
                     performFetchWithCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        journal.write("performFetch")
        switch behaviour {
        case let .honest(seconds):
            Runtime.asyncAfter(seconds: seconds) {
                self.journal.write("fetched")
                completionHandler(.newData)
            }
        case .liar:
            completionHandler(.newData)
        case .forgetful:
            Runtime.asyncAfter(seconds: 5) { self.journal.write("fetched, forgot to call the completion handler") }
        }
    }
}

func newsManifest(modes: Set<BackgroundMode> = [.fetch]) -> AppManifest {
    AppManifest(bundleIdentifier: "com.example.news", backgroundModes: modes)
}

/// The person opens the app at 60 s and leaves it at 120 s.
func newsDevice(_ make: @escaping () -> NewsFetchApp, manifest: AppManifest = newsManifest(),
                profile: PolicyProfile = .modern) -> (device: SimulatedDevice, app: AppID) {
    usedOnceDevice(manifest, profile: profile, delegate: make)
}

/// A device with one app that the person opens at 60 s and leaves at 120 s.
func usedOnceDevice(_ manifest: AppManifest, profile: PolicyProfile = .modern, device state: DeviceState = DeviceState(),
                    delegate make: @escaping () -> ApplicationDelegate) -> (device: SimulatedDevice, app: AppID) {
    let device = SimulatedDevice(profile: profile, device: state)
    let app = device.install(manifest, delegate: make)
    device.advance(seconds: 60)
    device.perform(.launch(app))
    device.advance(seconds: 60)
    device.perform(.home)
    return (device, app)
}

/// Busy background work of a processing task, for the CPU monitor.
final class CruncherApp: ApplicationDelegate {
    let requiresExternalPower: Bool
    /// Bursts of busy work: (start after the task begins, seconds of CPU).
    let bursts: [(after: Double, seconds: Double)]
    let journal: Journal
    init(requiresExternalPower: Bool, bursts: [(after: Double, seconds: Double)], journal: Journal = Journal()) {
        self.requiresExternalPower = requiresExternalPower
        self.bursts = bursts
        self.journal = journal
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: feedCleanup, using: nil) { task in
            task.expirationHandler = { task.setTaskCompleted(success: false) }
            for burst in self.bursts {
                Runtime.asyncAfter(seconds: burst.after) { Runtime.work(seconds: burst.seconds) }
            }
            let end = self.bursts.map { $0.after + $0.seconds }.max() ?? 0
            Runtime.asyncAfter(seconds: end + 1) {
                self.journal.write("crunched")
                task.setTaskCompleted(success: true)
            }
        }
        return true
    }
    func applicationDidEnterBackground(_ application: Application) {
        let request = BGProcessingTaskRequest(identifier: feedCleanup)
        request.requiresExternalPower = requiresExternalPower
        try? BGTaskScheduler.shared.submit(request)
    }
}

@Suite("rules §6 — legacy background fetch; rules §10 — the CPU monitor")
struct BackgroundFetchTests {

    @Test("rules §6: the default fetch interval is never — no fetch without setMinimumBackgroundFetchInterval")
    func defaultIsNever() {
        let journal = Journal()
        let (device, app) = newsDevice { NewsFetchApp(.honest(seconds: 2), interval: nil, journal: journal) }
        device.advance(hours: 72)
        #expect(device.schedulerEvents(of: app, only: ["fetch.start", "fetch.defer", "fetch.complete"]).isEmpty)
        #expect(!journal.entries.contains("performFetch"))
        // Setting it back to never stops fetches too.
        let journal2 = Journal()
        let (device2, app2) = newsDevice {
            NewsFetchApp(.honest(seconds: 2), interval: Application.backgroundFetchIntervalNever, journal: journal2)
        }
        device2.advance(hours: 72)
        #expect(device2.schedulerEvents(of: app2, only: ["fetch.start"]).isEmpty)
    }

    @Test("rules §6: with setMinimumBackgroundFetchInterval the system calls performFetch — fetch.start, callback, fetch.complete")
    func fetchRuns() {
        let journal = Journal()
        let (device, app) = newsDevice { NewsFetchApp(.honest(seconds: 2), journal: journal) }
        device.advance(hours: 9)
        // A used app with no background launch for 8 h gets its opportunity.
        let t0 = firstStaleRefresh
        #expect(device.schedulerEvents(of: app, only: ["fetch.start", "fetch.complete"]).map(\.description) == [
            "\(Time.format(Time.seconds(t0))) fetch.start  ",
            "\(Time.format(Time.seconds(t0 + 2))) fetch.complete  newData",
        ])
        #expect(device.story(of: app, only: ["callback"]).contains("\(Time.format(Time.seconds(t0))) callback performFetch"))
        #expect(journal.entries.suffix(2) == ["performFetch", "fetched"])
        #expect(device.terminations(of: app).isEmpty)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §6/§11: a fetch launches a terminated (not force-quit) app into the background with cause fetch")
    func fetchLaunchesTheApp() {
        let journal = Journal()
        let (device, app) = newsDevice { NewsFetchApp(.honest(seconds: 2), journal: journal) }
        device.advance(hours: 1)
        device.change(.reboot)
        device.perform(.unlock)
        device.advance(hours: 8)
        let t0 = Time.format(Time.seconds(firstStaleRefresh))
        #expect(device.story(of: app, only: ["launch"]) == ["60 launch user", "\(t0) launch fetch"])
        #expect(journal.entries.suffix(3) == ["launched fetch", "performFetch", "fetched"])
    }

    @Test("rules §6: the interval is honoured only with the fetch background mode")
    func fetchNeedsTheMode() {
        let (device, app) = newsDevice({ NewsFetchApp(.honest(seconds: 2)) }, manifest: newsManifest(modes: []))
        device.advance(hours: 48)
        #expect(device.schedulerEvents(of: app, only: ["fetch.start"]).isEmpty)
        #expect(device.story(of: app, only: ["log"]).contains {
            $0.contains("You've set a background fetch interval, but you still need to add \"fetch\"")
        })
    }

    @Test("rules §6: no completion within 30 s terminates the app (completionHandlerTimeout, 0x2182bad4)")
    func fetchTimeout() {
        let journal = Journal()
        let (device, app) = newsDevice { NewsFetchApp(.forgetful, journal: journal) }
        device.advance(hours: 9)
        let t0 = firstStaleRefresh
        let kills = device.terminations(of: app)
        #expect(kills.map(\.t) == [t0 + 30])
        #expect(kills.map(\.reason) == ["completionHandlerTimeout"])
        #expect(kills.map(\.code) == ["0x2182bad4"])
        #expect(journal.entries.last == "fetched, forgot to call the completion handler")
        #expect(device.schedulerEvents(of: app, only: ["fetch.complete"]).isEmpty)
    }

    @Test("rules §6: an app claiming newData without fetching anything gets fewer fetch opportunities than an honest fast one")
    func honestAppsGetMoreFetches() {
        func fetches(_ behaviour: NewsFetchApp.Behaviour) -> [Double] {
            let device = SimulatedDevice()
            let app = device.install(newsManifest()) { NewsFetchApp(behaviour) }
            // The person reads the news four times a day for five days.
            for day in 0..<5 {
                for hour in [7, 12, 18, 22] {
                    device.advance(seconds: Double(day * 86_400 + hour * 3600) - device.nowSeconds)
                    device.perform(.launch(app))
                    device.advance(seconds: 300)
                    device.perform(.home)
                }
            }
            device.advance(seconds: 5 * 86_400 - device.nowSeconds)
            #expect(device.terminations(of: app).isEmpty)
            return device.schedulerEvents(of: app, only: ["fetch.start"]).map(\.t)
        }
        let honest = fetches(.honest(seconds: 3))
        let liar = fetches(.liar)
        #expect(honest.count >= 10, "\(honest)")
        #expect(liar.count < honest.count, "liar \(liar.count) vs honest \(honest.count): \(liar) vs \(honest)")
        // Both start the same way: the first opportunities are identical …
        #expect(liar.first == honest.first)
    }

    // MARK: The CPU monitor (rules §10)

    /// A charging device; the app is opened at 0 s, the device locked at 120 s,
    /// so its processing task starts at 720 s.
    func crunch(power: Bool, bursts: [(after: Double, seconds: Double)]) -> (device: SimulatedDevice, app: AppID, journal: Journal) {
        var state = DeviceState()
        state.charging = true
        let device = SimulatedDevice(device: state)
        let journal = Journal()
        let app = device.install(feedManifest(modes: [.processing])) {
            CruncherApp(requiresExternalPower: power, bursts: bursts, journal: journal)
        }
        device.perform(.launch(app))
        device.advance(seconds: 120)
        device.perform(.lock)
        device.advance(seconds: 1200)
        return (device, app, journal)
    }

    @Test("rules §10: background busy work over 48 s within 60 s is killed (cpuLimit) at the exact moment")
    func cpuLimitKills() {
        let (device, app, journal) = crunch(power: false, bursts: [(0, 50)])
        #expect(device.taskStarts(of: app) == [720])
        let kills = device.terminations(of: app)
        #expect(kills.map(\.t) == [768])
        #expect(kills.map(\.reason) == ["cpuLimit"])
        #expect(kills.first?.detail.contains("80 %") == true)
        #expect(!journal.entries.contains("crunched"))
    }

    @Test("rules §10: the CPU monitor counts busy time in a trailing 60 s window — bursts with a gap are killed when the window holds 48 s")
    func cpuLimitWindow() {
        // 30 s busy, 5 s idle, 30 s busy: the window [t-60, t] holds 48 s at t = 53.
        let (device, app, _) = crunch(power: false, bursts: [(0, 30), (35, 30)])
        #expect(device.terminations(of: app).map { "\($0.t) \($0.reason)" } == ["773.0 cpuLimit"])
        // 47 s in a minute stays under the limit.
        let (calm, calmApp, journal) = crunch(power: false, bursts: [(0, 47)])
        #expect(calm.terminations(of: calmApp).isEmpty)
        #expect(journal.entries == ["crunched"])
        // 40 s, a 30 s pause, 40 s: never 48 s in any minute.
        let (paced, pacedApp, _) = crunch(power: false, bursts: [(0, 40), (70, 40)])
        #expect(paced.terminations(of: pacedApp).isEmpty)
    }

    @Test("rules §10: foreground work is not watched by the CPU monitor")
    func foregroundNotMonitored() {
        final class GameApp: ApplicationDelegate {
            func applicationDidBecomeActive(_ application: Application) {
                Runtime.async { Runtime.work(seconds: 100) }   // a level loads; the person waits
            }
        }
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.game")) { GameApp() }
        device.perform(.launch(app))
        device.advance(seconds: 200)
        #expect(device.terminations(of: app).isEmpty)
        #expect(device.state(of: app) == .active)
    }

    @Test("rules §5/§10: a processing task with requiresExternalPower is exempt from the CPU monitor (100 s of work)")
    func externalPowerExempt() {
        let (device, app, journal) = crunch(power: true, bursts: [(0, 100)])
        #expect(device.taskStarts(of: app) == [720])
        #expect(device.terminations(of: app).isEmpty)
        #expect(journal.entries == ["crunched"])
        #expect(device.schedulerEvents(of: app, only: ["task.complete"]).map(\.description) == [
            "821 task.complete \(feedCleanup) true",
        ])
        // The same work without requiresExternalPower (even on the charger) is killed at 48 s.
        let (other, otherApp, _) = crunch(power: false, bursts: [(0, 100)])
        #expect(other.terminations(of: otherApp).map { "\($0.t) \($0.reason)" } == ["768.0 cpuLimit"])
    }
}
