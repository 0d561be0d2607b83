import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Reads every clock app code might read for "now", in each callback.
final class ClockReadingApp: UIApplicationDelegate {
    struct Reading {
        var date: Date
        var dateIn60: Date
        var nsDate: Date
        var dispatchUptime: UInt64
        var systemUptime: TimeInterval
        var continuous: ContinuousClock.Instant
        var suspending: SuspendingClock.Instant
        var wallSeconds: Int
        var device: Date
        var isVirtual: Bool
    }
    static var readings: [Reading] = []

    private func read(_ application: UIApplication) {
        ClockReadingApp.readings.append(Reading(
            date: Date(), dateIn60: Date(timeIntervalSinceNow: 60), nsDate: NSDate() as Date,
            dispatchUptime: DispatchTime.now().uptimeNanoseconds,
            systemUptime: ProcessInfo.processInfo.systemUptime,
            continuous: ContinuousClock.now, suspending: SuspendingClock.now,
            wallSeconds: time(nil), device: application.connection.now, isVirtual: DeviceClock.isVirtual))
    }

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        read(application)
        return true
    }
    func applicationDidEnterBackground(_ application: UIApplication) { read(application) }
}

@Suite("BGXKit — Date() is the device's now inside app code", .serialized)
struct VirtualClockTests {

    @Test("Date(), Date(timeIntervalSinceNow:), NSDate and time() in a delegate callback read the device's clock, to the nanosecond")
    func dateIsTheDevicesClock() {
        ClockReadingApp.readings = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.clock")) { ClockReadingApp() }
        device.advance(seconds: 3_600)
        device.perform(.launch(app))
        device.advance(seconds: 90.5)
        device.perform(.home)

        let readings = ClockReadingApp.readings
        #expect(readings.count == 2)
        for r in readings {
            #expect(r.isVirtual)
            #expect(r.date == r.device)
            #expect(r.nsDate == r.device)
            #expect(r.dateIn60 == r.device.addingTimeInterval(60))
            #expect(r.wallSeconds == Int(r.device.timeIntervalSince1970.rounded(.down)))
        }
        // 2026-01-05 00:00 UTC is the device's start; the launch is an hour in.
        #expect(readings[0].date == Date(timeIntervalSince1970: 1_767_571_200 + 3_600))
        #expect(readings[1].date.timeIntervalSince(readings[0].date) == 90.5)
    }

    @Test("The monotonic clocks (DispatchTime.now(), systemUptime, ContinuousClock, SuspendingClock) advance with virtual time, from the device's boot")
    func monotonicClocksAreVirtual() {
        ClockReadingApp.readings = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.clock")) { ClockReadingApp() }
        device.perform(.launch(app))
        device.advance(seconds: 7 * 86_400)
        device.perform(.home)

        let readings = ClockReadingApp.readings
        #expect(readings.count == 2)
        let uptime = UInt64(DeviceClock.uptimeAtStart)
        #expect(readings[0].dispatchUptime == uptime)
        #expect(readings[1].dispatchUptime - readings[0].dispatchUptime == 7 * 86_400 * 1_000_000_000)
        #expect(readings[1].systemUptime == 60 + 7 * 86_400)
        #expect(readings[1].continuous - readings[0].continuous == .seconds(7 * 86_400))
        #expect(readings[1].suspending - readings[0].suspending == .seconds(7 * 86_400))
    }

    @Test("Outside app code, and on the test's thread once a callback returns, every clock is the real one")
    func outsideAppCodeTheClockIsReal() {
        ClockReadingApp.readings = []
        let device = SimulatedDevice(startDate: Date(timeIntervalSince1970: 0))
        let app = device.install(AppManifest(bundleIdentifier: "com.example.clock")) { ClockReadingApp() }
        device.perform(.launch(app))
        #expect(ClockReadingApp.readings.first?.date == Date(timeIntervalSince1970: 0))

        #expect(!DeviceClock.isVirtual)
        let real = DeviceClock.realNow
        #expect(abs(Date().timeIntervalSince(real)) < 60)
        #expect(abs(time(nil) - Int(real.timeIntervalSince1970)) < 60)
        #expect(Date().timeIntervalSince1970 > 1_000_000_000, "the real clock, not the device's 1970")
        #expect(DispatchTime.now().uptimeNanoseconds != UInt64(DeviceClock.uptimeAtStart))
    }
}

@Suite("BGXKit — escapes from virtual time are reported")
struct WallClockEscapeTests {
    @Test("An earliestBeginDate computed from the real clock (here 2026-11 against a device in 2026-01) is logged as a wall-clock date; one from Date() is not")
    func wallClockDateIsReported() {
        final class EscapingApp: UIApplicationDelegate {
            func applicationDidEnterBackground(_ application: UIApplication) {
                for (identifier, begin) in [("real", DeviceClock.realNow), ("device", Date())] {
                    let request = BGAppRefreshTaskRequest(identifier: identifier)
                    request.earliestBeginDate = begin.addingTimeInterval(15 * 60)
                    try? BGTaskScheduler.shared.submit(request)
                }
            }
        }
        let device = SimulatedDevice(startDate: Date(timeIntervalSince1970: 1_767_571_200))
        let app = device.install(AppManifest(bundleIdentifier: "com.example.escape", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: ["real", "device"])) { EscapingApp() }
        device.perform(.launch(app))
        device.perform(.home)
        let logs = device.events(of: app).filter { $0.kindName == "log" }.map { device.renderer.jsonLine($0) }
        #expect(logs.filter { $0.contains("computed from the wall clock") }.count == 1, "\(logs)")
        #expect(logs.contains { $0.contains("earliestBeginDate of 'real'") })
    }
}
