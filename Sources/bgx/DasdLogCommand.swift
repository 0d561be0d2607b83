import ArgumentParser
import BGXCore
import BGXSimulation
import Foundation

/// `bgx explain --format dasd`: the moment's decisions as dasd would log them —
/// each pending request of the app, and a background push arriving now.
func dasdLayout(_ engine: Engine, _ app: AppID, _ identifiers: [String]) -> String {
    var out = ""
    for id in identifiers {
        if let d = engine.dasdDecision(app: app, identifier: id) {
            out += d.text
        } else {
            out += "\(id): not pending at \(engine.clockText(engine.now)) (see bgx explain for its history)\n"
        }
    }
    if engine.manifest(app).backgroundModes.contains(.remoteNotification) {
        out += "# a background push arriving now:\n" + engine.dasdPushDecision(app: app).text
    }
    return out
}

/// `bgx dasd-log FILE`: the decisions a developer captured from their phone's
/// dasd (Console, or `log show --predicate 'process == "dasd"'`), and — with
/// `--scenario`, a scenario modelling that day — bgx's decision at the same
/// moments beside them, policy by policy.
struct DasdLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dasd-log",
        abstract: "Read dasd decisions captured from a device; with --scenario, compare each with bgx's at that moment.")
    @Argument(help: "A text file of dasd log lines.") var file: String
    @Option(help: "A scenario modelling that day: bgx judges the same moments.") var scenario: String?
    @Option(help: "Only the decisions about this app (bundle identifier, or a task identifier's prefix).") var app: String?

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw fail("error: \(file): cannot read the file") }
        let text = String(decoding: data, as: UTF8.self)
        let log = DasdLog(text: text)
        let decisions = app.map { log.decisions(for: $0) } ?? log.decisions
        var header = "\(file): \(log.decisions.count) dasd decision\(log.decisions.count == 1 ? "" : "s")"
        if let app { header += ", \(decisions.count) about \(app)" }
        if log.skipped > 0 { header += "; \(log.skipped) malformed or cut off, skipped" }
        print(header)
        guard let scenarioPath = scenario else {
            for d in decisions { print(Self.line(d)) }
            return
        }
        let s = try loadScenario(scenarioPath)
        let run: ScenarioRun
        do { run = try ScenarioRun(s) } catch let error as ScenarioError { throw fail(error.description) }
        var compared = 0, finals = 0, deciding = 0
        for d in decisions {
            print("\n" + Self.line(d))
            guard let seconds = d.secondsOfDay else { print("  (no time on the line: not compared)"); continue }
            guard let subject = run.subject(of: d) else {
                print("  (the scenario has no app or request for \(d.activity.isEmpty ? "this activity" : d.activity): not compared)")
                continue
            }
            guard let mine = run.dasdDecision(atSecondsOfDay: seconds, bundle: subject.bundle, task: subject.task) else {
                print("  (bgx has nothing pending for it at \(d.time ?? "that moment"): not compared)")
                continue
            }
            let c = DasdComparison(logged: d, bgx: mine)
            compared += 1
            if c.finalAgrees { finals += 1 }
            if c.decidingAgrees { deciding += 1 }
            print(c.text, terminator: "")
        }
        print("\nbgx agrees on \(finals) of \(compared) final decisions and \(deciding) of \(compared) deciding policies.")
    }

    /// `09:12:48  bgProcessing-…  Must Not Proceed — CPUUsagePolicy, DeviceActivityPolicy`
    static func line(_ d: DasdLog.Decision) -> String {
        var s = "\(d.time ?? "--:--:--")  \(d.activity.isEmpty ? "(activity not logged)" : d.activity)  \(d.finalDecision)"
        if let score = d.finalScore { s += " \(DasdDecision.fixed(score, 4))" }
        if let run = d.decisionToRun { s += " DecisionToRun:\(run ? 1 : 0)" }
        return s + " — " + d.decidingPolicies.joined(separator: ", ")
    }
}
