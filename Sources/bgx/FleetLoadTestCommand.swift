import ArgumentParser
import BGXSimulation
import Foundation

/// `bgx fleet loadtest`: a fleet's arrival curve replayed against a real
/// HTTP server by Locust. bgx writes the schedule and the locustfile, runs
/// `locust --headless` as a child process and reads back what it measured.
struct FleetLoadTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadtest",
        abstract: "Replay a fleet's arrivals per minute by cause against an HTTP server, with Locust.")
    @Argument(help: "A directory written by bgx fleet or bgx fleet merge.") var result: String
    @Option(help: "The fleet's scenario, with the loadtest: section describing each cause's request.") var scenario: String
    @Option(help: "The server, like http://127.0.0.1:8080.") var host: String
    @Option(help: "How many times faster than real time: 144 replays a day in 10 minutes.") var compress: Double
    @Option(help: "How many devices to replay (default: the fleet's own).") var devices: Int?
    @Option(help: "The part of the day to replay, like 06:55-07:10 (default 00:00-24:00).") var window: String?
    @Option(help: "How many requests may be in flight at once (default: the busiest second's requests).") var users: Int?
    @Option(help: "The locust executable (default: locust on PATH).") var locust: String?
    @Option(help: "The directory to write the report, schedule, locustfile and Locust's files into (must not exist).") var out: String

    func run() throws {
        guard compress.isFinite, compress >= 1, compress <= 3600 else { throw fail("error: --compress must be between 1 and 3600") }
        if let devices, !(1...1_000_000_000).contains(devices) { throw fail("error: --devices must be between 1 and 1000000000") }
        if let users, !(1...100_000).contains(users) { throw fail("error: --users must be between 1 and 100000") }
        guard host.hasPrefix("http://") || host.hasPrefix("https://"), URL(string: host)?.host != nil else {
            throw fail("error: --host must be a URL like http://127.0.0.1:8080, got '\(host)'")
        }
        var minutes = (from: 0, to: FleetResult.minutesPerDay)
        if let window {
            guard let w = LoadTestSchedule.window(window) else {
                throw fail("error: --window must be whole minutes like 06:55-07:10, got '\(window)'")
            }
            minutes = w
        }
        let fm = FileManager.default
        guard !fm.fileExists(atPath: out) else {
            throw fail("error: \(out) already exists: a replay writes a new directory (remove it or name another)")
        }
        let fleet: FleetResult
        do { fleet = try FleetResult.read(directory: result) } catch let error as ScenarioError { throw fail(error.description) }
        let s = try loadScenario(scenario)
        guard let loadTest = s.loadTest else {
            throw fail("error: \(scenario):1:1: the scenario has no loadtest: section saying each cause's request "
                       + "(docs/scenarios.md, loadtest:)")
        }
        if URL(fileURLWithPath: scenario).lastPathComponent != fleet.scenario {
            standardError("warning: \(result) is a fleet of \(fleet.scenario), not of \(URL(fileURLWithPath: scenario).lastPathComponent)\n")
        }
        let schedule: LoadTestSchedule
        do {
            schedule = try LoadTestSchedule(fleet, loadTest, devices: devices, compress: compress, window: minutes, users: users)
        } catch let problem as LoadTestSchedule.Problem {
            throw fail("error: \(loadTest.location): \(problem.description)")
        }
        guard let executable = locust.map({ URL(fileURLWithPath: $0).standardizedFileURL }) ?? Self.onPath("locust"),
              fm.isExecutableFile(atPath: executable.path) else {
            throw fail("error: Locust is not yet installed: pip install locust (or name its executable with --locust)")
        }

        // Written under a temporary name beside OUT and renamed into place when whole.
        let target = URL(fileURLWithPath: out).standardizedFileURL
        let parent = target.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        let work = parent.appendingPathComponent(
            "." + target.lastPathComponent + ".partial-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try fm.createDirectory(at: work, withIntermediateDirectories: false)
        var moved = false
        defer { if !moved { try? fm.removeItem(at: work) } }
        try Data(schedule.json.utf8).write(to: work.appendingPathComponent("schedule.json"))
        try Data(LoadTestLocustfile.text.utf8).write(to: work.appendingPathComponent("locustfile.py"))

        let seconds = Double(schedule.minutes.count) * schedule.stageSeconds
        print("fleet loadtest: \(schedule.totalPlanned) requests of \(schedule.app) over \(schedule.minutes.count) minute(s) "
              + "of the day, replayed in \(String(format: "%.0f", seconds)) s against \(host) by \(executable.path) "
              + "(\(schedule.users) users)")
        let log = work.appendingPathComponent("locust.log")
        try Data().write(to: log)
        let logHandle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = executable
        // Run in OUT, so a locust.conf in the caller's directory does not change the test.
        process.currentDirectoryURL = work
        process.arguments = ["--headless", "-f", work.appendingPathComponent("locustfile.py").path, "--host", host,
                             "--csv", work.appendingPathComponent("locust").path, "--only-summary",
                             "--exit-code-on-error", "0"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        process.waitUntilExit()
        try logHandle.close()
        let tally = fm.contents(atPath: work.appendingPathComponent("tally.json").path)
        guard process.terminationStatus == 0, let tally else {
            let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(15) ?? []
            standardError("error: locust exited with status \(process.terminationStatus)"
                          + (tally == nil ? " before the replay's tally was written" : "") + "; the end of its log:\n"
                          + lines.joined(separator: "\n") + "\n")
            throw ExitCode(1)
        }
        let report: LoadTestReport
        do { report = try LoadTestReport(schedule, tally: tally) } catch let problem as LoadTestReport.Problem {
            standardError("error: \(problem.description)\n")
            throw ExitCode(1)
        }
        try Data(report.json.utf8).write(to: work.appendingPathComponent("loadtest.json"))
        try Data(report.causesCSV.utf8).write(to: work.appendingPathComponent("causes.csv"))
        try Data(report.minutesCSV.utf8).write(to: work.appendingPathComponent("minutes.csv"))
        try fm.moveItem(at: work, to: target)
        moved = true
        print(report.text, terminator: "")
        print("→ \(out) (loadtest.json, causes.csv, minutes.csv; Locust's own: locust_stats.csv, locust_failures.csv, locust.log)")
        if report.errorCount > 0 {
            standardError("fleet loadtest: \(report.errorCount) request(s) failed (exit 1)\n")
            throw ExitCode(1)
        }
    }

    static func onPath(_ name: String) -> URL? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
