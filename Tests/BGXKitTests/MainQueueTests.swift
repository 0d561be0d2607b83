import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Saves in the background through the main queue, as iOS code does.
final class MainQueueAppDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    let asksForTime: Bool
    var task: UIBackgroundTaskIdentifier = .invalid
    init(asksForTime: Bool) { self.asksForTime = asksForTime }

    func applicationDidEnterBackground(_ application: UIApplication) {
        let entered = Date()
        if asksForTime { task = application.beginBackgroundTask(expirationHandler: nil) }
        DispatchQueue.main.async { Self.journal.write("async +\(Date().timeIntervalSince(entered))") }
        DispatchQueue.main.asyncAfter(deadline: .now() + 10) {
            Self.journal.write("asyncAfter +\(Date().timeIntervalSince(entered)) \(UIApplication.shared.applicationState)")
            if self.task != .invalid { application.endBackgroundTask(self.task) }
        }
        Self.journal.write("didEnterBackground returns")
    }
}

@Suite("BGXKit — DispatchQueue.main in app code runs in virtual time", .serialized)
struct MainQueueTests {
    func run(asksForTime: Bool, _ then: (SimulatedDevice, AppID) -> Void) -> [String] {
        MainQueueAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.mainqueue")) {
            MainQueueAppDelegate(asksForTime: asksForTime)
        }
        device.perform(.launch(app))
        device.perform(.home)
        then(device, app)
        return MainQueueAppDelegate.journal.entries
    }

    @Test("rules §2: asyncAfter(deadline: .now() + 10) runs exactly 10 virtual seconds later while a background task keeps the app running; async runs after the current callback, at the same instant")
    func asyncAfterFiresTenVirtualSecondsLater() {
        var story: [String] = []
        let journal = run(asksForTime: true) { device, app in
            device.advance(seconds: 60)
            story = device.story(of: app, only: ["bgtask.begin", "bgtask.end"])
        }
        #expect(journal == ["didEnterBackground returns", "async +0.0", "asyncAfter +10.0 background"])
        #expect(story == ["0 bgtask.begin", "10 bgtask.end"])
    }

    @Test("rules §1: a suspended app's main queue does not run; a block due while it is suspended waits until the app runs again (one queued as it went to the background runs first: the app is not idle until it has)")
    func heldWhileSuspended() {
        let journal = run(asksForTime: false) { device, app in
            device.advance(seconds: 100)
            #expect(MainQueueAppDelegate.journal.entries == ["didEnterBackground returns", "async +0.0"])
            device.perform(.launch(app))
            device.advance(seconds: 1)
        }
        #expect(journal == ["didEnterBackground returns", "async +0.0", "asyncAfter +100.0 background"])
    }

    @Test("rules §1: a terminated app's pending main-queue blocks are dropped with the process")
    func droppedWhenTerminated() {
        let journal = run(asksForTime: true) { device, app in
            device.advance(seconds: 5)
            device.perform(.forceQuit(app))
            device.perform(.launch(app))
            device.advance(seconds: 60)
        }
        #expect(!journal.contains { $0.hasPrefix("asyncAfter") }, "\(journal)")
    }

    @Test("OperationQueue.main and a DispatchWorkItem on the main queue run in virtual time too; a wall-clock deadline is refused, with the reason in the trace")
    func operationQueueMainAndWorkItems() {
        final class OtherFormsApp: UIApplicationDelegate {
            nonisolated static let journal = Journal()
            func applicationDidEnterBackground(_ application: UIApplication) {
                let task = application.beginBackgroundTask(expirationHandler: nil)
                let entered = Date()
                OperationQueue.main.addOperation { Self.journal.write("operation +\(Date().timeIntervalSince(entered))") }
                let item = DispatchWorkItem {
                    Self.journal.write("work item +\(Date().timeIntervalSince(entered))")
                    application.endBackgroundTask(task)
                }
                DispatchQueue.main.asyncAfter(deadline: .now() + 5, execute: item)
                DispatchQueue.main.asyncAfter(wallDeadline: .now() + 1) { Self.journal.write("wall deadline") }
            }
        }
        OtherFormsApp.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.forms")) { OtherFormsApp() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(OtherFormsApp.journal.entries == ["operation +0.0", "work item +5.0"])
        let logs = device.events(of: app).filter { $0.kindName == "log" }.map { device.renderer.jsonLine($0) }
        #expect(logs.contains { $0.contains("not yet supported: DispatchQueue.asyncAfter(wallDeadline:)") }, "\(logs)")
    }
}
