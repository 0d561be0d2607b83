import BGXCore
import BGXSimulation
import Foundation
import PropertyBased
import Testing

/// `DasdLog` reads the decisions dasd logs, in the layouts developers paste
/// them (Console's columns, syslog lines, Apple's technote wrapping, a quoted
/// policy line), and never crashes on a cut or garbled one.
@Suite("Reading dasd logs")
struct DasdLogTests {
    static let sample = (try? String(contentsOfFile: calibrationFolder + "/sample/dasd.log", encoding: .utf8)) ?? ""

    @Test("Console's columns: the activity, its tag, the time, each policy's weight, decision, score and rationale")
    func consoleLines() throws {
        let log = DasdLog(text: Self.sample)
        #expect(log.decisions.count == 5)
        #expect(log.skipped == 1, "the decision cut off mid-line")
        let cpu = try #require(log.decisions.dropFirst().first)
        #expect(cpu.activity == "bgProcessing-com.example.feed.cleanup")
        #expect(cpu.tag == "B5B340")
        #expect(cpu.time == "09:12:48")
        #expect(cpu.secondsOfDay == 9 * 3600 + 12 * 60 + 48)
        #expect(cpu.policies.map(\.name) == ["CPUUsagePolicy", "DeviceActivityPolicy"])
        #expect(cpu.policies[0].weight == 5)
        #expect(cpu.policies[0].rationale == "[{[Max allowed CPU Usage level]: Required:50.00, Observed:90.00},]")
        #expect(cpu.finalDecision == "Must Not Proceed")
        #expect(!cpu.ran)
        #expect(cpu.decidingPolicies == ["CPUUsagePolicy", "DeviceActivityPolicy"])
        let push = try #require(log.decisions.dropFirst(3).first)
        #expect(push.subject == "com.example.feed")
        #expect(push.sumScores == 93.27)
        #expect(push.denominator == 97.02)
        #expect(push.finalScore == 0.961348)
        #expect(push.ran)
        #expect(push.decidingPolicies == ["DeviceActivityPolicy"])
    }

    @Test("the technote's wrapped layout, spaced policy names, and the CurrentScore line that follows a decision")
    func wrappedLayoutAndThreshold() throws {
        let log = DasdLog(text: """
            default  … 14:14:15.609957 …  dasd
            501:com.apple.coredata.cloudkit.activity.export.A73C42D5:0B1380:
            [{name: Application Policy, policyWeight: 25.000,
            response: {Decision: Can Proceed, Score: 0.60}}
            {name: Device Activity Policy, policyWeight: 2.000,
            response: {Decision: Can Proceed, Score: 0.41}
            }]
            sumScores:60.704720, denominator:71.940000,
            FinalDecision: Can Proceed FinalScore: 0.843824}
            dasd '501:com.apple.coredata.cloudkit.activity.export.A73C42D5:0B1380' CurrentScore: 0.843824, ThresholdScore: 0.909800 DecisionToRun:0
            """)
        #expect(log.skipped == 0)
        let d = try #require(log.decisions.first)
        #expect(d.activity == "com.apple.coredata.cloudkit.activity.export.A73C42D5")
        #expect(d.policies.map(\.name) == ["ApplicationPolicy", "DeviceActivityPolicy"])
        #expect(d.finalScore == 0.843824)
        #expect(d.thresholdScore == 0.9098)
        #expect(d.decisionToRun == false)
        #expect(!d.ran, "Can Proceed on every policy, below the threshold: it did not run")
        #expect(d.decidingPolicies == ["ApplicationPolicy"])
    }

    @Test("a CurrentScore line whose policy block was not copied is a decision of its own, with no policies")
    func scoreLineAlone() throws {
        // e-mission/e-mission-phone#290: the thread quotes a push's score line without its policies.
        let log = DasdLog(text: """
            Sep 30 12:38:43 phone dasd(DuetActivitySchedulerDaemon)[139] <Notice>: 'com.apple.pushLaunch.edu.example:F2252C' CurrentScore: 0.634566, ThresholdScore: 0.465102 DecisionToRun:1
            """)
        #expect(log.skipped == 0)
        let d = try #require(log.decisions.first)
        #expect(log.decisions.count == 1)
        #expect(d.activity == "com.apple.pushLaunch.edu.example" && d.tag == "F2252C")
        #expect(d.policies.isEmpty && d.ran && d.finalDecision == "Can Proceed")
        #expect(d.time == "12:38:43")
        #expect(d.currentScore == 0.634566 && d.thresholdScore == 0.465102)
    }

    @Test("a syslog line (iOS 11), and a policy line quoted without its activity")
    func syslogAndHeadless() throws {
        let log = DasdLog(text: """
            Sep 30 09:00:16 phone dasd(DuetActivitySchedulerDaemon)[139] <Notice>: com.apple.pushLaunch.edu.example:F6F998:[
            \t{name: ApplicationPolicy, policyWeight: 50.000, response: {Decision: Must Not Proceed, Score: 0.00}}
             ], FinalDecision: Must Not Proceed}
            {name: ApplicationPolicy, policyWeight: 50.000, response: {Decision: Absolutely Must Proceed, Score: 1.00, Rationale: [{[appIsForeground]: Required:1.00, Observed:1.00},]}}
             ], FinalDecision: Absolutely Must Proceed}
            """)
        #expect(log.decisions.map(\.activity) == ["com.apple.pushLaunch.edu.example", ""])
        #expect(log.decisions.map(\.finalDecision) == ["Must Not Proceed", "Absolutely Must Proceed"])
        #expect(log.decisions[0].time == "09:00:16")
        #expect(log.decisions[0].policies[0].rationale == "")
        #expect(log.decisions[1].decidingPolicies == ["ApplicationPolicy"])
    }

    @Test("a garbled decision is skipped and counted, the next one still read")
    func garbledSkipped() {
        let log = DasdLog(text: """
            bgRefresh-com.example.a:ABCDEF:[
            \t{name: X, policyWeight: lots, response: {Decision: Maybe, Score: 0.00}}
             ], FinalDecision: Must Not Proceed}
            bgRefresh-com.example.b:ABCDE0:[
             ], FinalDecision: Can Proceed FinalScore: 1.000000}
            """)
        #expect(log.skipped == 1)
        #expect(log.decisions.map(\.activity) == ["bgRefresh-com.example.b"])
    }

    @Test("mutated logs are read or skipped — never a crash, never a decision without a known verdict")
    func mutatedLogsNeverCrash() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max).array(of: 1...8)) { genes in
            let text = ScenarioFuzzTests.mutate(Self.sample, genes: genes)
            let log = DasdLog(text: text)
            for d in log.decisions {
                #expect(!d.finalDecision.isEmpty)
                #expect(d.policies.allSatisfy { !$0.name.isEmpty && $0.score >= 0 })
            }
            #expect(log.decisions.count + log.skipped >= 1 || !text.contains("FinalDecision"))
        }
    }
}
