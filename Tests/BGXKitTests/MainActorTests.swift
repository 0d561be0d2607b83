import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// UIKit calls a delegate on the main thread, and iOS code says so:
/// `MainActor.assumeIsolated` to reach main-actor state from a callback,
/// `dispatchPrecondition(condition: .onQueue(.main))` to check.
final class MainActorDelegate: UIResponder, UIApplicationDelegate {
    nonisolated static let journal = Journal()
    @MainActor static var badge = 0

    func applicationDidBecomeActive(_ application: UIApplication) {
        dispatchPrecondition(condition: .onQueue(.main))
        let badge = MainActor.assumeIsolated {
            Self.badge += 1
            return Self.badge
        }
        Self.journal.write("didBecomeActive: badge \(badge)")
        DispatchQueue.global(qos: .utility).async {
            dispatchPrecondition(condition: .notOnQueue(.main))
            Self.journal.write("global queue: not on main")
            DispatchQueue.main.async {
                MainActor.assumeIsolated { Self.badge += 1 }
                Self.journal.write("main queue again: badge \(MainActor.assumeIsolated { Self.badge })")
            }
        }
    }
}

/// Calls `MainActor.assumeIsolated` off the main thread, a bug iOS stops with a trap.
final class OffMainDelegate: UIResponder, UIApplicationDelegate {
    @MainActor static var badge = 0
    func applicationDidBecomeActive(_ application: UIApplication) {
        DispatchQueue.global().async { MainActor.assumeIsolated { Self.badge += 1 } }
    }
}

@Suite("BGXKit — a delegate callback runs on the main queue, as MainActor and dispatchPrecondition see it", .serialized)
struct MainActorTests {
    @Test("In a delegate callback (didBecomeActive) and in main-queue work MainActor.assumeIsolated and dispatchPrecondition(.onQueue(.main)) pass; on a global queue .notOnQueue(.main) does")
    func callbacksAreOnTheMainQueue() {
        MainActorDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.mainactor")) { MainActorDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        #expect(MainActorDelegate.journal.entries == [
            "didBecomeActive: badge 1", "global queue: not on main", "main queue again: badge 2",
        ])
    }

    @Test("MainActor.assumeIsolated on a global queue in app code traps, as on iOS: that app crashes, the test goes on")
    func assumeIsolatedOffMainTraps() throws {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.offmain")) { OffMainDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        let crash = try #require(device.traceLines.first { $0.contains("\"terminate\"") })
        #expect(crash.contains("\"crash\"") && crash.contains("Block was expected to execute on queue"), "\(crash)")
        #expect(device.state(of: app) == .notRunning)
    }
}
