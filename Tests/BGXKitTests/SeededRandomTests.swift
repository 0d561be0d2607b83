import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Picks a jittered retry delay and a request ID, as networking code does.
final class RandomAppDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidEnterBackground(_ application: UIApplication) {
        let jitter = Double.random(in: 0..<60)
        let order = Array(1...8).shuffled()
        var generator = SystemRandomNumberGenerator()
        Self.journal.write("\(jitter) \(order) \(generator.next()) \(UUID().uuidString)")
    }
}

@Suite("BGXKit — randomness in app code comes from the scenario's seed", .serialized)
struct SeededRandomTests {
    func draws(seed: UInt64, launches: Int = 1) -> [String] {
        RandomAppDelegate.journal.entries = []
        let device = SimulatedDevice(seed: seed)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.random")) { RandomAppDelegate() }
        for _ in 0..<launches {
            device.perform(.launch(app))
            device.perform(.home)
            device.perform(.forceQuit(app))
        }
        return RandomAppDelegate.journal.entries
    }

    @Test("Double.random, shuffled(), SystemRandomNumberGenerator and UUID() repeat for the same seed, differ for another seed, and differ between launches")
    func deterministicPerSeed() {
        let first = draws(seed: 7, launches: 2)
        #expect(first.count == 2)
        #expect(first == draws(seed: 7, launches: 2))
        #expect(first != draws(seed: 8, launches: 2))
        #expect(first[0] != first[1], "each launch draws anew")
    }

    @Test("Outside app code randomness is the system's")
    func realOutsideAppCode() {
        #expect(UUID() != UUID())
        #expect((0..<4).map { _ in UInt64.random(in: 0...UInt64.max) } != (0..<4).map { _ in UInt64.random(in: 0...UInt64.max) })
    }
}
