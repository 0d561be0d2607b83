@testable import BGXCore
import Testing

/// rules §13's decisions as the continued-processing controller returns
/// them, with no engine: what a submission becomes, what starting, expiring,
/// cancelling and pressure mean — as effects, in the order the engine
/// carries them out.
extension ContinuedProcessingControllerTests {
    static let inFront = ContinuedSubmissionFacts(profileName: "ios26", wildcard: "com.example.export.*", state: .active,
                                                  inFront: true, handlerRegistered: true, backgroundGPU: false)

    /// The error a submission under `facts` is refused with, if any, and its first effect.
    func refusal(_ facts: ContinuedSubmissionFacts, _ request: ContinuedProcessingRequest? = nil,
                 _ c: ContinuedProcessingController? = nil) -> (BGTaskSchedulerError?, Effect?) {
        var c = c ?? controller()
        let outcome = c.submit(first, export, request ?? self.request(), facts, now: 0)
        return (outcome.error, outcome.effects.first)
    }

    @Test("rules §13: a submission is refused without the API, outside a wildcard, from the background, or for the GPU on a device without it — traced and kept in the history")
    func submissionRefusals() {
        var unavailable = ContinuedProcessingSettings()
        unavailable.available = false
        let old = refusal(Self.inFront, nil, ContinuedProcessingController(settings: unavailable))
        #expect(old.0 == .unavailable)
        var facts = Self.inFront
        facts.wildcard = nil
        #expect(refusal(facts).0 == .notPermitted)
        facts = Self.inFront
        facts.inFront = false
        let background = refusal(facts)
        #expect(background.0 == .notPermitted)
        if case let .taskReject(app, id, error, reason)? = background.1 {
            #expect(app == first && id == export && error == .notPermitted && reason.hasPrefix("submitted while the app is not in the foreground"))
        } else {
            Issue.record("a refusal is traced first")
        }
        var gpu = request()
        gpu.requiresGPU = true
        #expect(refusal(Self.inFront, gpu).0 == .notPermitted)
        facts = Self.inFront
        facts.backgroundGPU = true
        #expect(refusal(facts, gpu).0 == nil)
    }

    @Test("rules §13: with no launch handler registered under the wildcard, the app is ended, not refused")
    func noHandlerEndsTheApp() {
        var c = controller()
        var facts = Self.inFront
        facts.handlerRegistered = false
        let outcome = c.submit(first, export, request(), facts, now: 0)
        #expect(outcome.error == nil && c.isEmpty)
        guard case let .terminate(app, reason, detail)? = outcome.effects.first, outcome.effects.count == 1 else {
            Issue.record("one effect: the termination"); return
        }
        #expect(app == first && reason == .noLaunchHandler && detail.contains("register the wildcard form com.example.export.*"))
    }

    @Test("rules §13: a submission with a free slot is traced, starts at once and is handed over; without one, .queue defers it and .fail refuses it")
    func submissionStartsOrWaits() {
        var c = controller(slots: 1)
        let started = c.submit(first, export, request(), Self.inFront, now: Time.seconds(3))
        #expect(started.error == nil)
        #expect(started.effects.count == 5)
        #expect(started.effects.first == .trace(first, .taskSubmit(identifier: export, kind: .continuedProcessing, replaced: false)))
        #expect(started.effects[2] == .continueContinuedProcessing(.handOver(first, export, reason: "a slot is free: it starts at once")))
        #expect(started.effects[3] == .noteTaskHistory(first, export, "started: a slot is free: it starts at once"))
        #expect(started.effects[4] == .enqueue(first, .bgTask(export)))
        #expect(c.tasks[0].running && c.tasks[0].movedAt == Time.seconds(3))
        let queued = c.submit(first, render, request(), Self.inFront, now: 0)
        let why = "queued (strategy .queue): 1 continued-processing task(s) running (at most 1)"
        #expect(queued.effects.suffix(2) == [.continuedProcessingNote(first, .deferred(render, reason: why)),
                                             .noteTaskHistory(first, render, why)])
        #expect(c.submit(second, upload, request(.fail), Self.inFront, now: 0).error == .immediateRunIneligible)
        #expect(c.submit(first, render, request(), Self.inFront, now: 0).error == .tooManyPendingTaskRequests)
    }

    @Test("rules §13: a queued task whose app has gone is dropped from the queue; a suspended app is woken first")
    func startAsTheAppIsThen() {
        var c = controller(slots: 1)
        _ = submitted(&c, first, export)
        _ = submitted(&c, second, render)
        _ = submitted(&c, second, upload)
        c.remove(at: 0)
        let gone = c.start(0, appState: .notRunning, reason: "a slot came free (it was queued)", now: 0)
        #expect(gone.first == .cancelQueuedContinuedTask(second, render, because: "the app is no longer running"))
        #expect(c.tasks.map(\.identifier) == [upload])
        let woken = c.start(0, appState: .suspended, reason: "a slot came free (it was queued)", now: Time.seconds(9))
        #expect(woken.first == .wakeIntoBackground(second, .bgTask))
        #expect(c.tasks[0].running && c.nextToStart == nil)
    }

    @Test("rules §13: an expired task with a handler runs it; with none it is completed unsuccessfully and its slot serves the queue")
    func expiry() {
        var c = controller(slots: 1)
        _ = submitted(&c, first, export)
        _ = submitted(&c, second, render)
        let withHandler = c.expired(first, export, because: "the person cancelled it", hadExpirationHandler: true, stillHeld: true)
        #expect(withHandler == [.continuedProcessingNote(first, .expired(export, reason: "the person cancelled it")),
                                .noteTaskHistory(first, export, "expired: the person cancelled it"),
                                .enqueue(first, .bgTaskExpired(export))])
        #expect(c.tasks.count == 2, "still running until the app completes it")
        let without = c.expired(first, export, because: "pressure", hadExpirationHandler: false, stillHeld: false)
        #expect(without.suffix(3) == [.noteTaskHistory(first, export, "completed unsuccessfully: no expiration handler set"),
                                      .continueContinuedProcessing(.startQueued), .suspendIfThreadFree(first)])
        #expect(without.contains(.setAssertion(first, .scheduledTask, false)))
        #expect(c.tasks.map(\.identifier) == [render])
    }

    @Test("rules §13: the person cancels a running task (expired), a queued one (cancelled), or one that is not there (a console line)")
    func cancels() {
        var c = controller(slots: 1)
        _ = submitted(&c, first, export)
        _ = submitted(&c, second, render)
        #expect(c.cancel(nil, export, identifier: "x") == [.trace(first, .user(.cancelTask)),
                                                           .continueContinuedProcessing(.expire(first, export, because: "the person cancelled it"))])
        let queued = c.cancel(second, render, identifier: "x")
        #expect(queued[1] == .cancelQueuedContinuedTask(second, render, because: "the person cancelled it while queued"))
        #expect(c.tasks.map(\.identifier) == [export])
        #expect(c.cancel(second, render, identifier: "com.example.export.render")
                == [.continuedProcessingNote(second, .message("the person cancelled com.example.export.render, which is not queued or running"))])
    }

    @Test("rules §13: pressure's victims come back as expiries, with why; a task the task scheduler has expired already is passed over")
    func pressureAsEffects() {
        var c = controller(slots: 2)
        _ = submitted(&c, first, export, at: 0)
        _ = submitted(&c, second, render, at: Time.seconds(100))
        let serious = c.relievePressure(.serious, windingDown: [], now: Time.seconds(120), wallClockOffset: 0)
        #expect(serious == [.continueContinuedProcessing(.expire(first, export, because:
            "resource pressure (thermal serious): its progress has not moved since \(Time.wallClock(0, seconds: true))"))])
        let passedOver = c.relievePressure(.serious, windingDown: [ContinuedTaskKey(app: first, identifier: export)],
                                           now: Time.seconds(120), wallClockOffset: 0)
        #expect(passedOver == [.continueContinuedProcessing(.expire(second, render, because:
            "resource pressure (thermal serious): no task is stalled; its progress moved least recently"))])
        #expect(c.relievePressure(.fair, windingDown: [], now: Time.seconds(120), wallClockOffset: 0).isEmpty)
    }

    @Test("rules §13: a thermal change to the controller's tasks asks for relief; a process's end takes its tasks and serves the queue")
    func hooks() {
        var c = controller(slots: 1)
        _ = submitted(&c, first, export)
        _ = submitted(&c, first, render)
        let context = ControllerContext(now: 0, wallClockOffset: 0, deviceMemory: 0, locationNeedsOptIn: false)
        var effects: [Effect] = []
        c.deviceChanged(.thermal(.critical), context, &effects)
        #expect(effects == [.continueContinuedProcessing(.relievePressure(.critical))])
        effects.removeAll()
        c.processEnded(first, .userForceQuit, context, &effects)
        #expect(effects == [.cancelQueuedContinuedTask(first, render, because: "the person removed the app from the app switcher"),
                            .continueContinuedProcessing(.startQueued)])
        #expect(c.isEmpty)
    }
}
