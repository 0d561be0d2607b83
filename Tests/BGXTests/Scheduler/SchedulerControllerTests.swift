@testable import BGXCore
import Testing

/// A judgement that holds the request back (`key`, the policies of `mustNot`), due to change at `next`.
private func held(by key: DecisionKey, mustNot: UInt32 = 0, next: Nanoseconds? = nil) -> Judgement {
    Judgement(run: false, score: 0, threshold: 1, key: key, nextChange: next, mustNotMask: mustNot,
                     weightedSum: 0, totalWeight: 0)
}

/// rules §5, §6's scheduler controller on its own: no engine, no device —
/// when it looks again, which apps it judges, what it keeps of an app.
@Suite struct SchedulerControllerTests {
    let news = AppID(index: 0)
    let mail = AppID(index: 1)

    func controller() -> SchedulerController {
        var c = SchedulerController(settings: SchedulerSettings())
        c.appInstalled(usageDays: 7)
        c.appInstalled(usageDays: 7)
        return c
    }

    @Test("An app the scheduler holds nothing of is not judged again when something happens to it; one running a task is")
    func onlyAppsInHandAreMarked() {
        var c = controller()
        c.markDirty(news, running: false)
        #expect(c.dirtyApps.isEmpty)
        c.markDirty(news, running: true)
        #expect(c.dirtyApps.contains(news.index))
    }

    func submit(_ c: inout SchedulerController, _ app: AppID, _ name: Int32, kind: BGTaskKind = .appRefresh) -> UInt64 {
        _ = c.submit(app, TextID(index: name), TaskRequestSpec(identifier: "task\(name)", kind: kind), now: 0,
                     runsTask: false)
        return c.pendingTasks.serial(of: app, TextID(index: name))!
    }

    @Test("rules §6: a deferral is news only when what holds the request back changes; time alone wakes the scheduler then")
    func deferralTracedWhenItsReasonChanges() {
        var c = controller()
        let s = submit(&c, news, 1)
        let networkBit = UInt32(1) << UInt32(SchedulingPolicy.networkQuality.index)
        let first = c.judged(s, held(by: .mustNot(.networkQuality), mustNot: networkBit, next: Time.minutes(15)), now: 10)
        #expect(first)
        #expect(c.pendingTasks[s].blockedSince[SchedulingPolicy.networkQuality.index] == 10)
        #expect(c.wakeAt[news.index] == Time.minutes(15))
        let same = c.judged(s, held(by: .mustNot(.networkQuality), mustNot: networkBit), now: 20)
        #expect(!same)
        #expect(c.pendingTasks[s].blockedSince[SchedulingPolicy.networkQuality.index] == 10)
        let other = c.judged(s, held(by: .waits(nil)), now: 30)
        #expect(other)
        #expect(c.pendingTasks[s].blockedSince[SchedulingPolicy.networkQuality.index] == nil)
    }

    @Test("rules §6: a request that may run is no deferral and queues no wake")
    func runningIsNoDeferral() {
        var c = controller()
        let s = submit(&c, news, 1)
        var run = held(by: .ran(nil), next: Time.minutes(5))
        run.run = true
        let traced = c.judged(s, run, now: 10)
        #expect(!traced)
        #expect(c.wakeAt[news.index] == nil)
    }

    @Test("rules §5: the requests chosen together launch once per app, apps in index order, each app's tasks in the order judged")
    func oneLaunchPerApp() {
        var c = controller()
        let a = submit(&c, mail, 1), b = submit(&c, news, 2), d = submit(&c, mail, 3, kind: .processing)
        let launches = c.takeForLaunch([a, b, d])
        #expect(launches.map(\.app) == [news, mail])
        #expect(launches.map(\.first) == [1, 0])
        #expect(launches[1].tasks.map(\.identifier) == [TextID(index: 1), TextID(index: 3)])
        #expect(c.pendingTasks.isEmpty)
    }

    @Test("rules §6: an app's fetch opportunity comes an interval after its last fetch, or its first use; none while one is in flight")
    func fetchOpportunity() {
        var c = controller()
        #expect(c.fetchCandidate(news, declaresFetch: true) == nil)
        c.setFetchInterval(news, Time.minutes(30))
        #expect(c.fetchCandidate(news, declaresFetch: false) == nil)
        c.noteUse(news, at: Time.hours(1), wallClockOffset: 0)
        #expect(c.fetchCandidate(news, declaresFetch: true)?.earliest == Time.hours(1) + Time.minutes(30))
        _ = c.fetchStarted(news, now: Time.hours(2))
        #expect(c.fetchCandidate(news, declaresFetch: true) == nil)
    }

    @Test("After a device change every app is judged, so marking one app adds nothing")
    func everythingDirtyMarksNoApp() {
        var c = controller()
        c.judgeEverything()
        c.markDirty(news, running: true)
        #expect(c.dirtyApps.isEmpty)
    }

    @Test("Only an app's earliest wake is kept, and one scheduler wake is queued, for the earliest of all apps")
    func earliestWakeOnly() {
        var c = controller()
        c.wake(news, at: Time.minutes(10))
        c.wake(news, at: Time.minutes(20))
        #expect(c.wakeAt[news.index] == Time.minutes(10))
        c.wake(mail, at: Time.minutes(5))
        let first = c.nextWake()
        #expect(first == .schedule(.schedulerWake(generation: 1), at: Time.minutes(5)))
        // Already queued for that moment: no second event.
        let again = c.nextWake()
        #expect(again == nil)
        #expect(c.wake == Time.minutes(5))
    }

    @Test("With no wake left the scheduler has nothing queued")
    func noWakeNoEvent() {
        var c = controller()
        let wake = c.nextWake()
        #expect(wake == nil)
        #expect(c.wake == nil)
    }

    @Test("rules §6: fetch apps are judged in the order they set an interval; setting it to never removes the app")
    func fetchCandidatesKeepTheirOrder() {
        var c = controller()
        c.setFetchInterval(mail, Time.minutes(30))
        c.setFetchInterval(news, Time.minutes(15))
        #expect(c.fetchApps == [mail, news])
        #expect(c.fetchRank[mail.index] == 0 && c.fetchRank[news.index] == 1)
        #expect(c.dirtyApps.contains(mail.index) && c.dirtyApps.contains(news.index))
        c.setFetchInterval(mail, nil)
        #expect(c.fetchApps == [news])
        #expect(c.fetchRank[mail.index] == nil)
        #expect(c.apps[Int(mail.index)].fetchInterval == nil)
        // Setting it again puts the app last.
        c.setFetchInterval(mail, Time.minutes(30))
        #expect(c.fetchApps == [news, mail])
    }

    @Test("rules §6: a process's end ends its fetch in flight; what the scheduler knows of the app stays")
    func processEndKeepsTheKnowledge() {
        var c = controller()
        _ = c.fetchStarted(news, now: 0)
        c.tasksNeverCompleted(news, [], now: 0)
        c.noteUse(news, at: Time.hours(9), wallClockOffset: 0)
        c.processEnded(news)
        #expect(c.apps[0].fetchInFlight == nil)
        #expect(c.apps[0].penalties == 1)
        #expect(c.apps[0].usage.lastUse == Time.hours(9))
    }

    @Test("rules §12: every second awake in the background is energy, counted when the app leaves the background")
    func energyCountsTheStretch() {
        var a = SchedulerAppState(usageDays: 7)
        a.energyStartedAt = Time.hours(1)
        a.stopEnergyClock(now: Time.hours(1) + Time.seconds(40), wallClockOffset: 0)
        #expect(a.energy.spent(at: Time.hours(2)) == Time.seconds(40))
        #expect(a.energyStartedAt == nil)
        // A clock that is not running adds nothing.
        a.stopEnergyClock(now: Time.hours(3), wallClockOffset: 0)
        #expect(a.energy.spent(at: Time.hours(3)) == Time.seconds(40))
        // The budget is per calendar day: the next day starts from nothing.
        #expect(a.energy.spent(at: Time.days(1)) == 0)
    }

    @Test("The request history keeps the newest events, dropping the oldest quarter when it passes 4096")
    func historyIsBounded() {
        var c = controller()
        for k in 0...4096 {
            c.noteHistory(TaskHistoryEntry(time: Nanoseconds(k), app: news, identifier: TextID(index: 0),
                                           event: "deferred", detail: nil, earliest: nil))
        }
        #expect(c.taskHistory.count == 4097 - 1024)
        #expect(c.taskHistory.first?.time == 1024)
        #expect(c.taskHistory.last?.time == 4096)
    }
}

/// rules §6's fetch rules in the scheduler controller: what a fetch is
/// judged, what that does to the app's standing, what a start records.
@Suite struct SchedulerControllerFetchTests {
    let news = AppID(index: 0)
    let settings = SchedulerSettings()

    func controller() -> SchedulerController {
        var c = SchedulerController(settings: settings)
        c.appInstalled(usageDays: 7)
        return c
    }

    @Test("rules §6: newData having fetched nothing is a claim without fetching; awake past two thirds of the fetch time, or over 1 MB, is slow or large; awake within a third is fast")
    func fetchVerdicts() {
        let timeout = settings.fetchTimeout
        func verdict(_ result: BackgroundFetchResult, _ awake: Nanoseconds, bytes: Int64 = 0,
                     fetched: Bool = true) -> FetchVerdict {
            SchedulerController.fetchVerdict(result: result, awake: awake, bytes: bytes, fetchedSomething: fetched,
                                             settings: settings)
        }
        #expect(verdict(.newData, Time.seconds(1), fetched: false) == .claimedWithoutFetching)
        #expect(verdict(.noData, Time.seconds(1), fetched: false) == .fastAndHonest)
        #expect(verdict(.newData, timeout / 3) == .fastAndHonest)
        #expect(verdict(.newData, timeout / 3 + 1) == .ordinary)
        #expect(verdict(.newData, timeout * 2 / 3 + 1) == .slow)
        #expect(verdict(.newData, Time.seconds(1), bytes: settings.fetchLargeBytes) == .fastAndHonest)
        #expect(verdict(.newData, Time.seconds(1), bytes: settings.fetchLargeBytes + 1) == .slow)
    }

    @Test("rules §6: a slow fetch multiplies the reputation by its factor, a fast honest one adds the reward up to 1, and it never falls below the floor")
    func standingMoves() {
        var c = controller()
        c.judgeFetch(news, .slow, took: Time.seconds(25), now: 10, settings: settings)
        #expect(c.apps[0].fetchStanding.reputation == settings.fetchReputationSlowFactor)
        c.judgeFetch(news, .fastAndHonest, took: Time.seconds(2), now: 20, settings: settings)
        #expect(abs(c.apps[0].fetchStanding.reputation - (settings.fetchReputationSlowFactor + settings.fetchReputationReward)) < 1e-12)
        for k in 0..<5 { c.judgeFetch(news, .fastAndHonest, took: Time.seconds(2), now: 30 + Nanoseconds(k), settings: settings) }
        #expect(c.apps[0].fetchStanding.reputation == 1)
        for k in 0..<40 { c.judgeFetch(news, .timedOut, took: Time.seconds(30), now: 40 + Nanoseconds(k), settings: settings) }
        #expect(c.apps[0].fetchStanding.reputation == settings.fetchReputationFloor)
        #expect(c.apps[0].fetchStanding.counts[Int(FetchVerdict.timedOut.rawValue)] == 40)
        #expect(c.apps[0].fetchStanding.last?.at == 79)
    }

    @Test("rules §6: a fetch start puts one fetch in flight, numbered, and counts as the app's last fetch and background launch")
    func fetchStartRecords() {
        var c = controller()
        let changed = c.fetchHeld(news, held(by: .waits(nil)))
        #expect(changed)
        let number = c.fetchStarted(news, now: Time.hours(1))
        #expect(number == 1)
        #expect(c.apps[0].fetchInFlight?.number == 1)
        #expect(c.apps[0].fetchInFlight?.started == Time.hours(1))
        #expect(c.apps[0].lastFetch == Time.hours(1))
        #expect(c.apps[0].lastBackgroundLaunch == Time.hours(1))
        #expect(c.apps[0].fetchDeferKey == nil)
        let second = c.fetchStarted(news, now: Time.hours(2))
        #expect(second == 2)
    }

    @Test("rules §6, §12: waking for background work starts the energy clock once, and over cellular spends a launch of the data budget")
    func wokenForBackgroundWork() {
        var c = controller()
        c.wokeForBackgroundWork(news, now: 100, cellular: false, wallClockOffset: 0)
        c.wokeForBackgroundWork(news, now: 200, cellular: true, wallClockOffset: 0)
        #expect(c.apps[0].energyStartedAt == 100)
        #expect(c.apps[0].cellularLaunches.spent(at: 300) == 1)
    }
}
