import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import PodcastsExample
import Testing

/// Examples/Podcasts: a SwiftUI-lifecycle app (Swift 6 language mode) whose
/// `.backgroundTask(.appRefresh)` queues downloads and whose
/// `.backgroundTask(.urlSession)` waits for their events.
@Suite("Examples — Podcasts, a SwiftUI-lifecycle app with .backgroundTask, for a simulated week")
struct PodcastsExampleTests {
    final class Launches { var libraries: [Library] = [] }

    /// The person opens the app at 20:00 for half an hour every day of a week, and the
    /// phone charges from 23:00 to 07:00 (downloads queued in the background are
    /// discretionary: they wait for power).
    static func aWeek(feedLatency: Double) -> (SimulatedDevice, AppID, Launches) {
        let device = SimulatedDevice()
        let launches = Launches()
        let manifest = AppManifest(bundleIdentifier: "com.example.podcasts", backgroundModes: [.fetch],
                                   permittedTaskIdentifiers: [PodcastsApp.refreshIdentifier])
        let app = device.install(manifest, app: {
            let app = PodcastsApp(library: Library(feedLatency: feedLatency))
            launches.libraries.append(app.library)
            return app
        })
        for day in 0..<7 {
            let midnight = Double(day) * 86_400
            device.run(until: Time.seconds(midnight + 7 * 3_600))
            device.change(.charging(false))
            device.run(until: Time.seconds(midnight + 20 * 3_600))
            device.perform(.launch(app))
            device.advance(seconds: 1_800)
            device.perform(.home)
            device.run(until: Time.seconds(midnight + 23 * 3_600))
            device.change(.charging(true))
        }
        device.run(until: Time.seconds(7 * 86_400))
        return (device, app, launches)
    }

    @Test("rules §5, §8: each refresh's action runs and its task completes when it returns; each download's events run the .urlSession action, which returns once the session has delivered them")
    func aSimulatedWeek() {
        let (device, app, launches) = Self.aWeek(feedLatency: 3)
        let events = device.events(of: app)
        let starts = events.filter { $0.kindName == "task.start" }
        let completions = events.filter { $0.kindName == "task.complete" }
        #expect(starts.count >= 3, "\(starts.count) refreshes")
        #expect(completions.count == starts.count)
        #expect(completions.allSatisfy { device.renderer.jsonLine($0).contains("\"success\": true") })
        for (start, completion) in zip(starts, completions) {
            #expect(completion.time - start.time == Time.seconds(3), "completed when the action returned")
        }
        let log = launches.libraries.flatMap(\.log)
        let queued = log.filter { $0.hasPrefix("queued") }.count
        #expect(queued == starts.count)
        #expect(log.filter { $0.hasPrefix("downloaded") }.count == queued, "\(log)")
        #expect(log.filter { $0 == "session events done" }.count == log.filter { $0 == "session events" }.count)
        #expect(log.contains("session events done"))
        #expect(!events.contains { $0.kindName == "terminate" }, "\(device.traceLines.filter { $0.contains("terminate") })")
    }

    @Test("rules §5: a feed that takes longer than the task's time: the expiration cancels the action, which queues nothing, and the task completes with false — nothing is killed")
    func slowFeed() {
        let (device, app, launches) = Self.aWeek(feedLatency: 120)
        let events = device.events(of: app)
        let completions = events.filter { $0.kindName == "task.complete" }
        #expect(!completions.isEmpty)
        #expect(completions.allSatisfy { device.renderer.jsonLine($0).contains("\"success\": false") })
        let log = launches.libraries.flatMap(\.log)
        #expect(log.filter { $0 == "refresh cancelled" }.count == completions.count)
        #expect(!log.contains { $0.hasPrefix("queued") })
        #expect(!events.contains { $0.kindName == "terminate" })
    }

    @Test("The week runs the same, byte for byte")
    func deterministic() {
        let first = Self.aWeek(feedLatency: 3).0.traceLines
        #expect(Self.aWeek(feedLatency: 3).0.traceLines == first)
    }
}
