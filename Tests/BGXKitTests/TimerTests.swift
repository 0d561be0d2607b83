import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Uses `Timer`s when sent to the background, the way iOS code does: a one-shot
/// to end its background task, a repeating one that stops itself, one made
/// with `Timer(timeInterval:)` and added to `RunLoop.main`.
final class TimerAppDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()
    enum Plan { case withBackgroundTask, suspended, invalidatedEarly, fromGlobalQueue }
    let plan: Plan
    nonisolated(unsafe) var task: UIBackgroundTaskIdentifier = .invalid
    nonisolated(unsafe) var entered = Date()
    nonisolated(unsafe) var ticks = 0
    init(plan: Plan) { self.plan = plan }

    nonisolated func note(_ what: String) { Self.journal.write("\(what) +\(Date().timeIntervalSince(entered))") }

    func applicationDidEnterBackground(_ application: UIApplication) {
        entered = Date()
        switch plan {
        case .withBackgroundTask:
            task = application.beginBackgroundTask(withName: "timers", expirationHandler: nil)
            _ = Timer.scheduledTimer(withTimeInterval: 2, repeats: true) { timer in
                self.ticks += 1
                self.note("tick \(self.ticks)")
                if self.ticks == 3 { timer.invalidate() }
            }
            let added = Timer(fire: Date(timeIntervalSinceNow: 7), interval: 0, repeats: false) { _ in
                self.note("added to RunLoop.main")
            }
            RunLoop.main.add(added, forMode: .common)
            let linux = Timer(timeInterval: 3, repeats: false) { _ in self.note("Timer(timeInterval:)") }
            RunLoop.main.add(linux, forMode: .default)
            _ = Timer.scheduledTimer(withTimeInterval: 10, repeats: false) { timer in
                self.note("one-shot valid=\(timer.isValid)")
                application.endBackgroundTask(self.task)
            }
        case .suspended:
            _ = Timer.scheduledTimer(withTimeInterval: 10, repeats: true) { _ in self.note("tick") }
        case .invalidatedEarly:
            task = application.beginBackgroundTask(expirationHandler: nil)
            let timer = Timer.scheduledTimer(withTimeInterval: 5, repeats: false) { _ in self.note("fired") }
            DispatchQueue.main.asyncAfter(deadline: .now() + 1) { timer.invalidate() }
            DispatchQueue.main.asyncAfter(deadline: .now() + 8) { application.endBackgroundTask(self.task) }
        case .fromGlobalQueue:
            task = application.beginBackgroundTask(expirationHandler: nil)
            DispatchQueue.global().async {
                _ = Timer.scheduledTimer(withTimeInterval: 1, repeats: false) { _ in self.note("fired") }
            }
            DispatchQueue.main.asyncAfter(deadline: .now() + 5) { application.endBackgroundTask(self.task) }
        }
    }
}

@Suite("BGXKit — Timer in app code fires in virtual time", .serialized)
struct TimerTests {
    func run(_ plan: TimerAppDelegate.Plan, _ then: (SimulatedDevice, AppID) -> Void) -> [String] {
        TimerAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.timers")) { TimerAppDelegate(plan: plan) }
        device.perform(.launch(app))
        device.perform(.home)
        then(device, app)
        return TimerAppDelegate.journal.entries
    }

    func logs(_ device: SimulatedDevice, _ app: AppID) -> [String] {
        device.events(of: app).filter { $0.kindName == "log" }.map { device.renderer.jsonLine($0) }
    }

    @Test("scheduledTimer fires at its interval in virtual time; a repeating one every interval until invalidated; one added to RunLoop.main fires at its fire date; a one-shot is invalid once it has fired")
    func timersFireOnTime() {
        var story: [String] = []
        let journal = run(.withBackgroundTask) { device, app in
            device.advance(seconds: 60)
            story = device.story(of: app, only: ["bgtask.begin", "bgtask.end"])
        }
        // Linux's Foundation gives `Timer(timeInterval:repeats:block:)` the fire
        // date now (iOS: now + interval); bgx fires it when CoreFoundation says.
        #expect(journal == ["Timer(timeInterval:) +0.0", "tick 1 +2.0", "tick 2 +4.0", "tick 3 +6.0",
                            "added to RunLoop.main +7.0", "one-shot valid=true +10.0"])
        #expect(story == ["0 bgtask.begin", "10 bgtask.end"])
    }

    @Test("rules §1: a suspended app's timers do not fire; one that came due fires once when the app runs again, and a repeating one skips the fires it missed")
    func timersStopWhileSuspended() {
        let journal = run(.suspended) { device, app in
            device.advance(seconds: 95)
            #expect(TimerAppDelegate.journal.entries.isEmpty)
            device.perform(.launch(app))
            device.advance(seconds: 22)
        }
        #expect(journal == ["tick +95.0", "tick +100.0", "tick +110.0"])
    }

    @Test("invalidate() before the fire date: the timer never fires")
    func invalidatedTimerNeverFires() {
        let journal = run(.invalidatedEarly) { device, _ in device.advance(seconds: 60) }
        #expect(journal.isEmpty)
    }

    @Test("A Timer scheduled from a global queue's thread never fires, as on iOS, and the trace says why")
    func timerOnABackgroundThreadNeverFires() {
        var said: [String] = []
        let journal = run(.fromGlobalQueue) { device, app in
            device.advance(seconds: 60)
            said = logs(device, app)
        }
        #expect(journal.isEmpty)
        #expect(said.filter { $0.contains("never fires, as on iOS") }.count == 1, "\(said)")
    }
}
