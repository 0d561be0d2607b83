import BGXApp
import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// A podcast app written as on iOS: a background URLSession, a delegate, and
/// `handleEventsForBackgroundURLSession` storing the completion handler until
/// `urlSessionDidFinishEvents`.
final class PodcastApp: ApplicationDelegate, URLSessionDelegate {
    static let sessionID = "com.example.podcasts.bg"
    let journal: Journal
    /// Downloads of these sizes start when the app becomes active (once per process).
    var downloads: [Int64]
    /// Recreates the session when the system hands over its events.
    let recreatesSession: Bool
    /// Recreates the session already in `didFinishLaunching`.
    let createsSessionAtLaunch: Bool
    let configure: (URLSessionConfiguration) -> Void
    var session: URLSession?
    var eventsCompletion: (() -> Void)?

    init(journal: Journal, downloads: [Int64] = [], recreatesSession: Bool = true,
         createsSessionAtLaunch: Bool = false, configure: @escaping (URLSessionConfiguration) -> Void = { _ in }) {
        self.journal = journal
        self.downloads = downloads
        self.recreatesSession = recreatesSession
        self.createsSessionAtLaunch = createsSessionAtLaunch
        self.configure = configure
    }

    func makeSession() {
        guard session == nil else { return }
        let config = URLSessionConfiguration.background(withIdentifier: Self.sessionID)
        configure(config)
        session = URLSession(configuration: config, delegate: self)
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        journal.write("launched \(options.map { "\($0.cause)" } ?? "by the user")")
        if createsSessionAtLaunch { makeSession() }
        return true
    }

    func applicationDidBecomeActive(_ application: Application) {
        guard !downloads.isEmpty else { return }
        makeSession()
        for bytes in downloads {
            let task = session!.downloadTask(with: URL(string: "https://example.com/episode")!)
            task.countOfBytesClientExpectsToReceive = bytes
            task.resume()
        }
        downloads = []
    }

    func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        journal.write("handleEvents \(identifier)")
        eventsCompletion = completionHandler
        if recreatesSession { makeSession() }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        journal.write("didFinishDownloading \(downloadTask.taskIdentifier)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let code = (error as? URLSessionTaskError).map { " \($0.code)" } ?? ""
        journal.write("didComplete \(task.taskIdentifier)\(code)")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        journal.write("didFinishEvents")
        eventsCompletion?()
        eventsCompletion = nil
    }
}

let megabyte: Int64 = 1024 * 1024

/// A device with the podcast app installed; the person opens it at 0 s.
func podcastDevice(profile: PolicyProfile = .modern, device state: DeviceState = DeviceState(),
                   _ make: @escaping () -> PodcastApp) -> (SimulatedDevice, AppID) {
    let device = SimulatedDevice(profile: profile, device: state)
    let app = device.install(AppManifest(bundleIdentifier: "com.example.podcasts"), delegate: make)
    device.perform(.launch(app))
    return (device, app)
}

extension SimulatedDevice {
    /// `"50 transfer.complete 1"`-style lines of an app's transfer events.
    func transferStory(of app: AppID) -> [String] {
        let renderer = self.renderer
        return events(of: app).filter { $0.kindName.hasPrefix("transfer.") }.map { event in
            let fields = renderer.fields(of: event)
            let task = fields.first { $0.0 == "task" }.map { field -> String in
                if case let .number(n) = field.1 { return " \(Int(n))" }
                return ""
            } ?? ""
            return "\(Time.format(event.time)) \(event.kindName)\(task)"
        }
    }

    func transferReasons(of app: AppID, kind: String) -> [String] {
        let renderer = self.renderer
        return events(of: app).filter { $0.kindName == kind }.compactMap { event in
            renderer.fields(of: event).first { $0.0 == "reason" }.flatMap {
                if case let .string(s) = $0.1 { return s }
                return nil
            }
        }
    }
}

@Suite("Background transfers (rules §8)")
struct BackgroundTransferTests {
    @Test("rules §8: a transfer moves at the device's bandwidth and completes at the exact moment (10 MB at 2 MB/s: 5 s)")
    func completesAtBandwidth() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [10 * megabyte]) }
        device.advance(seconds: 60)
        #expect(device.transferStory(of: app) == ["0 transfer.create 1", "0 transfer.start 1", "5 transfer.complete 1"])
        // The app is in front holding the session: the result goes straight to its delegate.
        #expect(journal.entries == ["launched by the user", "didFinishDownloading 1", "didComplete 1"])
    }

    @Test("rules §8: concurrent transfers share the bandwidth equally; when one finishes the other's completion is recomputed")
    func bandwidthIsShared() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [10 * megabyte, 2 * megabyte]) }
        device.advance(seconds: 60)
        // 1 MB/s each: the 2 MB one at 2 s; then 8 MB left at 2 MB/s: 4 s more.
        #expect(device.transferStory(of: app).filter { $0.contains("complete") }
                == ["2 transfer.complete 2", "6 transfer.complete 1"])
    }

    @Test("rules §8: a change of transfer speed reschedules the completion — no polling, exact in virtual time")
    func speedChangeReschedules() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [10 * megabyte]) }
        device.advance(seconds: 1)
        device.change(.bandwidth(megabyte))
        device.advance(seconds: 60)
        // 2 MB in the first second, then 8 MB at 1 MB/s.
        #expect(device.transferStory(of: app).last == "9 transfer.complete 1")
        // The daemon keeps at most one event of its own in the queue.
        #expect(device.engine.queuedEventCount <= 1)
    }

    @Test("rules §8 property: under random speed changes a transfer completes at the exact moment an ideal integral says — later by at most the documented rounding (under one byte per settlement)")
    func completionMatchesOracle() {
        var random = SeededRandom(seed: 8)
        for _ in 0..<40 {
            let bytes = Int64.random(in: 1...(50 * megabyte), using: &random)
            var speeds: [(at: Nanoseconds, rate: Int64)] = [(0, Int64.random(in: 262_144...4_194_304, using: &random))]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                speeds.append((Nanoseconds.random(in: 1...Time.seconds(150), using: &random),
                               Int64.random(in: 262_144...4_194_304, using: &random)))
            }
            speeds.sort { $0.at < $1.at }
            var state = DeviceState()
            state.bandwidth = speeds[0].rate
            let device = SimulatedDevice(device: state)
            let app = device.install(AppManifest(bundleIdentifier: "com.example.p"), delegate: { PodcastApp(journal: Journal()) })
            device.perform(.launch(app))
            device.withEngine {
                _ = $0.createBackgroundSession(for: app, BackgroundSessionConfiguration(identifier: "s"))
                _ = $0.startTransfer(for: app, session: "s", TransferTaskSpec(bytes: bytes))
            }
            for change in speeds.dropFirst() { device.schedule(.device(.bandwidth(change.rate)), at: change.at) }
            device.advance(seconds: 1000)
            guard let done = device.events(of: app).first(where: { $0.kindName == "transfer.complete" })?.time else {
                Issue.record("\(bytes) bytes never completed")
                continue
            }
            // The ideal: the first nanosecond at which ∫ rate dt ≥ bytes (in byte·ns, exact integers).
            var need = bytes * Time.nanosecondsPerSecond
            var ideal: Nanoseconds = 0
            for (i, speed) in speeds.enumerated() {
                let end = i + 1 < speeds.count ? speeds[i + 1].at : Nanoseconds.max
                let span = end - speed.at
                if end == .max || speed.rate * span >= need {
                    ideal = speed.at + (need + speed.rate - 1) / speed.rate
                    break
                }
                need -= speed.rate * span
            }
            #expect(done >= ideal, "\(bytes) bytes: done at \(done), ideal \(ideal)")
            let settlements = Int64(speeds.count)
            let slowest = speeds.map(\.rate).min()!
            #expect(done - ideal <= settlements * (Time.nanosecondsPerSecond / slowest + 1),
                    "\(bytes) bytes: done at \(done), ideal \(ideal)")
        }
    }

    @Test("rules §8: the transfer goes on while the app is suspended; the app is resumed (after the rate limiter's 60 s) with handleEventsForBackgroundURLSession, the results and urlSessionDidFinishEvents, then suspended")
    func suspendedAppIsResumed() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [100 * megabyte]) }
        device.advance(seconds: 10)
        device.perform(.home)
        #expect(device.state(of: app) == .suspended)
        device.advance(seconds: 39.5)
        #expect(journal.entries == ["launched by the user"])
        device.advance(seconds: 200)
        #expect(device.transferStory(of: app).contains("50 transfer.complete 1"))
        #expect(journal.entries == ["launched by the user", "handleEvents com.example.podcasts.bg",
                                    "didFinishDownloading 1", "didComplete 1", "didFinishEvents"])
        #expect(Array(device.story(of: app, only: ["callback", "state"]).suffix(5)) == [
            "110 state suspended→background (resumed)", "110 callback handleEventsForBackgroundURLSession",
            "110 callback urlSessionTaskDidComplete", "110 callback urlSessionDidFinishEvents",
            "110 state background→suspended (no assertions)",
        ])
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §8/§11: after a system kill the download goes on and the app is relaunched into the background (cause transfer); recreating the session delivers the results")
    func relaunchedAfterSystemKill() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [20 * megabyte]) }
        device.perform(.home)
        device.withEngine { $0.terminate(app, .memoryPressure, detail: "jetsam (test)") }
        device.advance(seconds: 200)
        #expect(!device.transferStory(of: app).contains { $0.contains("cancel") })
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user", "70 launch transfer"])
        #expect(journal.entries == ["launched by the user", "launched transfer", "handleEvents com.example.podcasts.bg",
                                    "didFinishDownloading 1", "didComplete 1", "didFinishEvents"])
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §8: an app that never recreates the session gets none of its results; with the completion handler not called it is suspended after ~30 s with UIKit's warning, and the results wait for the session")
    func sessionNotRecreated() {
        let journal = Journal()
        var first = true
        let (device, app) = podcastDevice {
            defer { first = false }
            return PodcastApp(journal: journal, downloads: first ? [20 * megabyte] : [], recreatesSession: !first ? false : true)
        }
        device.perform(.home)
        device.withEngine { $0.terminate(app, .memoryPressure, detail: "jetsam (test)") }
        device.advance(seconds: 99)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 1)
        #expect(device.state(of: app) == .suspended)
        #expect(!journal.entries.contains { $0.hasPrefix("didComplete") })
        #expect(device.story(of: app, only: ["log"]).last?.contains("completion handler was never called") == true)
        #expect(device.transferReasons(of: app, kind: "transfer.hold").last?
            .contains("did not recreate background session 'com.example.podcasts.bg'") == true)
        // Creating the session later (here: the person opens the app, which makes it) delivers them.
        device.withEngine { _ = $0.createBackgroundSession(for: app, BackgroundSessionConfiguration(identifier: PodcastApp.sessionID)) }
        device.perform(.launch(app))
        device.advance(seconds: 1)
        #expect(device.story(of: app, only: ["callback"]).last == "100 callback urlSessionTaskDidComplete")
    }

    @Test("rules §8: a user force-quit cancels the session's pending transfers and no relaunch happens; the cancellations (-999) arrive on the next launch once the session is recreated")
    func forceQuitCancels() {
        let journal = Journal()
        let (device, app) = podcastDevice {
            PodcastApp(journal: journal, downloads: journal.entries.isEmpty ? [20 * megabyte] : [],
                       createsSessionAtLaunch: true)
        }
        device.advance(seconds: 2)
        device.perform(.home)
        device.perform(.forceQuit(app))
        device.advance(seconds: 3600)
        #expect(device.transferStory(of: app) == ["0 transfer.create 1", "0 transfer.start 1", "2 transfer.cancel"])
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        device.perform(.launch(app))
        #expect(journal.entries == ["launched by the user", "launched by the user", "didComplete 1 -999"])
    }

    @Test("rules §8 [A][O]: the relaunch rate limiter doubles the delay (60 s, 120 s, 240 s …) and starts over when the app comes to the front")
    func rateLimiterDoubles() throws {
        let run = try ScenarioRun(try ScenarioParser(file: "limiter.yaml").parse("""
        duration: 2h
        device: {network: wifi, charging: true, bandwidth: 2MB/s}
        apps:
          - bundle: com.example.sync
            on:
              didEnterBackground:
                - download: {session: s, bytes: 2MB}
              backgroundTransfer s:
                - download: {session: s, bytes: 2MB}
                - complete: true
        timeline:
          - {at: 0s, user: launch com.example.sync}
          - {at: 10s, user: home}
          - {at: 30m, user: launch com.example.sync}
          - {at: 30m10s, user: home}
        """))
        run.run(until: Time.seconds(1900))
        let wakes = run.device.trace.filter {
            if case .callback(.handleEventsForBackgroundURLSession) = $0.kind { return true }
            return false
        }.map { Time.toSeconds($0.time) }
        // Downloads finish 1 s after each wake: 11+60, 72+120, 193+240, 434+480, 915+960 → dropped
        // by the visit in front at 30 m; after it: 1811+60.
        #expect(wakes == [71, 192, 433, 914, 1871])
    }

    @Test("rules §8: discretionary transfers and transfers started from the background wait for Wi-Fi and power, with the reason traced")
    func discretionaryWaits() {
        let journal = Journal()
        var state = DeviceState()
        state.network = .cellular
        state.charging = false
        let (device, app) = podcastDevice(device: state) {
            PodcastApp(journal: journal, downloads: [megabyte]) { $0.isDiscretionary = true }
        }
        device.advance(seconds: 600)
        #expect(device.transferReasons(of: app, kind: "transfer.defer")
                == ["a discretionary transfer (isDiscretionary) waits for Wi-Fi"])
        device.change(.network(.wifi))
        #expect(device.transferReasons(of: app, kind: "transfer.defer").last
                == "a discretionary transfer (isDiscretionary) waits for external power")
        device.change(.charging(true))
        device.advance(seconds: 1)
        #expect(device.transferStory(of: app).suffix(2) == ["600 transfer.start 1", "600.5 transfer.complete 1"])
    }

    @Test("rules §8: earliestBeginDate holds a transfer back until its date")
    func earliestBeginDate() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal) }
        device.withEngine {
            _ = $0.createBackgroundSession(for: app, BackgroundSessionConfiguration(identifier: "later"))
            _ = $0.startTransfer(for: app, session: "later", TransferTaskSpec(bytes: megabyte, earliestBegin: Time.minutes(15)))
        }
        device.advance(seconds: 3600)
        #expect(device.transferStory(of: app) == ["0 transfer.create 1", "0 transfer.defer 1", "900 transfer.start 1",
                                                  "900.5 transfer.complete 1"])
    }

    @Test("rules §8: without connectivity for timeoutIntervalForRequest the request is retried, keeping its bytes; timeoutIntervalForResource fails the task with NSURLErrorTimedOut (-1001)")
    func timeouts() {
        let journal = Journal()
        let (device, app) = podcastDevice {
            PodcastApp(journal: journal, downloads: [10 * megabyte]) { $0.timeoutIntervalForResource = 600 }
        }
        device.advance(seconds: 1)
        device.change(.network(.none))
        device.advance(seconds: 100)
        #expect(device.transferStory(of: app).contains("61 transfer.retry 1"))
        device.change(.network(.wifi))
        device.advance(seconds: 1)
        #expect(device.transferStory(of: app).contains { $0 == "101 transfer.start 1" })
        device.change(.network(.none))
        device.advance(seconds: 1000)
        #expect(device.transferStory(of: app).last == "600 transfer.fail 1")
        #expect(journal.entries.last == "didComplete 1 -1001")
    }

    @Test("rules §8: results held because the app did not recreate its session wait for it — an unrelated device change (battery) wakes nobody")
    func notRecreatedResultsIgnoreDeviceChanges() {
        let journal = Journal()
        var first = true
        let (device, app) = podcastDevice {
            defer { first = false }
            return PodcastApp(journal: journal, downloads: first ? [20 * megabyte] : [], recreatesSession: first)
        }
        device.perform(.home)
        device.withEngine { $0.terminate(app, .memoryPressure, detail: "jetsam (test)") }
        device.advance(seconds: 600)
        #expect(journal.entries.filter { $0.hasPrefix("handleEvents") }.count == 1)
        device.change(.battery(50))
        device.change(.charging(true))
        device.advance(seconds: 3600)
        #expect(journal.entries.filter { $0.hasPrefix("handleEvents") }.count == 1)
        #expect(device.transferReasons(of: app, kind: "transfer.hold").last?
            .contains("did not recreate background session") == true)
    }

    @Test("rules §8: a second session's wake while the app handles the first one's events waits, with the reason traced")
    func secondSessionWaitsWithReason() throws {
        var scenario = try ScenarioParser(file: "two.yaml").parse("""
        duration: 1h
        device: {network: wifi, bandwidth: 2MB/s}
        apps:
          - bundle: com.example.two
            on:
              didBecomeActive:
                - download: {session: a, bytes: 2MB}
                - download: {session: b, bytes: 2MB}
              backgroundTransfer a:
                - wait: 10s
                - complete: true
              backgroundTransfer b:
                - complete: true
        timeline:
          - {at: 0s, user: launch com.example.two}
          - {at: 1s, user: home}
        """)
        // A short rate-limiter delay, so that session b's wake comes while the app handles a's events.
        scenario.profile.transfers.relaunchDelay = Time.seconds(1)
        let run = try ScenarioRun(scenario)
        run.run(until: Time.seconds(600))
        let app = try #require(run.device.app("com.example.two"))
        #expect(run.device.transferReasons(of: app, kind: "transfer.hold").contains(
            "the app is handling background session 'a''s events: looked at again in 30s"))
        let wakes = run.device.story(of: app, only: ["callback"]).filter { $0.contains("handleEvents") }
        #expect(wakes == ["3 callback handleEventsForBackgroundURLSession", "34 callback handleEventsForBackgroundURLSession"])
    }

    @Test("rules §4/§8: one 'backgroundTransfer' handler may serve a Newsstand download; its 'complete: true' has nothing to complete there")
    func newsstandHandlerWithComplete() throws {
        let run = try ScenarioRun(try ScenarioParser(file: "newsstand.yaml").parse("""
        duration: 1h
        device: {network: wifi, bandwidth: 2MB/s}
        apps:
          - bundle: com.example.magazine
            backgroundModes: [newsstand-content]
            on:
              didBecomeActive:
                - download: {session: issue-42, bytes: 10MB, newsstand: true}
              backgroundTransfer issue-42:
                - work: 1s
                - complete: true
        timeline:
          - {at: 0s, user: launch com.example.magazine}
          - {at: 20s, user: home}
        """))
        run.run(until: Time.seconds(60))
        let app = try #require(run.device.app("com.example.magazine"))
        #expect(run.device.story(of: app, only: ["callback"]).contains("5 callback urlSessionTaskDidComplete"))
        #expect(run.device.story(of: app, only: ["state"]).last == "20 state background→suspended (no assertions)")
    }

    @Test("rules §8: timeouts of .greatestFiniteMagnitude from app code are clamped, not a trap; the download completes")
    func hugeTimeoutsFromAppCode() {
        let journal = Journal()
        let (device, app) = podcastDevice {
            PodcastApp(journal: journal, downloads: [megabyte]) {
                $0.timeoutIntervalForResource = .greatestFiniteMagnitude
                $0.timeoutIntervalForRequest = .infinity
            }
        }
        device.advance(seconds: 10)
        #expect(device.transferStory(of: app).contains("0.5 transfer.complete 1"))
    }

    @Test("rules §8: a transfer whose end lies past the end of representable time (9.2 GB at 1 byte/s, started a minute in) waits without a trap")
    func completionBeyondTheEndOfTime() {
        let journal = Journal()
        var state = DeviceState()
        state.network = .none
        state.bandwidth = 1
        let (device, app) = podcastDevice(device: state) { PodcastApp(journal: journal, downloads: [9_223_372_000]) }
        device.advance(seconds: 60)
        device.change(.network(.wifi))
        device.advance(seconds: 3600)
        #expect(device.transferStory(of: app) == ["0 transfer.create 1", "0 transfer.defer 1", "60 transfer.start 1"])
        #expect(device.withEngine { $0.explainTransfers(app: app) }.contains("never finishes at this rate"))
    }

    @Test("rules §8: with sessionSendsLaunchEvents false a terminated app is not relaunched; the results wait until it runs")
    func noLaunchEvents() {
        let journal = Journal()
        let (device, app) = podcastDevice {
            PodcastApp(journal: journal, downloads: [megabyte]) { $0.sessionSendsLaunchEvents = false }
        }
        device.perform(.home)
        device.withEngine { $0.terminate(app, .memoryPressure, detail: "jetsam (test)") }
        device.advance(seconds: 3600)
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        #expect(device.transferReasons(of: app, kind: "transfer.hold").last?.contains("sessionSendsLaunchEvents is false") == true)
    }

    @Test("rules §8/§11: no relaunch before the first unlock after boot; the unlock lets it happen")
    func firstUnlock() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [100 * megabyte]) }
        device.advance(seconds: 1)
        device.change(.reboot)
        device.advance(seconds: 600)
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        #expect(device.transferReasons(of: app, kind: "transfer.hold").last?
            .contains("the device has not been unlocked since boot") == true)
        device.perform(.unlock)
        device.advance(seconds: 120)
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user", "661 launch transfer"])
    }

    @Test("rules §8: explain --app says what each transfer does, why it waits and since when, and when a running one finishes")
    func explainSaysWhy() {
        let journal = Journal()
        var state = DeviceState()
        state.charging = false
        let (device, app) = podcastDevice(device: state) {
            PodcastApp(journal: journal, downloads: [100 * megabyte]) { $0.isDiscretionary = false }
        }
        device.withEngine {
            _ = $0.createBackgroundSession(for: app, BackgroundSessionConfiguration(identifier: "offline"))
            _ = $0.startTransfer(for: app, session: "offline", TransferTaskSpec(bytes: megabyte, discretionary: true))
        }
        device.advance(seconds: 30)
        let text = device.engine.explainTransfers(app: app)
        #expect(text.contains("task 1 (download, 104857600 bytes): running, 41943040 bytes left at a 1/1 share of "
                              + "2097152 B/s; finishes at 0d 00:00:50 if nothing changes"))
        #expect(text.contains("task 2 (download, 1048576 bytes): waiting: a discretionary transfer (isDiscretionary) "
                              + "waits for external power (since 0d 00:00:00)"))
    }

    @Test("rules §8: the ios6 profile has no background sessions (iOS 7+): creating one is refused with a log")
    func ios6HasNoSessions() {
        let journal = Journal()
        let (device, app) = podcastDevice(profile: .ios6) { PodcastApp(journal: journal, downloads: [megabyte]) }
        device.advance(seconds: 60)
        #expect(device.transferStory(of: app).isEmpty)
        #expect(device.story(of: app, only: ["log"]).first?.contains("Background URLSessions need iOS 7") == true)
    }
}

@Suite("Background transfer vocabulary (rules §8)")
struct BackgroundTransferVocabularyTests {
    func error(_ yaml: String) -> String {
        do {
            _ = try ScenarioParser(file: "t.yaml").parse(yaml)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test("download needs a session and bytes; its keys are checked with a did-you-mean")
    func downloadErrors() {
        #expect(error("""
        apps:
          - bundle: a
            on:
              didBecomeActive:
                - download: {session: s}
        """) == "error: t.yaml:5:21: 'download' needs bytes (a size like 50MB)")
        #expect(error("""
        apps:
          - bundle: a
            on:
              didBecomeActive:
                - download: {session: s, bytes: 5MB, discretionery: true}
        """).contains("unknown key in download 'discretionery'; did you mean 'discretionary'?"))
        #expect(error("""
        apps:
          - bundle: a
            on:
              backgroundTransfer:
                - complete: true
        """).contains("'backgroundTransfer' needs a session identifier"))
        #expect(error("""
        apps:
          - bundle: a
            on:
              backgroundTransfer s:
                - complete: false
        """).contains("'complete: true' calls the handleEventsForBackgroundURLSession completion handler"))
    }

    @Test("bgx check (rules §8): a backgroundTransfer handler for a session the app never transfers on is an identifier mismatch; a Newsstand download needs newsstand-content")
    func checkFindsMismatch() throws {
        let scenario = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - bundle: a
            on:
              didBecomeActive:
                - download: {session: a.bg, bytes: 5MB}
                - download: {session: a.issue, bytes: 5MB, newsstand: true}
              backgroundTransfer a.background:
                - complete: true
        """)
        let findings = ManifestCheck.check(scenario.apps[0].manifest, usage: InfoPlist.usage(of: scenario.apps[0]))
            .map(\.description)
        #expect(findings.contains { $0.hasPrefix("warning: a: the backgroundTransfer handler is for session 'a.background'")
            && $0.contains("(identifier mismatch)") })
        #expect(findings.contains { $0.hasPrefix("error: a: a Newsstand 'download'") && $0.contains("newsstand-content") })
    }

    @Test("timeline network: {transferSpeed} changes the speed transfers share")
    func networkSpeed() throws {
        let s = try ScenarioParser(file: "t.yaml").parse("""
        apps: [{bundle: a}]
        timeline: [{at: 1m, network: {transferSpeed: 500KB/s}}]
        """)
        guard case let .device(changes) = s.timeline[0].event else { Issue.record("not a device change"); return }
        #expect(changes == [.bandwidth(500 * 1024)])
        #expect(error("""
        apps: [{bundle: a}]
        timeline: [{at: 1m, network: {transferSped: 1MB/s}}]
        """).contains("did you mean 'transferSpeed'?"))
    }
}
