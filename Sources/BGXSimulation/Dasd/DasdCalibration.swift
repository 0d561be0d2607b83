import BGXCore
import Foundation
import Yams

/// One case of the calibration set (`Calibration/dasd/<case>/`): a decision
/// a developer posted from a device's dasd log (`case.yaml`: the source, the
/// log lines, the moment to judge, whether it counts) and a bgx scenario of
/// that moment (`scenario.yaml`).
public struct DasdCalibrationCase: Sendable {
    public var name: String
    public var source: String
    public var counted: Bool
    public var uncounted: String?
    public var logged: DasdLog.Decision
    public var at: String
    public var bundle: String
    public var task: String?
    public var scenarioPath: String

    /// Reads `folder/case.yaml`; throws `ScenarioError`-style messages for a malformed case.
    public static func load(folder: String) throws -> DasdCalibrationCase {
        let path = folder + "/case.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let map = try Yams.load(yaml: text) as? [String: Any] else { throw CalibrationError("\(path): not a mapping") }
        func string(_ key: String) throws -> String {
            guard let v = map[key] else { throw CalibrationError("\(path): missing '\(key)'") }
            return "\(v)"
        }
        guard let judge = map["judge"] as? [String: Any], let at = judge["at"].map({ "\($0)" }),
              let bundle = judge["app"].map({ "\($0)" }) else {
            throw CalibrationError("\(path): 'judge' needs at and app")
        }
        var log = try string("log")
        // A quote without its final line: the case states the outcome the source reports.
        if let final = map["final"], !log.contains("FinalDecision:") { log += "\n ], FinalDecision: \(final)}" }
        let parsed = DasdLog(text: log)
        guard parsed.decisions.count == 1, parsed.skipped == 0, let logged = parsed.decisions.first else {
            throw CalibrationError("\(path): the log holds \(parsed.decisions.count) decisions (\(parsed.skipped) skipped), not one")
        }
        return DasdCalibrationCase(name: (folder as NSString).lastPathComponent, source: try string("source"),
                                   counted: map["counted"] as? Bool ?? false, uncounted: map["uncounted"].map { "\($0)" },
                                   logged: logged, at: at, bundle: bundle, task: judge["task"].map { "\($0)" },
                                   scenarioPath: folder + "/scenario.yaml")
    }

    /// Runs the case's scenario to the moment and lays bgx's decision beside the log's.
    public func compare() throws -> DasdComparison {
        let parts = at.split(separator: ":").compactMap { Int($0) }
        guard parts.count >= 2 else { throw CalibrationError("\(name): 'at' must be HH:MM[:SS], got '\(at)'") }
        let seconds = parts[0] * 3600 + parts[1] * 60 + (parts.count > 2 ? parts[2] : 0)
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: scenarioPath))
        guard let mine = run.dasdDecision(atSecondsOfDay: seconds, bundle: bundle, task: task) else {
            throw CalibrationError("\(name): at \(at) bgx has no decision about \(task ?? "a push to " + bundle)")
        }
        return DasdComparison(logged: logged, bgx: mine)
    }
}

public struct CalibrationError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The calibration set's agreement, over the counted cases.
public struct DasdCalibrationReport: Sendable {
    public var results: [(case: DasdCalibrationCase, comparison: DasdComparison)] = []

    public init(folder: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            FileManager.default.fileExists(atPath: folder + "/" + $0 + "/case.yaml")
        }.sorted()
        for name in names {
            let c = try DasdCalibrationCase.load(folder: folder + "/" + name)
            results.append((c, try c.compare()))
        }
    }

    var counted: [DasdComparison] { results.filter { $0.case.counted }.map(\.comparison) }
    public var countedCases: Int { counted.count }
    public var finalAgreeing: Int { counted.filter(\.finalAgrees).count }
    public var decidingAgreeing: Int { counted.filter(\.decidingAgrees).count }
    public var policiesLogged: Int { counted.reduce(0) { $0 + $1.rows.count } }
    public var policiesAgreeing: Int { counted.reduce(0) { $0 + $1.policiesAgreeing } }

    static func percent(_ a: Int, _ b: Int) -> Int { b == 0 ? 0 : Int((Double(a) * 100 / Double(b)).rounded()) }
    public var finalPercent: Int { Self.percent(finalAgreeing, countedCases) }
    public var decidingPercent: Int { Self.percent(decidingAgreeing, countedCases) }
    public var policyPercent: Int { Self.percent(policiesAgreeing, policiesLogged) }

    /// The line the README carries.
    public var summary: String {
        "\(results.count) logged decisions, \(countedCases) counted: final decision \(finalAgreeing)/\(countedCases) "
            + "(\(finalPercent) %), deciding policy \(decidingAgreeing)/\(countedCases) (\(decidingPercent) %), "
            + "policy verdicts \(policiesAgreeing)/\(policiesLogged) (\(policyPercent) %)"
    }

    /// Every case, one block each: what the device logged beside bgx.
    public var text: String {
        var out = summary + "\n"
        for (c, comparison) in results {
            out += "\n\(c.name)\(c.counted ? "" : " (not counted: \(c.uncounted ?? "the log omits the deciding fact"))")\n"
            out += comparison.text
        }
        return out
    }
}
