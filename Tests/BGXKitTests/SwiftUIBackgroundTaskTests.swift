import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// A SwiftUI-lifecycle app whose refresh takes `workSeconds` and stops early when cancelled.
struct RefreshingApp: App {
    nonisolated static let journal = Journal()
    nonisolated static let refresh = "com.example.swiftui.refresh"
    nonisolated(unsafe) static var workSeconds: UInt64 = 2

    /// Submits when the app leaves the screen (submitting in `init` would come before SwiftUI
    /// has registered the action's handler, which iOS punishes).
    init() {
        _ = NotificationCenter.default.addObserver(forName: UIApplication.didEnterBackgroundNotification,
                                                   object: UIApplication.shared, queue: nil) { _ in
            try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.refresh))
        }
    }

    var body: some Scene {
        WindowGroup {
            "the UI, never built"
        }
        .backgroundTask(.appRefresh(Self.refresh)) {
            Self.journal.write("refresh began")
            do {
                try await Task.sleep(nanoseconds: Self.workSeconds * 1_000_000_000)
                Self.journal.write("refresh done")
            } catch {
                Self.journal.write("refresh cancelled")
            }
        }
    }
}

@Suite("BGXKit — SwiftUI's .backgroundTask", .serialized)
struct SwiftUIBackgroundTaskTests {
    static let manifest = AppManifest(bundleIdentifier: "com.example.swiftui", backgroundModes: [.fetch],
                                      permittedTaskIdentifiers: [RefreshingApp.refresh])

    static func completions(_ device: SimulatedDevice, _ app: AppID) -> [String] {
        device.events(of: app).filter { $0.kindName == "task.complete" }
            .map { "\(Time.format($0.time)) \(device.renderer.jsonLine($0).contains("\"success\": true"))" }
    }

    @Test("rules §5: .backgroundTask(.appRefresh(id)) runs for that BGAppRefreshTask, and the task is completed when the action returns")
    func appRefreshCompletesWhenTheActionReturns() {
        RefreshingApp.journal.entries = []
        RefreshingApp.workSeconds = 2
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { RefreshingApp() }
        device.perform(.launch(app))
        device.perform(.home)          // the app submits the request
        #expect(device.simulateLaunch(app, identifier: RefreshingApp.refresh))
        device.advance(seconds: 60)
        #expect(RefreshingApp.journal.entries == ["refresh began", "refresh done"])
        #expect(Self.completions(device, app) == ["2 true"])
        #expect(!device.traceLines.contains { $0.contains("\"terminate\"") })
    }

    @Test("rules §5: when the task expires, the action's Swift task is cancelled; the action stops at its next check and the task completes with false — nothing is killed")
    func expirationCancelsTheAction() {
        RefreshingApp.journal.entries = []
        RefreshingApp.workSeconds = 120
        defer { RefreshingApp.workSeconds = 2 }
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { RefreshingApp() }
        device.perform(.launch(app))
        device.perform(.home)          // the app submits the request
        #expect(device.simulateLaunch(app, identifier: RefreshingApp.refresh))
        device.advance(seconds: 5)
        #expect(device.simulateExpiration(app, identifier: RefreshingApp.refresh))
        device.advance(seconds: 60)
        #expect(RefreshingApp.journal.entries == ["refresh began", "refresh cancelled"])
        #expect(Self.completions(device, app) == ["5 false"])
        #expect(!device.traceLines.contains { $0.contains("\"terminate\"") })
    }
}
