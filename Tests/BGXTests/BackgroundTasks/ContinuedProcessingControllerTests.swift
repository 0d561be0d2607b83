@testable import BGXCore
import Testing

/// rules §13's continued-processing controller on its own: no engine, no
/// device — the device's slots, its queue, and what resource pressure ends.
@Suite struct ContinuedProcessingControllerTests {
    let first = AppID(index: 0), second = AppID(index: 1)
    let export = TextID(index: 1), render = TextID(index: 2), upload = TextID(index: 3)

    func controller(slots: Int = 2) -> ContinuedProcessingController {
        var settings = ContinuedProcessingSettings()
        settings.available = true
        settings.slots = slots
        settings.stallWindow = Time.seconds(60)
        return ContinuedProcessingController(settings: settings)
    }

    func request(_ strategy: ContinuedProcessingStrategy = .queue) -> ContinuedProcessingRequest {
        ContinuedProcessingRequest(identifier: "com.example.export.photos", title: "Exporting", subtitle: "12 photos",
                                   strategy: strategy)
    }

    /// Submitted and, when it may, started, as the engine does.
    func submitted(_ c: inout ContinuedProcessingController, _ app: AppID, _ id: TextID,
                   _ strategy: ContinuedProcessingStrategy = .queue, at now: Nanoseconds = 0) -> ContinuedProcessingController.Admission {
        let admission = c.submit(app, id, request(strategy), now: now)
        if case .queued(true, _) = admission { c.started(c.tasks.count - 1, now: now) }
        return admission
    }

    @Test("rules §13: a submission takes a free slot; with the slots taken .queue waits and .fail is refused; the same task twice is refused")
    func slotsAndStrategies() {
        var c = controller(slots: 1)
        #expect(submitted(&c, first, export) == .queued(startsNow: true, running: 0))
        #expect(submitted(&c, first, export) == .duplicate)
        #expect(submitted(&c, second, render, .fail) == .noSlot(running: 1))
        #expect(submitted(&c, second, render) == .queued(startsNow: false, running: 1))
        #expect(c.tasks.map(\.running) == [true, false])
        #expect(c.nextToStart == nil, "the one slot is taken")
    }

    @Test("rules §13: when a slot comes free, the oldest queued task is next")
    func queueIsServedInOrder() {
        var c = controller(slots: 1)
        _ = submitted(&c, first, export)
        _ = submitted(&c, second, render)
        _ = submitted(&c, first, upload)
        c.remove(at: try! #require(c.index(of: first, export)))
        let next = try! #require(c.nextToStart)
        #expect(c.tasks[next].identifier == render)
    }

    @Test("rules §13: progress counts as moved only when its numbers change")
    func progressMoves() {
        var c = controller()
        _ = submitted(&c, first, export, at: 0)
        let moved = c.progress(first, export, completed: 1, total: 10, now: Time.seconds(5))
        let same = c.progress(first, export, completed: 1, total: 10, now: Time.seconds(50))
        #expect(moved && same)
        #expect(c.tasks[0].movedAt == Time.seconds(5))
        let others = c.progress(second, export, completed: 1, total: 10, now: 0)
        #expect(!others, "not this app's task")
    }

    @Test("rules §13: serious pressure ends the task stalled longest — or, none stalled, the one moved least recently; critical ends every stalled one")
    func pressureEndsTheStalledFirst() {
        var c = controller(slots: 3)
        _ = submitted(&c, first, export, at: 0)
        _ = submitted(&c, first, render, at: Time.seconds(10))
        _ = submitted(&c, second, upload, at: Time.seconds(100))
        let none: (ContinuedTask) -> Bool = { _ in false }
        // At 30 s nothing has stood still for the 60 s window: the one moved least recently goes.
        let early = c.pressureVictims(.serious, now: Time.seconds(30), winding: none)
        #expect(early.map(\.task.identifier) == [export] && early.map(\.stalled) == [false])
        // At 120 s two are stalled: serious takes the longest, critical both; fair ends none.
        #expect(c.pressureVictims(.serious, now: Time.seconds(120), winding: none).map(\.task.identifier) == [export])
        #expect(c.pressureVictims(.critical, now: Time.seconds(120), winding: none).map(\.task.identifier) == [export, render])
        #expect(c.pressureVictims(.fair, now: Time.seconds(120), winding: none).isEmpty)
        // One already winding down (expired) is passed over.
        let winding = c.pressureVictims(.serious, now: Time.seconds(120)) { $0.identifier == export }
        #expect(winding.map(\.task.identifier) == [render])
    }

    @Test("rules §13: a process's end takes its running tasks; a force quit takes its queued ones too, and names them")
    func processEndTakesTasks() {
        var c = controller(slots: 1)
        _ = submitted(&c, first, export)
        _ = submitted(&c, first, render)
        _ = submitted(&c, second, upload)
        var ended = c
        let droppedOnExit = ended.processEnded(first, forceQuit: false)
        #expect(droppedOnExit.isEmpty)
        #expect(ended.tasks.map(\.identifier) == [render, upload], "the queued one waits for the next process")
        let droppedOnForceQuit = c.processEnded(first, forceQuit: true)
        #expect(droppedOnForceQuit == [render])
        #expect(c.tasks.map(\.identifier) == [upload])
    }
}
