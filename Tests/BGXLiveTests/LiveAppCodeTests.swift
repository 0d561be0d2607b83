import BGXCore
import BGXKit
import BGXLive
import BGXSimulation
import ColorFeedExample
import Foundation
import Testing

/// App code written against BGXKit (UIKit's names) runs unchanged both ways:
/// on the simulated device in virtual time, and as a real process under the
/// daemon (Examples/ColorFeedLive: the same AppDelegate, started by
/// `LiveApplication.main`). The engine's decisions about it are the same.
@Suite("app code live and simulated", .serialized)
struct LiveAppCodeTests {
    static let identifier = ColorFeedExample.AppDelegate.refreshIdentifier
    static let kinds: Set<String> = ["launch", "state", "task.register", "task.submit", "task.start", "task.complete",
                                     "notification.schedule", "notification.deliver"]

    static func decision(_ line: [String: Any]) -> String {
        let kind = line["kind"] as? String ?? ""
        let detail = ["to", "cause", "identifier", "success"].compactMap { line[$0].map { "\($0)" } }.joined(separator: " ")
        return detail.isEmpty ? kind : "\(kind) \(detail)"
    }

    @Test("ColorFeed simulated: launch, home, its refresh submitted; a simulated launch runs it, it notifies and completes")
    func simulated() throws {
        let decisions = try Self.simulatedDecisions()
        #expect(decisions.contains("task.submit \(Self.identifier)"))
        #expect(decisions.contains("task.complete \(Self.identifier) 1"))
        #expect(decisions.contains { $0.hasPrefix("notification.deliver") })
    }

    static func simulatedDecisions() throws -> [String] {
        let device = SimulatedDevice(startDate: Date())
        let app = device.install(AppManifest(bundleIdentifier: "com.example.colorfeed", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [identifier])) { ColorFeedExample.AppDelegate() }
        device.perform(.launch(app))
        device.advance(seconds: 5)
        device.perform(.home)
        device.advance(seconds: 5)
        #expect(device.simulateLaunch(app, identifier: identifier))
        device.advance(seconds: 5)
        return try device.traceLines.compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["app"] as? String == "com.example.colorfeed" && kinds.contains($0["kind"] as? String ?? "") }
            .map(decision)
    }

    @Test("ColorFeed live: the same AppDelegate as a real process makes the engine decide the same, in the same order")
    func liveAgreesWithSimulated() throws {
        let host = try LiveHost()
        try host.install("com.example.colorfeed", modes: ["fetch"], permitted: [Self.identifier], executable: "colorfeed-live")
        try host.ctl("launch", "com.example.colorfeed")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "task.submit", "identifier": Self.identifier])
        let frozen = try host.wait(for: ["kind": "process.freeze"])
        try host.ctl("simulate-launch", "com.example.colorfeed", Self.identifier)
        let complete = try host.wait(for: ["kind": "task.complete", "identifier": Self.identifier], after: host.index(of: frozen))
        #expect(complete["success"] as? Int == 1)
        // It went back to sleep once its task was done (the line after the completion).
        let completed = try #require(host.lines.lastIndex { $0["kind"] as? String == "task.complete" })
        try host.wait(for: ["kind": "process.freeze"], after: completed + 1)
        let live = host.lines.filter {
            $0["app"] as? String == "com.example.colorfeed" && Self.kinds.contains($0["kind"] as? String ?? "")
        }.map(Self.decision)
        let simulated = try Self.simulatedDecisions()
        // A notification without a trigger is delivered by the engine's next step. Simulated app code runs
        // within one step, so it comes after the handler; a live process's next call lets real time (and so
        // that step) pass first. Its place aside, it is the same decision.
        let delivered = "notification.deliver user"
        #expect(live.contains(delivered) && simulated.contains(delivered))
        #expect(live.filter { $0 != delivered } == simulated.filter { $0 != delivered }, "live:\n\(live.joined(separator: "\n"))\nsimulated:\n\(simulated.joined(separator: "\n"))")
        // The real process made the calls: nothing it asked for was refused.
        let log = (try? String(contentsOfFile: host.directory + "/state/logs/com.example.colorfeed.log", encoding: .utf8)) ?? ""
        #expect(!log.contains("bgx live:"), "\(log)")
    }
}

/// BGXApp's APIs from a real process (Tests/LiveKitApp): each reaches the
/// engine through the live protocol; what the live host cannot do yet is
/// refused in the reply, and the app gets iOS's "no". App code uses GCD as
/// on iOS: the main queue, timers and `@MainActor` tasks run on the main
/// thread in real time, and calls come from any thread.
@Suite("BGXApp calls live", .serialized)
struct LiveAppCallsTests {
    @Test("audio, a local notification, a background task ended by a timer, eight begun and ended at once on GCD's threads through Application.shared; a background session created")
    func appCallsReachTheEngine() throws {
        let host = try LiveHost()
        let dir = try host.install("com.example.kit", modes: ["audio", "remote-notification"], executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.kit")
        try host.wait(for: ["kind": "notification.schedule", "id": "reminder"])
        try host.wait(for: ["kind": "state", "to": "active"])
        let answers = try String(contentsOfFile: dir + "/answers", encoding: .utf8)
        #expect(answers.contains("audio true"), "\(answers)")
        // Background sessions are carried live now (LiveTransferTests): created, not refused.
        #expect(answers.contains("refusals") && !answers.contains("createBackgroundSession"), "\(answers)")

        try host.ctl("home")
        let begin = try host.wait(for: ["kind": "bgtask.begin", "name": "save"])
        // Ended by the app's own timer, 100 ms of real time later — not expired.
        let end = try host.wait(for: ["kind": "bgtask.end", "id": "\(begin["id"] ?? "")"], after: host.index(of: begin))
        let waited = try #require(end["t"] as? Double) - #require(begin["t"] as? Double)
        #expect(waited >= 0.1, "ended after \(waited) s")
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: end))
        // Calls at once from several threads, each answered on its own: eight distinct tasks, begun and ended.
        for i in 0..<8 { try host.wait(for: ["kind": "bgtask.begin", "name": "worker \(i)"]) }
        let workers = Set(host.lines.filter { ($0["name"] as? String)?.hasPrefix("worker ") == true }.compactMap { $0["id"] as? Int })
        #expect(workers.count == 8)
        #expect(workers.allSatisfy { id in host.lines.contains { $0["kind"] as? String == "bgtask.end" && $0["id"] as? Int == id } })
        #expect(try String(contentsOfFile: dir + "/answers", encoding: .utf8).contains("concurrent 8"))
        #expect(!host.lines.contains { $0["kind"] as? String == "terminate" })
    }

    /// Voluntary context switches of every thread of a process: each wake-up from a wait is one.
    static func wakeUps(_ pid: Int) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").reduce(0) { sum, task in
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return sum + (Int(line?.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0)
        }
    }

    @Test("a live app with nothing to do does not poll: in front, its run loop and its socket reader sleep until something comes")
    func idleAppSleeps() throws {
        let host = try LiveHost()
        try host.install("com.example.kit", modes: ["audio", "remote-notification"], executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.kit")
        let spawn = try host.wait(for: ["kind": "process.spawn"])
        try host.wait(for: ["kind": "state", "to": "active"])
        let pid = try #require(spawn["pid"] as? Int)
        // Every callback so far acknowledged (the daemon's status says so): the app has nothing left to do.
        try host.waitUntilEveryCallbackIsAnswered()
        let before = try Self.wakeUps(pid)
        // Not synchronisation: time passing, in which a polling loop would wake.
        usleep(500_000)
        let woke = try Self.wakeUps(pid) - before
        #expect(woke <= 2, "the idle app woke \(woke) times in 0.5 s")
    }

    @Test("a push completed through GCD as iOS code uses it: main.asyncAfter, a global queue, main.async, OperationQueue.main, a Timer, a @MainActor task — each on its thread, in real time")
    func gcdRunsInALiveApp() throws {
        let host = try LiveHost()
        let dir = try host.install("com.example.kit", modes: ["audio", "remote-notification"], executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.kit")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let frozen = try host.wait(for: ["kind": "process.freeze"])
        try host.ctl("push", "com.example.kit", "background")
        let thawed = try host.wait(for: ["kind": "process.thaw"], after: host.index(of: frozen))
        let complete = try host.wait(for: ["kind": "push.complete"], after: host.index(of: thawed))
        #expect(complete["result"] as? String == "newData", "\(complete)")
        // 50 ms on the main queue and a 20 ms timer: real time passed on the way.
        let took = try #require(complete["t"] as? Double) - #require(thawed["t"] as? Double)
        #expect(took >= 0.07, "completed after \(took) s")
        let answers = try String(contentsOfFile: dir + "/answers", encoding: .utf8)
        #expect(answers.contains("gcd main.asyncAfter on main, global on another thread, main.async on main, "
                                 + "OperationQueue.main on main, Timer on main, MainActor on main"), "\(answers)")
        #expect(!host.lines.contains { $0["kind"] as? String == "terminate" })
    }
}
