@testable import BGXCore
import Testing

/// rules §6's policies asked of the scheduler controller alone: what they
/// read beyond its own state (`SchedulingFacts`) is a plain value here — no
/// engine, no process table, no launch controller.
@Suite struct SchedulingPolicyFactsTests {
    let news = AppID(index: 0)
    let settings = SchedulerSettings()

    struct Facts: SchedulingFacts {
        var now: Nanoseconds = 0
        var wallClockOffset: Nanoseconds = 0
        var device = DeviceState()
        var lockedSince: Nanoseconds?
        var foreground = false
        var processing = 0
        func isForeground(_ app: AppID) -> Bool { foreground }
        func launchRule(_ rule: LaunchPolicy.Rule, _ app: AppID, cause: LaunchCause) -> LaunchRefusal? { nil }
        func processingTasksRunning(_ app: AppID) -> Int { processing }
        func bundleIdentifier(_ app: AppID) -> String { "com.example.news" }
    }

    func scheduler() -> SchedulerController {
        var c = SchedulerController(settings: settings)
        c.appInstalled(usageDays: 7)
        return c
    }

    func candidate(_ kind: Candidate.Kind = .appRefresh, earliest: Nanoseconds = 0) -> Candidate {
        Candidate(app: news, kind: kind, earliest: earliest, submittedAt: 0, requiresNetwork: false, requiresPower: false)
    }

    @Test("rules §6: a request before its earliest begin date is held back by that policy first, and the scheduler looks again at that date")
    func earliestBeginDateHoldsAndWakes() {
        let j = scheduler().decide(candidate(earliest: Time.hours(1)), Facts())
        #expect(!j.run)
        #expect(j.key == .mustNot(.earliestBeginDate))
        #expect(j.nextChange == Time.hours(1))
        #expect(j.mustNotMask & (1 << UInt32(SchedulingPolicy.earliestBeginDate.index)) != 0)
    }

    @Test("rules §6: Low Power Mode holds back a request whose date has come")
    func lowPowerModeVetoes() {
        var facts = Facts(now: Time.hours(2))
        facts.device.lowPowerMode = true
        let j = scheduler().decide(candidate(earliest: Time.hours(1)), facts)
        #expect(j.key == .mustNot(.lowPowerMode))
        let words = scheduler().evaluate(.lowPowerMode, candidate(), facts).rationale
        #expect(words == "Low Power Mode pauses discretionary background work")
    }

    @Test("rules §6: a serious thermal state is dasd's hardest no (Absolutely Must Not Proceed); fair halves the score")
    func thermal() {
        var facts = Facts()
        facts.device.thermal = .serious
        #expect(scheduler().evaluate(.thermal, candidate(), facts).verdict == .absolutelyMustNotProceed)
        facts.device.thermal = .fair
        #expect(scheduler().evaluate(.thermal, candidate(), facts).verdict == .canProceed(0.5))
    }

    @Test("rules §6: ActivityGroupPolicy holds a second processing task while the app's group runs its limit; a refresh is not limited")
    func activityGroup() {
        let busy = Facts(processing: settings.processingGroupLimit)
        let held = scheduler().evaluate(.activityGroup, candidate(.processing), busy)
        #expect(held.verdict == .mustNotProceed)
        #expect(held.rationale == "[{\"com.example.news\".currentAvailableLimit == 0}]")
        #expect(scheduler().evaluate(.activityGroup, candidate(.appRefresh), busy).verdict == .canProceed(1))
        #expect(scheduler().evaluate(.activityGroup, candidate(.processing), Facts()).verdict == .canProceed(1))
    }

    @Test("rules §6: an app in the foreground is not launched into the background for its request")
    func foregroundApp() {
        let outcome = scheduler().evaluate(.application, candidate(), Facts(foreground: true))
        #expect(outcome.verdict == .mustNotProceed)
        #expect(outcome.rationale == "the app is in the foreground")
    }
}
