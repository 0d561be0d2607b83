import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Swift6Fixtures
import Testing

/// Swift 6 mode and `register(forTaskWithIdentifier:using: nil)`: the handler runs on a background
/// queue, so a closure that is main-actor code fails Swift's isolation check there.
@Suite("BGXKit — a Swift 6 launch handler registered using: nil runs on a background queue")
struct LaunchHandlerIsolationTests {
    @Test("A main-actor closure registered using: nil crashes the app as the task starts (Swift 6's isolation check, as on iOS); the task never completes, and the app launches again")
    func mainActorClosureCrashes() throws {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.mainactorhandler", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [MainActorLaunchHandlerDelegate.refreshIdentifier])) {
            MainActorLaunchHandlerDelegate()
        }
        device.perform(.launch(app))
        device.perform(.home)
        #expect(device.simulateLaunch(app, identifier: MainActorLaunchHandlerDelegate.refreshIdentifier))
        device.advance(seconds: 60)
        let lines = device.traceLines
        let crash = try #require(lines.first { $0.contains("\"terminate\"") && $0.contains("\"crash\"") }, "\(lines)")
        #expect(crash.contains("Block was expected to execute on queue [com.apple.main-thread]"), "\(crash)")
        #expect(crash.contains("MainActorLaunchHandlerDelegate"), "\(crash)")
        #expect(lines.contains { $0.contains("\"bgTask\"") && $0.contains("\"queue\": \"background\"") })
        #expect(!lines.contains { $0.contains("\"task.complete\"") })

        device.perform(.launch(app))
        device.advance(seconds: 1)
        #expect(device.state(of: app) == .active)
    }
}
