import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import MessengerExample
import Testing

@Suite("Examples/Messenger — a static singleton that registers in init, across a kill and a relaunch", .serialized)
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
