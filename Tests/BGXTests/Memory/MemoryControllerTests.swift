@testable import BGXCore
import Foundation
import Testing

/// rules §10's books as the memory controller keeps them, with no engine and
/// no device: the CPU monitor's next check, the idle band's order, a kill
/// counted once, what a process's end takes with it.
@Suite("The memory controller")
struct MemoryControllerTests {
    let app = AppID(index: 0), other = AppID(index: 1)
    /// A controller with two apps installed.
    static func fresh() -> MemoryController {
        var c = MemoryController()
        c.appInstalled()
        c.appInstalled()
        return c
    }
    let window = Time.seconds(60), limit = Time.seconds(48)  // 80 % of 60 s

    @Test("the CPU monitor checks when the busy time in the trailing window would reach the limit, not before")
    func cpuCheckAtTheLimit() throws {
        var controller = Self.fresh()
        controller.noteBusy(app, now: 0, for: Time.seconds(100), window: window)
        let found = controller.nextCPUCheck(app, now: 0, epoch: 2, window: window, limit: limit)
        #expect(found == .schedule(.cpuCheck(app, Ticket(epoch: 2, number: 1)), at: limit))
        #expect(controller.busy(app, from: limit - window, to: limit) == limit)
    }

    @Test("busy time that ends below the limit schedules no check; busy time back to back is counted from its end")
    func cpuBelowTheLimit() {
        var controller = Self.fresh()
        controller.noteBusy(app, now: 0, for: Time.seconds(30), window: window)
        let found = controller.nextCPUCheck(app, now: 0, epoch: 0, window: window, limit: limit)
        #expect(found == nil)
        controller.noteBusy(app, now: Time.seconds(10), for: Time.seconds(10), window: window)
        let last = controller.cpu[0].intervals.last
        #expect(last?.start == Time.seconds(30) && last?.end == Time.seconds(40))
        #expect(controller.busy(app, from: 0, to: window) == Time.seconds(40))
    }

    @Test("each check found is numbered, so an earlier check's ticket goes stale; the number outlives the process")
    func cpuCheckNumbers() {
        var controller = Self.fresh()
        controller.noteBusy(app, now: 0, for: Time.seconds(100), window: window)
        _ = controller.nextCPUCheck(app, now: 0, epoch: 0, window: window, limit: limit)
        let first = controller.cpu[0].checkNumber
        _ = controller.nextCPUCheck(app, now: 0, epoch: 0, window: window, limit: limit)
        #expect(controller.cpu[0].checkNumber != first)
        let second = controller.cpu[0].checkNumber
        controller.processEnded(app)
        #expect(controller.cpu[0].intervals.isEmpty && controller.cpu[0].checkNumber == second)
    }

    @Test("the idle band is kept in the order apps were suspended; apps suspended at one instant go by index")
    func idleOrder() {
        var controller = Self.fresh()
        controller.enterIdleOrder(other, now: 5)
        controller.enterIdleOrder(app, now: 5)
        controller.enterIdleOrder(other, now: 9)
        #expect(controller.idleOrder.map(\.app.index) == [0, 1, 1])
        #expect(controller.idleOrder.map(\.since) == [5, 5, 9])
    }

    @Test("an app jetsam chooses twice (still in its willTerminate) is one kill under way; its end finishes it")
    func killCountedOnce() {
        var controller = Self.fresh()
        let kill = JetsamKill(footprint: 1, level: 2, memory: 3, band: .background, cause: .pressure)
        controller.choose(app, kill)
        controller.choose(app, kill)
        #expect(controller.jettisonsUnderway == 1)
        controller.killEnded(app)
        controller.processEnded(app)
        #expect(controller.jettisonsUnderway == 0 && controller.apps[0].jettison == nil)
        controller.killEnded(app)  // an end with no kill under way counts nothing
        #expect(controller.jettisonsUnderway == 0)
    }

    @Test("its dump says the footprint, the band and what the responsible-background rules watch, as lines and JSON")
    func dumped() throws {
        let dump = MemoryDump(footprint: 200 << 20, limit: 1000 << 20, free: 500 << 20, warningLevel: 100 << 20,
                              criticalLevel: 50 << 20, band: .background, keptRunningBy: ["background task"],
                              jettison: nil, locks: ["db.sqlite"], sockets: [], busyInWindow: Time.seconds(3),
                              cpuLimit: limit, cpuWindow: window)
        #expect(dump.concern == "memory")
        let lines = dump.lines { "\($0)" }
        #expect(lines.count == 4)
        #expect(lines[0] == "footprint 200 MB of a per-process limit of 1000 MB; free memory 500 MB (warnings below 100 MB, jetsam below 50 MB)")
        #expect(lines[1] == "jetsam band background (30): held by background task")
        #expect(lines[2] == "file locks held (fatal if suspended): db.sqlite")
        #expect(lines[3].hasPrefix("CPU busy "))
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"locks\":[\"db.sqlite\"]") && json.contains("\"band\":30"))
        var gone = dump
        gone.band = nil
        #expect(gone.lines { "\($0)" }.isEmpty)
    }
}

/// The moments the coordinator tells the memory controller of (`Controller`), with no engine.
extension MemoryControllerTests {
    static func context(at now: Nanoseconds) -> ControllerContext {
        ControllerContext(now: now, wallClockOffset: 0, deviceMemory: 4 << 30, locationNeedsOptIn: true)
    }

    @Test("rules §10: a process's declared footprint and its allocations are resident from its start to its end; a suspended app joins the idle band at the back")
    func residentFromStartToEnd() {
        var c = MemoryController()
        c.appInstalled(AppManifest(bundleIdentifier: "com.example.a", memory: 100 << 20))
        c.appInstalled(AppManifest(bundleIdentifier: "com.example.b", memory: 50 << 20))
        var effects: [Effect] = []
        c.processStateChanged(app, from: .notRunning, to: .background, Self.context(at: 1), &effects)
        #expect(effects.isEmpty)
        c.processStateChanged(other, from: .notRunning, to: .active, Self.context(at: 1), &effects)
        c.allocate(app, bytes: 10 << 20)
        #expect(c.residentBytes == 160 << 20)
        c.processStateChanged(app, from: .background, to: .suspended, Self.context(at: 7), &effects)
        #expect(c.idleOrder.map(\.app) == [app] && c.idleOrder.map(\.since) == [7])
        c.processStateChanged(app, from: .suspended, to: .notRunning, Self.context(at: 9), &effects)
        #expect(c.residentBytes == 50 << 20)
    }

    @Test("rules §10: a process that ends with unsaved changes loses them (traced with the reason); its end finishes a kill and may end the low-memory episode")
    func processEndLosesChanges() {
        var c = MemoryController()
        c.appInstalled(AppManifest(bundleIdentifier: "com.example.a", memory: 100 << 20))
        var effects: [Effect] = []
        c.processStateChanged(app, from: .notRunning, to: .background, Self.context(at: 0), &effects)
        _ = c.setUnsavedChanges(app, true)
        c.choose(app, JetsamKill(footprint: 1, level: 2, memory: 3, band: .background, cause: .pressure))
        let began = c.lowMemoryBegins()
        #expect(began)
        c.processStateChanged(app, from: .background, to: .notRunning, Self.context(at: 5), &effects)
        // 4 GB, 25 % kept by the system: 3 GB free once the process is gone, above the 10 % warning level.
        c.processEnded(app, .memoryPressure, Self.context(at: 5), &effects)
        #expect(effects == [.trace(app, .changesLost(reason: .memoryPressure))])
        #expect(c.jettisonsUnderway == 0 && !c.warned && !c.apps[0].holdsSomething)
        // Low memory that an end does not relieve goes on: another process holds 3 GB of the 4.
        c.appInstalled(AppManifest(bundleIdentifier: "com.example.big", memory: 3 << 30))
        c.processStateChanged(other, from: .notRunning, to: .active, Self.context(at: 6), &effects)
        let beganAgain = c.lowMemoryBegins()
        #expect(beganAgain)
        c.processEnded(app, .exit, Self.context(at: 6), &effects)
        #expect(c.warned)
    }
}
