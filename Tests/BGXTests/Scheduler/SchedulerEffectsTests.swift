@testable import BGXCore
import Testing

/// rules §5, §6 in the scheduler's two controllers, without an engine: what
/// each decides and the effects it returns for the coordinator to carry out
/// (the trace's events, the timers it queues, the work it queues on an app).
@Suite struct SchedulerEffectsTests {
    let news = AppID(index: 0)
    let mail = AppID(index: 1)
    let refresh = TextID(index: 0)
    let sync = TextID(index: 1)
    let settings = SchedulerSettings()

    func scheduler() -> SchedulerController {
        var c = SchedulerController(settings: settings)
        c.appInstalled(usageDays: 7)
        c.appInstalled(usageDays: 7)
        return c
    }

    func tasks() -> TaskSchedulerController {
        var c = TaskSchedulerController()
        c.appInstalled()
        c.appInstalled()
        return c
    }

    func request(_ kind: BGTaskKind = .appRefresh, _ name: String = "com.example.refresh") -> TaskRequestSpec {
        TaskRequestSpec(identifier: name, kind: kind)
    }

    // MARK: Requests

    @Test("rules §5: a submission is pending, traced and judged again; a second of a kind already at its limit is refused with the reason, kept in the history")
    func submissionLimit() {
        var c = scheduler()
        guard case let .accepted(first) = c.submit(news, refresh, request(), now: 10, runsTask: false) else {
            Issue.record("the first refresh request was refused")
            return
        }
        #expect(first == .trace(news, .taskSubmit(identifier: refresh, kind: .appRefresh, replaced: false)))
        #expect(c.pendingTasks.count == 1 && c.dirtyApps.contains(news.index))
        // One refresh request may be pending (`maxPendingAppRefresh`): another identifier of the kind is refused.
        guard case let .rejected(error, rejection) = c.submit(news, sync, request(.appRefresh, "com.example.sync"),
                                                              now: 20, runsTask: false) else {
            Issue.record("a second refresh request was accepted past the limit")
            return
        }
        #expect(error == .tooManyPendingTaskRequests)
        #expect(rejection == .taskReject(news, sync, .tooManyPendingTaskRequests,
                                         reason: "1 appRefresh request(s) already pending (at most 1)"))
        #expect(c.pendingTasks.count == 1)
        #expect(c.taskHistory.last?.event == "rejected: tooManyPendingTaskRequests — 1 appRefresh request(s) already pending (at most 1)")
    }

    @Test("rules §5: resubmitting an identifier replaces its request in its place, traced as replaced")
    func resubmissionReplaces() {
        var c = scheduler()
        _ = c.submit(news, refresh, request(), now: 10, runsTask: false)
        let serial = c.pendingTasks.serial(of: news, refresh)
        guard case let .accepted(second) = c.submit(news, refresh, request(), now: 30, runsTask: false) else {
            Issue.record("a resubmission was refused")
            return
        }
        #expect(second == .trace(news, .taskSubmit(identifier: refresh, kind: .appRefresh, replaced: true)))
        #expect(c.pendingTasks.count == 1 && c.pendingTasks.serial(of: news, refresh) == serial)
        #expect(c.pendingTasks[serial!].submittedAt == 30)
    }

    @Test("rules §5: cancelling an identifier not pending changes nothing; a pending one leaves, traced and kept in the history")
    func cancellation() {
        var c = scheduler()
        let nothing = c.cancel(news, refresh, now: 5, runsTask: false)
        #expect(nothing == nil)
        _ = c.submit(news, refresh, request(), now: 10, runsTask: false)
        _ = c.submit(news, sync, request(.processing, "com.example.sync"), now: 10, runsTask: false)
        let cancelled = c.cancel(news, refresh, now: 20, runsTask: false)
        #expect(cancelled == .trace(news, .taskCancel(identifier: refresh)))
        #expect(c.taskHistory.last?.event == "cancelled by the app")
        let all = c.cancelAll(news, runsTask: false)
        #expect(all == [.trace(news, .taskCancel(identifier: sync))])
        #expect(c.pendingTasks.isEmpty)
    }

    // MARK: When it looks again

    @Test("rules §6: a wake judges again only the apps whose wake is due, then queues one event for the next; a stale wake does nothing")
    func wakeFiresForTheAppsDue() {
        var c = scheduler()
        _ = c.submit(news, refresh, request(), now: 0, runsTask: false)
        _ = c.submit(mail, refresh, request(), now: 0, runsTask: false)
        _ = c.beginEvaluation()
        c.wake(news, at: Time.minutes(10))
        c.wake(mail, at: Time.minutes(20))
        let first = c.nextWake()
        #expect(first == .schedule(.schedulerWake(generation: 1), at: Time.minutes(10)))
        let stale = c.wakeFired(generation: 0, now: Time.minutes(10), tasks: tasks())
        #expect(stale == nil && c.dirtyApps.isEmpty)
        // News is due and judged next; mail's wake waits, queued once news has been judged.
        let due = c.wakeFired(generation: 1, now: Time.minutes(10), tasks: tasks())
        #expect(due == nil && c.dirtyApps.contains(news.index) && !c.dirtyApps.contains(mail.index))
        let newsSerials = c.pendingTasks.serials(of: news)
        let judged = c.beginEvaluation()
        #expect(judged?.serials == newsSerials)
        let next = c.nextWake()
        #expect(next == .schedule(.schedulerWake(generation: 2), at: Time.minutes(20)))
    }

    @Test("rules §6: with nothing pending and no fetch app an evaluation judges nothing and forgets its wakes")
    func nothingPendingNothingJudged() {
        var c = scheduler()
        c.wake(news, at: Time.minutes(10))
        c.judgeEverything()
        let judged = c.beginEvaluation()
        #expect(judged == nil)
        let wake = c.nextWake()
        #expect(wake == nil && c.wakeAt[news.index] == nil)
        #expect(c.evaluations == 1)
    }

    // MARK: Background fetch

    @Test("rules §6: a fetch start holds the app, is traced, queues its timeout with the fetch's ticket and performFetch")
    func fetchStart() {
        var c = scheduler()
        var effects: [Effect] = []
        c.startFetch(news, now: Time.hours(1), epoch: 3, &effects)
        #expect(effects == [.setAssertion(news, .fetch, true), .trace(news, .fetchStart),
                            .schedule(.fetchTimeout(news, Ticket(epoch: 3, number: 1)), at: Time.hours(1) + settings.fetchTimeout),
                            .enqueue(news, .performFetch)])
        #expect(c.heldAssertions(of: news, context()) == .fetch)
    }

    @Test("rules §6: a completion handler with no fetch in flight is only logged")
    func completionWithoutFetch() {
        var c = scheduler()
        var effects: [Effect] = []
        c.completeFetch(news, .newData, now: 5, inBackground: true, &effects)
        #expect(effects == [.log(news, "performFetch completion handler called with no fetch in progress")])
    }

    @Test("rules §6, §12: a completed fetch is judged once the app leaves the background, on the time it stayed awake")
    func fetchJudgedWhenTheAppLeaves() {
        var c = scheduler()
        c.wokeForBackgroundWork(news, now: 0, cellular: false, wallClockOffset: 0)
        var started: [Effect] = []
        c.startFetch(news, now: 0, epoch: 1, &started)
        var completed: [Effect] = []
        c.completeFetch(news, .noData, now: Time.seconds(2), inBackground: true, &completed)
        #expect(completed == [.setAssertion(news, .fetch, false), .trace(news, .fetchComplete(result: .noData)),
                              .markSchedulerDirty(news), .suspendIfThreadFree(news)])
        // Not judged yet: the app is still awake in the background.
        #expect(c.apps[0].fetchStanding.last == nil)
        var left: [Effect] = []
        c.processStateChanged(news, from: .background, to: .suspended, context(now: Time.seconds(20)), &left)
        #expect(left == [.markSchedulerDirty(news)])
        // Awake 20 s of a 30 s fetch time: past a third, within two thirds — ordinary.
        #expect(c.apps[0].fetchStanding.last?.verdict == .ordinary)
        #expect(c.apps[0].fetchStanding.last?.took == Time.seconds(20))
    }

    @Test("rules §6: a fetch reported after the app left the background is judged at once")
    func fetchJudgedAtOnce() {
        var c = scheduler()
        var started: [Effect] = []
        c.startFetch(news, now: 0, epoch: 1, &started)
        var completed: [Effect] = []
        c.completeFetch(news, .noData, now: Time.seconds(2), inBackground: false, &completed)
        #expect(c.apps[0].fetchStanding.last?.verdict == .fastAndHonest)
        #expect(c.apps[0].fetchInFlight == nil && c.heldAssertions(of: news, context()) == [])
    }

    @Test("rules §6: the timeout judges the fetch in flight timed out; with none in flight it says so")
    func fetchTimeout() {
        var c = scheduler()
        let without = c.fetchTimedOut(news, now: 10)
        #expect(!without)
        var started: [Effect] = []
        c.startFetch(news, now: 0, epoch: 1, &started)
        let timedOut = c.fetchTimedOut(news, now: settings.fetchTimeout)
        #expect(timedOut)
        #expect(c.apps[0].fetchStanding.last?.verdict == .timedOut)
    }

    // MARK: Tasks that run

    @Test("rules §5: the tasks of one launch open one budget, its expiry queued the lead time before its end; each is traced with the decision and queued, then the app runs")
    func launchStartsItsTasks() {
        var t = tasks()
        let why = TextID(index: 7)
        let pending = [PendingTask(app: news, identifier: refresh, request: request(), submittedAt: 0),
                       PendingTask(app: news, identifier: sync, request: request(.processing, "com.example.sync"), submittedAt: 0)]
        var effects: [Effect] = []
        t.start(pending, for: news, why: why, simulated: false, now: 100, epoch: 2, budget: Time.seconds(30),
                leadTime: Time.seconds(5), &effects)
        #expect(effects == [
            .schedule(.taskExpiry(news, Ticket(epoch: 2, number: 1)), at: 100 + Time.seconds(25)),
            .setAssertion(news, .scheduledTask, true), .trace(news, .taskStart(identifier: refresh, reason: why)),
            .queueJob(news, .bgTask(refresh)),
            .setAssertion(news, .scheduledTask, true), .trace(news, .taskStart(identifier: sync, reason: why)),
            .queueJob(news, .bgTask(sync)),
            .pump(news),
        ])
        #expect(t.holdsApp(news) && t.isRunning(news, sync))
    }

    @Test("rules §5: at the budget's expiry a task with an expiration handler has it queued; one without is completed unsuccessfully, a processing one spacing the next")
    func expiry() {
        var t = tasks()
        let pending = [PendingTask(app: news, identifier: refresh, request: request(), submittedAt: 0),
                       PendingTask(app: news, identifier: sync, request: request(.processing, "com.example.sync"), submittedAt: 0)]
        var effects: [Effect] = []
        t.start(pending, for: news, why: refresh, simulated: false, now: 0, epoch: 1, budget: Time.seconds(30),
                leadTime: Time.seconds(5), &effects)
        t.setExpirationHandler(news, refresh, true)
        effects = []
        let ticket = Ticket(epoch: 1, number: 1)
        let expired = t.budgetExpiring(news, ticket, now: Time.seconds(25), &effects)
        #expect(expired == 2)
        #expect(effects == [
            .schedule(.taskDeadline(news, ticket), at: Time.seconds(30)),
            .trace(news, .taskExpire(identifier: refresh)),
            .noteTaskHistory(news, refresh, "expired: its time is running out"),
            .queueJob(news, .bgTaskExpired(refresh)),
            .trace(news, .taskExpire(identifier: sync)),
            .noteTaskHistory(news, sync, "expired: its time is running out"),
            .setAssertion(news, .scheduledTask, true),
            .processingTaskEnded(news, success: false),
            .trace(news, .taskComplete(identifier: sync, success: false)),
            .noteTaskHistory(news, sync, "completed unsuccessfully at expiry: no expiration handler set"),
            .pump(news),
        ])
        // The refresh task still runs, expired, until setTaskCompleted; its deadline ends the app then.
        #expect(t.deadlinePassed(news)?.map(\.identifier) == [refresh])
    }

    @Test("rules §5: the debugger's expiry cuts the budget to the lead time and queues that deadline; the last task completed closes it")
    func expireNowCutsTheBudget() {
        var t = tasks()
        var effects: [Effect] = []
        t.start([PendingTask(app: news, identifier: refresh, request: request(), submittedAt: 0)], for: news,
                why: refresh, simulated: true, now: 0, epoch: 1, budget: Time.seconds(30), leadTime: Time.seconds(5), &effects)
        t.setExpirationHandler(news, refresh, true)
        effects = []
        let expired = t.expireNow(news, because: "_simulateExpirationForTaskWithIdentifier", now: Time.seconds(3),
                                  epoch: 1, leadTime: Time.seconds(5), &effects)
        #expect(expired == 1)
        #expect(effects.first == .schedule(.taskDeadline(news, Ticket(epoch: 1, number: 2)), at: Time.seconds(8)))
        effects = []
        let kind = t.complete(news, refresh, &effects)
        #expect(kind == .appRefresh)
        t.closeBudgetIfDone(news, &effects)
        #expect(effects == [.setAssertion(news, .scheduledTask, false), .markSchedulerDirty(news), .suspendIfThreadFree(news)])
    }

    @Test("rules §5: a task never completed penalises the app; a successful completion forgives one penalty; continued processing neither spaces nor forgives")
    func penalties() {
        var c = scheduler()
        let unfinished = RunningTask(identifier: sync, kind: .processing, started: 0, requiresExternalPower: false)
        c.tasksNeverCompleted(news, [unfinished, unfinished], now: 50)
        #expect(c.apps[0].penalties == 1)
        #expect(c.apps[0].lastProcessingEnd?.success == false)
        #expect(c.taskHistory.count == 2)
        _ = c.taskCompleted(news, refresh, .continuedProcessing, success: true, now: 60)
        #expect(c.apps[0].penalties == 1 && c.apps[0].lastProcessingEnd?.time == 50)
        let done = c.taskCompleted(news, sync, .processing, success: true, now: 70)
        #expect(done == .trace(news, .taskComplete(identifier: sync, success: true)))
        #expect(c.apps[0].penalties == 0)
        #expect(c.apps[0].lastProcessingEnd?.time == 70 && c.apps[0].lastProcessingEnd?.success == true)
    }

    @Test("The scheduler's dump reads the controller alone: pending requests by name, the standing, the next look")
    func dumpWithoutEngine() {
        var c = scheduler()
        _ = c.submit(news, refresh, request(), now: 0, runsTask: false)
        c.wake(news, at: Time.minutes(15))
        let dump = c.dump(of: news, now: Time.minutes(1)) { $0 == refresh ? "com.example.refresh" : "?" }
        #expect(dump.pending == ["com.example.refresh"])
        #expect(dump.nextLook == Time.minutes(15))
        #expect(dump.reputation == 1 && dump.holdsSomething)
    }

    func context(now: Nanoseconds = 0) -> ControllerContext {
        ControllerContext(now: now, wallClockOffset: 0, deviceMemory: 0, locationNeedsOptIn: false)
    }
}
