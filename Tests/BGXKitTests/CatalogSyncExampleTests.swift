import BGXCore
import BGXKit
import BGXSimulation
import CatalogSyncExample
import Foundation
import Testing

/// Examples/CatalogSync: an OperationQueue sync whose operation blocks on
/// each page's reply and is cancelled by the BGTask's expiration handler.
@Suite("Examples — CatalogSync, an operation-queue sync cut short by its expiration handler, for a simulated week")
struct CatalogSyncExampleTests {
    final class Launches { var delegates: [CatalogAppDelegate] = [] }

    /// The person opens the app at 08:00 for five minutes every day of a week.
    static func aWeek() -> (SimulatedDevice, AppID, Launches) {
        let device = SimulatedDevice()
        let launches = Launches()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.catalog", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [CatalogAppDelegate.refreshIdentifier])) {
            let delegate = CatalogAppDelegate(server: CatalogServer(pages: 40, latency: 2))
            launches.delegates.append(delegate)
            return delegate
        }
        for day in 0..<7 {
            device.run(until: Time.seconds(Double(day) * 86_400 + 8 * 3_600))
            device.perform(.launch(app))
            device.advance(seconds: 300)
            device.perform(.home)
        }
        device.run(until: Time.seconds(7 * 86_400))
        return (device, app, launches)
    }

    @Test("rules §5: every refresh ends within its 30 s — cut short by the expiration handler while a page is on its way, the task completes with false; a later refresh finishes the catalog; nothing is killed")
    func aSimulatedWeek() throws {
        let (device, app, launches) = Self.aWeek()
        let events = device.events(of: app)
        let starts = events.filter { $0.kindName == "task.start" }
        let completions = events.filter { $0.kindName == "task.complete" }
        #expect(starts.count >= 3)
        #expect(completions.count == starts.count, "every task completed")
        #expect(!events.contains { $0.kindName == "terminate" },
                "\(device.traceLines.filter { $0.contains("terminate") })")

        let syncs = launches.delegates.flatMap { $0.store.syncs }
        #expect(syncs.count == starts.count)
        // A page takes 2 s and the expiration handler comes 25 s into the refresh: 12 pages are
        // saved, the 13th (due at 26 s) is dropped when it arrives, and the task completes then.
        let cut = syncs.filter { !$0.finished }
        #expect(!cut.isEmpty && cut.allSatisfy { $0.pages == 12 }, "\(syncs.map { ($0.pages, $0.finished) })")
        let expiries = events.filter { $0.kindName == "task.expire" }.map(\.time)
        let cutCompletions = completions.filter { device.renderer.jsonLine($0).contains("\"success\": false") }.map(\.time)
        #expect(cutCompletions.count == cut.count)
        #expect(zip(expiries, cutCompletions).allSatisfy { $1 - $0 == Time.seconds(1) }, "completed when the page in flight came")
        #expect(syncs.contains { $0.finished }, "a later refresh finished the catalog")
        // Each sync ended within the 30 s of its task (the device's clock, where its completion block ran).
        for (start, sync) in zip(starts, syncs) {
            let startDate = device.startDate.addingTimeInterval(Time.toSeconds(start.time))
            #expect(sync.at.timeIntervalSince(startDate) <= 31, "\(sync)")
        }
    }

    @Test("Registered using: nil, as on iOS: every launch handler runs on the background queue and every task completes (before, in Swift 6 mode, the example registered using: .main: its handler was main-actor code)")
    func handlerOnTheBackgroundQueue() {
        let (device, app, _) = Self.aWeek()
        let lines = device.traceLines.filter { $0.contains("\"app\": \"com.example.catalog\"") }
        let handlers = lines.filter { $0.contains("\"name\": \"bgTask\"") }
        #expect(!handlers.isEmpty)
        #expect(handlers.allSatisfy { $0.contains("\"queue\": \"background\"") }, "\(handlers)")
        let completions = device.events(of: app).filter { $0.kindName == "task.complete" }
        #expect(completions.count == handlers.count)
    }

    @Test("The week runs the same, byte for byte")
    func deterministic() {
        let first = Self.aWeek().0.traceLines
        #expect(Self.aWeek().0.traceLines == first)
    }
}
