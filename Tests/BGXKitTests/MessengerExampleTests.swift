import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import MessengerExample
import Testing

/// One suite, serialized: resetting the module's statics is process-wide, so two devices running
/// the messenger at once would reset each other's.
@Suite("Examples/Messenger — a static singleton that registers in init, and an outbox sent in a background upload, across kills and relaunches", .serialized)
struct MessengerExampleTests {
    func install(_ device: SimulatedDevice) -> AppID {
        device.install(AppManifest(bundleIdentifier: "com.example.messenger", backgroundModes: [.fetch, .remoteNotification],
                                   permittedTaskIdentifiers: [SyncManager.refreshIdentifier])) { MessengerAppDelegate() }
    }

    /// Launch, use, home; memory pressure kills the suspended app; the system relaunches it for its refresh.
    @discardableResult
    func killAndRelaunchForRefresh(_ device: SimulatedDevice, _ app: AppID) -> Bool {
        device.perform(.launch(app))
        device.advance(seconds: 60)
        device.perform(.home)
        device.advance(seconds: 60)
        device.change(.memory(1))   // below any process's limit: jetsam
        device.change(.memory(DeviceState().memory))
        #expect(device.state(of: app) == .notRunning, "jetsam ended the process")
        device.advance(seconds: 3_600)
        let launched = device.simulateLaunch(app, identifier: SyncManager.refreshIdentifier)
        device.advance(seconds: 60)
        return launched
    }

    @Test("rules §5: with the module's statics reset per process, the relaunched process builds SyncManager.shared anew, its init registers again, and the refresh completes 2 virtual seconds after it starts")
    func singletonIsRebuiltAfterRelaunch() throws {
        let device = SimulatedDevice()
        let app = install(device)
        try device.resetStatics(of: "MessengerExample", onEveryLaunchOf: app)
        #expect(killAndRelaunchForRefresh(device, app))
        let story = device.story(of: app, only: ["task.register", "task.start", "task.complete", "terminate"])
        #expect(story.filter { $0.hasSuffix("task.register") }.count == 2, "registered in both processes: \(story)")
        let start = try #require(story.first { $0.hasSuffix("task.start") }).split(separator: " ")[0]
        let complete = try #require(story.first { $0.hasSuffix("task.complete") }).split(separator: " ")[0]
        #expect(Double(complete)! - Double(start)! == 2, "\(story)")
        #expect(!device.traceLines.contains { $0.contains("No launch handler") })
    }

    @Test("Without the reset the singleton survives the kill, as it cannot on iOS: its init does not run again, and the relaunched process dies for want of a launch handler")
    func withoutResetTheSingletonSurvives() {
        let device = SimulatedDevice()
        let app = install(device)
        #expect(!killAndRelaunchForRefresh(device, app))
        #expect(device.traceLines.contains { $0.contains("No launch handler registered") })
    }

    @Test("A silent push wakes the app; the fetch on a global queue finishes a virtual second later and the completion handler reports new data")
    func silentPushFetchesInVirtualTime() throws {
        let device = SimulatedDevice()
        let app = install(device)
        try device.resetStatics(of: "MessengerExample", onEveryLaunchOf: app)
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 600)
        device.push(Push(type: .background, priority: 5), to: app)
        device.advance(seconds: 60)
        let lines = device.traceLines.filter { $0.contains("push") || $0.contains("remoteNotification") }
        #expect(lines.contains { $0.contains("\"t\": 601") && $0.contains("newData") }, "\(lines.joined(separator: "\n"))")
    }
}

/// The messenger's outbox, uploaded in a background URLSession as the app leaves the screen (rules §8).
extension MessengerExampleTests {
    /// A device with the messenger, its outbox in a directory of its own, and every delegate its processes made.
    final class Phone {
        let device = SimulatedDevice()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("messenger-\(UUID().uuidString)")
        var delegates: [MessengerAppDelegate] = []
        var app = AppID(index: 0)

        init() throws {
            let directory = directory
            app = device.install(AppManifest(bundleIdentifier: "com.example.messenger",
                                             backgroundModes: [.fetch, .remoteNotification],
                                             permittedTaskIdentifiers: [SyncManager.refreshIdentifier])) { [unowned self] in
                let delegate = MessengerAppDelegate(outboxDirectory: directory)
                delegates.append(delegate)
                return delegate
            }
            try device.resetStatics(of: "MessengerExample", onEveryLaunchOf: app)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// The person taps Send in the app: app code on its main thread, now.
        func send(_ message: String) {
            let delegate = delegates.last!
            device.process(of: app)!.enqueue(after: 0, on: .main) { delegate.send(message); return true }
            device.advance(seconds: 1)
        }

        /// What the outbox file holds (what any process of the app would find).
        var savedOutbox: [String]? {
            (try? Data(contentsOf: directory.appendingPathComponent("outbox.json")))
                .flatMap { try? JSONDecoder().decode([String].self, from: $0) }
        }

        func story(_ kinds: Set<String>) -> [String] { device.story(of: app, only: kinds) }
    }

    static let uploadKinds: Set<String> = ["launch", "terminate", "transfer.create", "transfer.defer", "transfer.start",
                                     "transfer.complete", "transfer.cancel", "bgtask.begin", "bgtask.end"]

    @Test("rules §8: sent as the app leaves, the outbox goes in an upload begun under a background task; started in the background it waits for power; it finishes after jetsam has ended the app, the system relaunches it with handleEventsForBackgroundURLSession, the recreated session hears the result, the outbox is cleared, then the completion handler is called")
    func uploadFinishesAfterJetsamAndTheRelaunchClearsTheOutbox() throws {
        let phone = try Phone()
        let device = phone.device
        device.perform(.launch(phone.app))
        phone.send("on my way")
        phone.send("10 minutes")
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(phone.story(["bgtask.begin", "bgtask.end", "transfer.create", "transfer.defer"]).map { $0.split(separator: " ")[1] }
                == ["bgtask.begin", "transfer.create", "transfer.defer", "bgtask.end"], "\(phone.story(Self.uploadKinds))")
        #expect(device.state(of: phone.app) == .suspended)

        device.change(.memory(1))   // below any process's limit: jetsam ends the suspended app
        device.change(.memory(DeviceState().memory))
        #expect(device.state(of: phone.app) == .notRunning)
        #expect(phone.savedOutbox == ["on my way", "10 minutes"], "not sent yet")

        device.change(.charging(true))   // the upload may go now
        device.advance(seconds: 600)
        let story = phone.story(Self.uploadKinds)
        #expect(story.filter { $0.hasSuffix(" launch") }.count == 2, "\(story)")
        let relaunch = try #require(device.events(of: phone.app).last { $0.kindName == "launch" })
        #expect(device.renderer.jsonLine(relaunch).contains("transfer"), "relaunched for the session: \(device.renderer.jsonLine(relaunch))")
        #expect(phone.delegates.count == 2)
        #expect(phone.delegates.last?.uploader.outbox.messages == [])
        #expect(phone.savedOutbox == [])
        #expect(phone.delegates.last?.uploader.backgroundEventsCompletionHandler == nil, "called and let go")
        let log = device.traceLines.joined(separator: "\n")
        #expect(!log.contains("completion handler was never called"), "\(log)")
        #expect(!log.contains("not recreated"), "\(log)")
        #expect(device.state(of: phone.app) == .suspended, "suspended once the handler was called: \(log)")
    }

    @Test("rules §8: on the charger the upload goes as soon as the app leaves and finishes while it is suspended; the system resumes the same process with handleEventsForBackgroundURLSession, the outbox is cleared and the completion handler is called")
    func uploadFinishesWhileSuspended() throws {
        let phone = try Phone()
        let device = phone.device
        device.change(.charging(true))
        device.perform(.launch(phone.app))
        phone.send("on my way")
        device.perform(.home)
        device.advance(seconds: 600)
        let story = phone.story(Self.uploadKinds)
        #expect(story.filter { $0.hasSuffix(" launch") }.count == 1, "resumed, not relaunched: \(story)")
        #expect(story.contains { $0.hasSuffix("transfer.complete") }, "\(story)")
        #expect(phone.delegates.count == 1)
        #expect(phone.delegates[0].uploader.outbox.messages == [])
        #expect(phone.savedOutbox == [])
        let log = device.traceLines.joined(separator: "\n")
        #expect(log.contains("handleEventsForBackgroundURLSession"), "\(log)")
        #expect(!log.contains("completion handler was never called"), "\(log)")
        #expect(device.state(of: phone.app) == .suspended, "\(log)")
    }

    @Test("rules §8: a force-quit cancels the waiting upload and no relaunch follows; when the person opens the app again the session made at launch hears the cancellation (-999), the messages stay in the outbox, and they go when the app next leaves")
    func forceQuitCancelsTheUploadAndTheMessagesStay() throws {
        let phone = try Phone()
        let device = phone.device
        device.perform(.launch(phone.app))
        phone.send("on my way")
        device.perform(.home)   // the upload waits for power
        device.advance(seconds: 60)
        device.perform(.forceQuit(phone.app))
        device.change(.charging(true))
        device.advance(seconds: 3_600)
        var story = phone.story(Self.uploadKinds)
        #expect(story.filter { $0.hasSuffix(" launch") }.count == 1, "no relaunch after a force-quit: \(story)")
        #expect(story.contains { $0.hasSuffix("transfer.cancel") } && !story.contains { $0.hasSuffix("transfer.complete") },
                "\(story)")
        #expect(phone.savedOutbox == ["on my way"])

        device.perform(.launch(phone.app))
        device.advance(seconds: 1)
        let cancelled = device.traceLines.filter { $0.contains("urlSession") && $0.contains("-999") }
        #expect(cancelled.count == 1, "the new process's session hears the cancellation: \(device.traceLines.joined(separator: "\n"))")
        #expect(phone.delegates.last?.uploader.outbox.messages == ["on my way"])

        device.perform(.home)   // on the charger now: the upload goes at once
        device.advance(seconds: 600)
        story = phone.story(Self.uploadKinds)
        #expect(story.filter { $0.hasSuffix("transfer.complete") }.count == 1, "\(story)")
        #expect(phone.delegates.last?.uploader.outbox.messages == [])
        #expect(phone.savedOutbox == [])
    }
}
