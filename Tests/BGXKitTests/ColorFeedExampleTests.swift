import BGXCore
import BGXKit
import BGXSimulation
import ColorFeedExample
import Foundation
import Testing

/// Examples/ColorFeed: iOS code whose import block is the only bgx-specific line.
@Suite("Examples — ColorFeed, as written for iOS, for a simulated week")
struct ColorFeedExampleTests {
    final class Launches { var delegates: [ColorFeedExample.AppDelegate] = [] }

    @Test("rules §5: the refresh runs in virtual time — Date() in its handler is the device's clock, 15 min or more after each submit, and every colour is notified")
    func aSimulatedWeek() throws {
        let start = Date(timeIntervalSince1970: 1_767_571_200)  // Monday 2026-01-05 00:00 UTC
        let device = SimulatedDevice(startDate: start)
        let launches = Launches()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.colorfeed", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [ColorFeedExample.AppDelegate.refreshIdentifier])) {
            let delegate = ColorFeedExample.AppDelegate()
            launches.delegates.append(delegate)
            return delegate
        }
        for day in 0..<7 {  // the person opens the app at 08:00 for five minutes, every day
            device.run(until: Time.seconds(Double(day) * 86_400 + 8 * 3_600))
            device.perform(.launch(app))
            device.advance(seconds: 300)
            device.perform(.home)
        }
        device.run(until: Time.seconds(7 * 86_400))

        let starts = device.events(of: app).filter { $0.kindName == "task.start" }.map { Time.toSeconds($0.time) }
        let delegate = try #require(launches.delegates.last)
        #expect(!starts.isEmpty)
        #expect(launches.delegates.map(\.refreshes).reduce(0, +) == starts.count)
        // The feed's dates are the device's clock when each refresh ran.
        let last = try #require(delegate.feed.last)
        #expect(last.date == start.addingTimeInterval(try #require(starts.last)))
        #expect(delegate.feed.allSatisfy { last.date.timeIntervalSince($0.date) <= 86_400 })
        for (earlier, later) in zip(starts, starts.dropFirst()) { #expect(later - earlier >= 15 * 60) }
        let notified = device.events(of: app).filter { $0.kindName == "notification.deliver" }.count
        #expect(notified == starts.count)
    }
}
