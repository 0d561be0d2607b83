import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// rules §5: each launch hands the app a new `BGTask`; a handler's closures
/// hold the task of their own run. A continuation that outlives its run's
/// expiry (a `wait` still pending when the task expired) completes nothing
/// when it finally runs — it must not complete a later run of the same
/// identifier. BGTask.h: "setTaskCompleted(success:) — Informs the background
/// task scheduler that the task is complete"; the object is one run's.
@Suite("rules §5 — a task's completion belongs to its own run")
struct StaleTaskCompletionTests {

    @Test("rules §5 [D]: a wait that outlives its run's expiry does not complete the next run")
    func staleContinuationCompletesNothing() throws {
        let run = try ScenarioRun(try ScenarioParser(file: "stale.yaml").parse("""
        start: 2026-01-05T08:00:00
        duration: 1d
        device: {charging: true}
        apps:
          - bundle: com.example.photos
            backgroundModes: [processing]
            permittedTaskIdentifiers: [com.example.photos.index]
            on:
              didEnterBackground:
                - submit: {identifier: com.example.photos.index, type: processing}
              didFinishLaunching:
                - register: com.example.photos.index
              task com.example.photos.index:
                - wait: 20m
                - complete: true
              expire com.example.photos.index:
                - submit: {identifier: com.example.photos.index, type: processing}
                - complete: false
        timeline:
          - {at: 09:00, user: launch com.example.photos}
          - {at: 09:01, user: lock}
        """))
        run.run()
        var starts: [Nanoseconds] = [], successes: [Nanoseconds] = [], ignored = 0
        for event in run.device.trace {
            switch event.kind {
            case .taskStart: starts.append(event.time)
            case let .taskComplete(_, success) where success: successes.append(event.time)
            default: break
            }
            if case .log = event.kind, run.device.renderer.fields(of: event).contains(where: {
                if case let .string(s) = $0.1 { return s.contains("which has already ended") } else { return false }
            }) { ignored += 1 }
        }
        // Every run's 20-minute job outlasts its ~300 s; each is expired and
        // resubmitted, so there are several runs — and no run is completed
        // successfully by an earlier run's continuation at its start.
        #expect(starts.count >= 2)
        #expect(successes.allSatisfy { !starts.contains($0) }, "a run completed at the instant it started: \(successes)")
        #expect(successes.isEmpty)
        #expect(ignored >= 1)
    }
}

/// A cleaner whose job outlasts every run: its completion block fires 1 000 s
/// after its own run began, long after that run expired (~300 s) and while a
/// later run, submitted from the expiration handler, may be running.
final class SlowCleaner: ApplicationDelegate {
    static let identifier = "com.example.cleaner.clean"

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.identifier, using: nil) { task in
            task.expirationHandler = {
                self.submit()
                task.setTaskCompleted(success: false)
            }
            Runtime.asyncAfter(seconds: 1000) { task.setTaskCompleted(success: true) }
        }
        return true
    }

    func applicationDidEnterBackground(_ application: Application) { submit() }

    func submit() { try? BGTaskScheduler.shared.submit(BGProcessingTaskRequest(identifier: Self.identifier)) }
}

extension StaleTaskCompletionTests {
    @Test("rules §5 [D]: a BGTask object is one run's — an earlier run's setTaskCompleted does not complete a later run")
    func staleTaskObjectCompletesNothing() {
        var state = DeviceState()
        state.charging = true
        let device = SimulatedDevice(device: state)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.cleaner", backgroundModes: [.processing],
                                             permittedTaskIdentifiers: [SlowCleaner.identifier])) { SlowCleaner() }
        device.advance(seconds: 60)
        device.perform(.launch(app))
        device.advance(seconds: 60)
        device.perform(.lock)
        device.advance(seconds: 6 * 3600)
        var starts = 0, successes = 0, ignored = 0
        for event in device.trace where event.app == app {
            switch event.kind {
            case .taskStart: starts += 1
            case let .taskComplete(_, success) where success: successes += 1
            case .log:
                if device.renderer.fields(of: event).contains(where: {
                    if case let .string(s) = $0.1 { return s.contains("whose run has already ended") } else { return false }
                }) { ignored += 1 }
            default: break
            }
        }
        // Every run outlasts its time and is expired; none is completed by a block of an earlier run.
        #expect(starts >= 2)
        #expect(successes == 0)
        #expect(ignored >= 1)
    }
}
