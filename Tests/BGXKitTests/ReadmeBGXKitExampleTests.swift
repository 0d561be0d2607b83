import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

// README.md's "From Swift" example, verbatim below its import block.
final class ReadmeAppDelegate: UIResponder, UIApplicationDelegate {
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.feed.refresh", using: nil) { task in
            task.setTaskCompleted(success: true)
        }
        return true
    }
    func applicationDidEnterBackground(_ application: UIApplication) {
        let request = BGAppRefreshTaskRequest(identifier: "com.example.feed.refresh")
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)   // the device's now, not the wall clock's
        try? BGTaskScheduler.shared.submit(request)
    }
}

@Suite("README — the BGXKit example")
struct ReadmeBGXKitExampleTests {
    @Test("README.md shows this file's delegate, and it refreshes on a simulated device no sooner than 15 minutes after going to the background")
    func readmeExampleRuns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let delegate = source.components(separatedBy: "final class ReadmeAppDelegate")[1]
            .components(separatedBy: "\n}\n")[0]
        #expect(readme.contains("final class AppDelegate" + delegate + "\n}\n"))

        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.feed", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: ["com.example.feed.refresh"])) {
            ReadmeAppDelegate()
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 86_400)
        let starts = device.events(of: app).filter { $0.kindName == "task.start" }.map { Time.toSeconds($0.time) }
        #expect(starts.count == 1)
        #expect(starts.allSatisfy { $0 >= 15 * 60 })
    }
}
