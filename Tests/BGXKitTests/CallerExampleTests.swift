import BGXCore
import BGXKit
import BGXSimulation
import CallerExample
import Foundation
import Testing

@Suite("Examples/Caller — VoIP pushes reported to CallKit, for a simulated week", .serialized)
struct CallerExampleTests {
    /// A fresh settings store per test, as the app's own UserDefaults would be.
    func defaults(doNotDisturb: Bool) -> UserDefaults {
        let suite = "bgx.caller.\(UUID().uuidString)"
        let defaults = UserDefaults(suiteName: suite)!
        defaults.set(doNotDisturb, forKey: CallCenter.doNotDisturbKey)
        return defaults
    }

    func install(_ device: SimulatedDevice, _ defaults: UserDefaults, made: @escaping (CallerAppDelegate) -> Void) -> AppID {
        device.install(AppManifest(bundleIdentifier: "com.example.caller", backgroundModes: [.voip])) {
            let delegate = CallerAppDelegate(defaults: defaults)
            made(delegate)
            return delegate
        }
    }

    func voipPush(_ device: SimulatedDevice, _ app: AppID) {
        device.push(Push(type: .voip, priority: 10), to: app)
    }

    func terminations(_ device: SimulatedDevice, _ app: AppID) -> [String] {
        device.events(of: app).compactMap { event in
            if case let .terminate(reason, _) = event.kind { return "\(Time.format(event.time)) \(reason)" }
            return nil
        }
    }

    @Test("rules §4: two calls a day for a week — every VoIP push reaches the suspended app, is reported to CallKit before the handler returns (at the device's time, read with Date()), and the app is never killed")
    func everyPushIsReportedForAWeek() throws {
        let device = SimulatedDevice()
        var delegates: [CallerAppDelegate] = []
        let app = install(device, defaults(doNotDisturb: false)) { delegates.append($0) }
        device.perform(.launch(app))
        device.advance(seconds: 60)
        device.perform(.home)
        var pushedAt: [Double] = []
        for day in 0..<7 {
            for hour in [10.0, 19.0] {
                device.advance(seconds: Double(day) * 86_400 + hour * 3_600 - device.nowSeconds)
                pushedAt.append(device.nowSeconds)
                voipPush(device, app)
            }
        }
        device.advance(seconds: 3_600)

        let story = device.story(of: app, only: ["push.deliver", "call.report"])
        #expect(story.filter { $0.hasSuffix("push.deliver") }.count == 14, "\(story)")
        #expect(story.filter { $0.hasSuffix("call.report") }.count == 14, "\(story)")
        #expect(terminations(device, app).isEmpty)
        #expect(delegates.count == 1, "one process all week: the suspended app was woken, not relaunched")
        let center = try #require(delegates.last?.callCenter)
        #expect(center.voipToken != nil)
        let reportedAt = center.reportedCalls.values.map { ($0.timeIntervalSince(device.startDate) * 1_000).rounded() / 1_000 }
        #expect(reportedAt.sorted() == pushedAt)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4 [D]: with Do Not Disturb on the app drops VoIP pushes without reporting a call; iOS 13+ kills it each time (0xbaadca11), relaunches it for the next push, and after three failures delivers no more")
    func droppedPushesArePunished() {
        let device = SimulatedDevice()
        var launches = 0
        let app = install(device, defaults(doNotDisturb: true)) { _ in launches += 1 }
        device.perform(.launch(app))
        device.perform(.home)
        for _ in 0..<4 {
            device.advance(seconds: 86_400)
            voipPush(device, app)
        }
        #expect(terminations(device, app) == ["86400 voipCallNotReported", "172800 voipCallNotReported",
                                              "259200 voipCallNotReported"])
        #expect(launches == 3, "the user's launch, then a launch for the second and third pushes")
        #expect(device.story(of: app, only: ["call.report"]).isEmpty)
        #expect(device.traceLines.last { $0.contains("push.drop") }?
            .contains("failed to report an incoming call too many times") == true)
    }
}
