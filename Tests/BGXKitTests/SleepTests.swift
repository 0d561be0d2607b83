import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Sleeps on the main thread when sent to the background, as code that waits
/// for a save to flush sometimes does.
final class SleepingAppDelegate: UIApplicationDelegate {
    static var slept: [TimeInterval] = []
    let seconds: TimeInterval
    init(seconds: TimeInterval) { self.seconds = seconds }

    func applicationDidEnterBackground(_ application: UIApplication) {
        let before = Date()
        Thread.sleep(forTimeInterval: seconds)
        usleep(250_000)
        SleepingAppDelegate.slept.append(Date().timeIntervalSince(before))
    }
}

@Suite("BGXKit — sleeping in app code takes virtual time", .serialized)
struct SleepTests {
    @Test("Thread.sleep and usleep in app code return at once in real time, move the app's clock on, and keep the main thread busy that long in virtual time")
    func sleepIsVirtualBusyTime() {
        SleepingAppDelegate.slept = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.sleeper")) { SleepingAppDelegate(seconds: 3) }
        device.perform(.launch(app))
        let realStart = DeviceClock.realNow
        device.perform(.home)
        device.advance(seconds: 60)

        #expect(SleepingAppDelegate.slept == [3.25])
        #expect(DeviceClock.realNow.timeIntervalSince(realStart) < 3, "the sleep must not be a real one")
        // didEnterBackground returns 3.25 s later, and only then is the app suspended.
        #expect(device.story(of: app, only: ["state"]).suffix(2) == ["0 state", "3.25 state"])
    }
}
