import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// App code that does its work later the ways iOS code does: global and
/// custom queues, groups, semaphores and work items.
final class DispatchApp: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static var work: (UIApplication, Date) -> Void = { _, _ in }
    func applicationDidEnterBackground(_ application: UIApplication) {
        Self.work(application, Date())
    }
}

/// Seconds since `start` in the device's time, as app code reads it.
func since(_ start: Date) -> String { String(format: "%g", Date().timeIntervalSince(start)) }

@Suite("BGXKit — dispatch queues beyond main run in virtual time, deterministically", .serialized)
struct DispatchQueueTests {
    /// Launches, goes home (where `work` runs), lets `seconds` pass; what the app wrote, and the device.
    @discardableResult
    func run(for seconds: Double = 120, _ work: @escaping (UIApplication, Date) -> Void,
             then: (SimulatedDevice, AppID) -> Void = { _, _ in }) -> [String] {
        DispatchApp.journal.entries = []
        DispatchApp.work = work
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.dispatch")) { DispatchApp() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: seconds)
        then(device, app)
        return DispatchApp.journal.entries
    }

    @Test("DispatchQueue.global().async and a custom serial queue's async/asyncAfter run at their virtual instants, in submission order, and hop back to main")
    func globalAndCustomQueues() {
        let journal = run { application, start in
            let task = application.beginBackgroundTask(expirationHandler: nil)
            let queue = DispatchQueue(label: "com.example.serial")
            DispatchQueue.global(qos: .utility).async { DispatchApp.journal.write("global +\(since(start))") }
            queue.async { DispatchApp.journal.write("serial 1 +\(since(start))") }
            queue.async { DispatchApp.journal.write("serial 2 +\(since(start))") }
            queue.asyncAfter(deadline: .now() + 7) {
                DispatchApp.journal.write("serial after +\(since(start))")
                DispatchQueue.main.async {
                    DispatchApp.journal.write("main +\(since(start)) \(UIApplication.shared.applicationState)")
                    application.endBackgroundTask(task)
                }
            }
            let result = queue.sync { "sync ran inline" }
            DispatchApp.journal.write(result)
        }
        #expect(journal == ["sync ran inline", "global +0", "serial 1 +0", "serial 2 +0", "serial after +7",
                            "main +7 background"])
    }

    @Test("DispatchGroup: notify runs when the last member finishes (in virtual time); wait(timeout:) returns when the group empties")
    func groups() {
        let journal = run { application, start in
            let task = application.beginBackgroundTask(expirationHandler: nil)
            let group = DispatchGroup()
            let queue = DispatchQueue(label: "com.example.concurrent", attributes: .concurrent)
            queue.async(group: group) { DispatchApp.journal.write("member 1 +\(since(start))") }
            group.enter()
            queue.asyncAfter(deadline: .now() + 12) {
                DispatchApp.journal.write("member 2 +\(since(start))")
                group.leave()
            }
            group.notify(queue: .main) {
                DispatchApp.journal.write("notify +\(since(start))")
                application.endBackgroundTask(task)
            }
            DispatchQueue.global().async {
                let waited = DispatchGroup()
                waited.enter()
                DispatchQueue.global().asyncAfter(deadline: .now() + 4) { waited.leave() }
                let result = waited.wait(timeout: .now() + 30)
                DispatchApp.journal.write("wait \(result == .success ? "success" : "timedOut") +\(since(start))")
            }
        }
        #expect(journal == ["member 1 +0", "wait success +4", "member 2 +12", "notify +12"])
    }

    @Test("DispatchSemaphore.wait(timeout:) waits in virtual time: signalled 7 s later it succeeds at +7; never signalled it times out at its deadline")
    func semaphores() {
        let journal = run { application, start in
            let task = application.beginBackgroundTask(expirationHandler: nil)
            DispatchQueue.global().async {
                let semaphore = DispatchSemaphore(value: 0)
                DispatchQueue.global().asyncAfter(deadline: .now() + 7) { semaphore.signal() }
                let first = semaphore.wait(timeout: .now() + 60)
                DispatchApp.journal.write("signalled: \(first == .success) +\(since(start))")
                let second = DispatchSemaphore(value: 0).wait(timeout: .now() + 3)
                DispatchApp.journal.write("unsignalled: \(second == .timedOut ? "timedOut" : "success") +\(since(start))")
                application.endBackgroundTask(task)
            }
        }
        #expect(journal == ["signalled: true +7", "unsignalled: timedOut +10"])
    }

    @Test("DispatchWorkItem: a cancelled item never runs; notify runs after the item has; perform() runs it now")
    func workItems() {
        let journal = run { application, start in
            let task = application.beginBackgroundTask(expirationHandler: nil)
            let cancelled = DispatchWorkItem { DispatchApp.journal.write("cancelled item ran") }
            DispatchQueue.global().asyncAfter(deadline: .now() + 2, execute: cancelled)
            cancelled.cancel()
            let item = DispatchWorkItem { DispatchApp.journal.write("item +\(since(start))") }
            item.notify(queue: .main) {
                DispatchApp.journal.write("item notify +\(since(start))")
                application.endBackgroundTask(task)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 5, execute: item)
            DispatchWorkItem { DispatchApp.journal.write("performed +\(since(start))") }.perform()
        }
        #expect(journal == ["performed +0", "item +5", "item notify +5"])
    }

    @Test("rules §1: a suspended app's queues are frozen — global and custom queue work waits until the app runs again")
    func frozenWhileSuspended() {
        let journal = run(for: 100, { _, start in
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { DispatchApp.journal.write("global +\(since(start))") }
            DispatchQueue(label: "q").asyncAfter(deadline: .now() + 20) { DispatchApp.journal.write("custom +\(since(start))") }
        }, then: { device, app in
            #expect(DispatchApp.journal.entries.isEmpty, "ran while suspended")
            device.perform(.launch(app))
            device.advance(seconds: 1)
        })
        #expect(journal == ["global +100", "custom +100"])
    }

    @Test("rules §1: a terminated app's queued work never runs, in this process or the next")
    func droppedWhenKilled() {
        let journal = run(for: 5, { application, start in
            _ = application.beginBackgroundTask(expirationHandler: nil)
            let group = DispatchGroup()
            group.enter()  // never left: the process dies with the group entered
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { DispatchApp.journal.write("global +\(since(start))") }
            group.notify(queue: .main) { DispatchApp.journal.write("notify") }
        }, then: { device, app in
            device.perform(.forceQuit(app))
            DispatchApp.work = { _, _ in }
            device.perform(.launch(app))
            device.advance(seconds: 60)
        })
        #expect(journal.isEmpty, "\(journal)")
    }

    @Test("Same app, same scenario: the same interleaving of queues, every time")
    func deterministic() {
        let work: (UIApplication, Date) -> Void = { application, start in
            let task = application.beginBackgroundTask(expirationHandler: nil)
            for i in 0..<5 {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300 * (5 - i))) {
                    DispatchApp.journal.write("g\(i) +\(since(start))")
                }
                DispatchQueue.main.async { DispatchApp.journal.write("m\(i)") }
            }
            DispatchQueue.main.asyncAfter(deadline: .now() + 3) { application.endBackgroundTask(task) }
        }
        let first = run(work)
        #expect(first == ["m0", "m1", "m2", "m3", "m4", "g4 +0.3", "g3 +0.6", "g2 +0.9", "g1 +1.2", "g0 +1.5"])
        #expect(run(work) == first)
    }
}

@Suite("BGXKit — what app code does that bgx cannot yet run in virtual time is said in the trace")
struct VirtualTimeEscapeTests {
    final class TimerApp: UIApplicationDelegate {
        nonisolated static let journal = Journal()
        func applicationDidEnterBackground(_ application: UIApplication) {
            let source = DispatchSource.makeTimerSource(queue: .global())
            source.schedule(deadline: .now() + 1000)
            source.setEventHandler {}
            source.resume()
            source.cancel()
        }
    }

    @Test("A DispatchSource is logged as not yet supported (once per process), not left silent")
    func timersAndSourcesAreLogged() {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.timer")) { TimerApp() }
        device.perform(.launch(app))
        device.perform(.home)
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        let logs = device.events(of: app).filter { $0.kindName == "log" }.map { device.renderer.jsonLine($0) }
        #expect(logs.filter { $0.contains("not yet supported: a DispatchSource") }.count == 1, "\(logs)")
        #expect(TimerApp.journal.entries.isEmpty)
    }
}
