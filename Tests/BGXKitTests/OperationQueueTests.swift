import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Refreshes with an OperationQueue, as Apple's ColorFeed sample does: a
/// download operation, a parse that depends on it, and a completion block
/// that completes the task.
final class OperationRefreshDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static let identifier = "com.example.operations.refresh"
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.identifier, using: nil) { task in
            let start = Date()
            let download = BlockOperation {
                Thread.sleep(forTimeInterval: 4)  // busy: the download takes 4 s
                Self.journal.write("download +\(since(start))")
            }
            let parse = BlockOperation { Self.journal.write("parse +\(since(start))") }
            parse.addDependency(download)
            let never = BlockOperation { Self.journal.write("cancelled operation ran") }
            never.addDependency(parse)
            parse.completionBlock = {
                Self.journal.write("completion +\(since(start))")
                task.setTaskCompleted(success: !parse.isCancelled)
            }
            task.expirationHandler = { self.queue.cancelAllOperations() }
            // While the download's thread sleeps, the main queue's operation runs (at +0).
            self.queue.addOperations([parse, download, never], waitUntilFinished: false)
            never.cancel()
            OperationQueue.main.addOperation { Self.journal.write("main operation +\(since(start))") }
        }
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.identifier))
    }
}

@Suite("BGXKit — OperationQueue in app code runs in virtual time", .serialized)
struct OperationQueueTests {
    @Test("An OperationQueue's dependencies run in order, a cancelled operation never runs, and the completion block calls setTaskCompleted 4 virtual seconds after the launch")
    func completionBlockCompletesTaskInVirtualTime() {
        OperationRefreshDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.operations", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [OperationRefreshDelegate.identifier])) {
            OperationRefreshDelegate()
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 30)
        #expect(device.simulateLaunch(app, identifier: OperationRefreshDelegate.identifier))
        device.advance(seconds: 60)
        #expect(OperationRefreshDelegate.journal.entries
                == ["main operation +0", "download +4", "parse +4", "completion +4"])
        let story = device.story(of: app, only: ["task.start", "task.complete"])
        #expect(story == ["30 task.start", "34 task.complete"], "\(story)")
    }
}
