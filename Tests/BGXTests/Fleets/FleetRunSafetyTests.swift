import Foundation
import Testing

@testable import BGXSimulation

/// What a fleet run tells the person waiting for it — a debug build, a
/// scenario without a population, its progress — and that an interrupted
/// run never leaves a result that looks whole.
@Suite("bgx fleet: warnings, progress, a result absent or complete")
struct FleetRunSafetyTests {
    func temporary() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static let onePerson = """
        seed: 3
        start: 2026-01-05T00:00:00
        duration: 1d
        apps:
          - bundle: com.example.mine
            backgroundModes: [fetch]
        usage:
          - {app: com.example.mine, daily: ["07:30 5m", "12:00 2m", "19:00 3m", "22:00 1m"]}
        timeline:
          - {at: "08:00", user: lock}
          - {at: "09:00", device: {network: wifi}}
          - {at: "10:00", push: {app: com.example.mine, type: background, priority: 5}}
        """

    @Test("a scenario without population: names what every device shares: its usage habits, its timeline")
    func sharedWithoutPopulation() throws {
        let s = try ScenarioParser(file: "mine.yaml").parse(Self.onePerson)
        let w = try #require(SharedWithoutPopulation.warning(s, devices: 2000))
        #expect(w.hasPrefix("warning: mine.yaml: no population: section — each of the 2000 devices"))
        #expect(w.contains("its usage: habits (4 session(s) a day: com.example.mine at 07:30, com.example.mine at 12:00, com.example.mine at 19:00, …)"), "\(w)")
        #expect(w.contains("its timeline's 1 user action(s) (lock at 08:00)"), "\(w)")
        #expect(w.contains("its timeline's 1 device change(s)"), "\(w)")
        #expect(w.contains("its timeline's 1 push(es), sent to every device like a campaign"), "\(w)")
        // With a population: section, no warning.
        let fleet = try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario)
        #expect(SharedWithoutPopulation.warning(fleet, devices: 2000) == nil)
    }

    @Test("docs/scenarios.md's app scenario warns; the fleet scenario it becomes does not, and runs")
    func documentedConversion() throws {
        let page = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/scenarios.md").path, encoding: .utf8)
        let section = try #require(page.components(separatedBy: "### From an app's scenario to a fleet").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let blocks = section.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        #expect(blocks.count == 2)
        guard blocks.count == 2 else { return }
        let app = try ScenarioParser(file: "app.yaml").parse(blocks[0])
        let warning = try #require(SharedWithoutPopulation.warning(app, devices: 100))
        #expect(warning.contains("com.example.colorfeed at 07:30"), "\(warning)")
        #expect(warning.contains("2 user action(s) (unlock at 07:00, lock at 23:00)"), "\(warning)")
        let fleet = try ScenarioParser(file: "fleet.yaml").parse(blocks[1])
        #expect(SharedWithoutPopulation.warning(fleet, devices: 100) == nil)
        #expect(fleet.usage.isEmpty)
        let r = try FleetRun(fleet, devices: 4).run()
        #expect(r.deviceCount == 4)
    }

    @Test("on the command line: the warning on stderr, the fleet still runs")
    func populationWarningOnTheCommandLine() throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = dir.appendingPathComponent("mine.yaml")
        try Self.onePerson.write(to: scenario, atomically: true, encoding: .utf8)
        let r = try CommandLineTests().bgx(["fleet", scenario.path, "--devices", "3", "--out", dir.appendingPathComponent("o").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: \(scenario.path): no population: section"), "\(r.stderr)")
        let news = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: news, atomically: true, encoding: .utf8)
        let quiet = try CommandLineTests().bgx(["fleet", news.path, "--devices", "3", "--out", dir.appendingPathComponent("n").path])
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("population"), "\(quiet.stderr)")
    }

    @Test("a debug build says on stderr that a fleet is about 40 times slower and how to get release")
    func debugBuildWarns() throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let news = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: news, atomically: true, encoding: .utf8)
        let r = try CommandLineTests().bgx(["fleet", news.path, "--devices", "2", "--out", dir.appendingPathComponent("o").path])
        #expect(r.status == 0)
        #if DEBUG
        #expect(r.stderr.contains("debug build: a fleet runs about 40 times slower than in release"), "\(r.stderr)")
        #expect(r.stderr.contains("swift run -c release bgx fleet"), "\(r.stderr)")
        #else
        #expect(!r.stderr.contains("debug build"), "\(r.stderr)")
        #endif
    }

    @Test("progress off a terminal: a line at the start, one every 5 s, one at the end, with rate and time left")
    func progressLines() {
        var p = FleetProgress(total: 100, days: 2, terminal: false, startedAt: 1000)
        #expect(p.line(done: 0, now: 1000) == "fleet: 0/100 devices\n")
        #expect(p.line(done: 10, now: 1004.9) == nil)
        #expect(p.line(done: 10, now: 1005) == "fleet: 10/100 devices, 4 device-days/s, about 45 s left\n")
        #expect(p.line(done: 11, now: 1006) == nil)
        #expect(p.line(done: 60, now: 1030) == "fleet: 60/100 devices, 4 device-days/s, about 20 s left\n")
        #expect(p.line(done: 100, now: 1031) == "fleet: 100/100 devices, 6 device-days/s, about 0 s left\n")
        var slow = FleetProgress(total: 10_000, days: 1, terminal: false, startedAt: 0)
        _ = slow.line(done: 0, now: 0)
        #expect(slow.line(done: 1, now: 3600) == "fleet: 1/10000 devices, 0 device-days/s, about 9999 h 0 min left\n")
    }

    @Test("progress on a terminal: one line rewritten in place twice a second, a newline at the end")
    func progressOnATerminal() {
        var p = FleetProgress(total: 4, days: 1, terminal: true, startedAt: 0)
        #expect(p.line(done: 0, now: 0) == "\rfleet: 0/4 devices   ")
        #expect(p.line(done: 1, now: 0.4) == nil)
        #expect(p.line(done: 2, now: 0.5) == "\rfleet: 2/4 devices, 4 device-days/s, about 1 s left   ")
        #expect(p.line(done: 4, now: 0.6)?.hasSuffix("   \n") == true)
    }

    @Test("every fleet run shows its progress on stderr; the result's bytes are those of a run without progress")
    func progressDoesNotChangeTheResult() throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let news = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: news, atomically: true, encoding: .utf8)
        let r = try CommandLineTests().bgx(["fleet", news.path, "--devices", "6", "--out", dir.appendingPathComponent("cli").path])
        #expect(r.status == 0)
        #expect(r.stderr.contains("fleet: 0/6 devices\n"), "\(r.stderr)")
        #expect(r.stderr.contains("fleet: 6/6 devices, "), "\(r.stderr)")
        let s = try ScenarioParser(file: news.path).parse(fleetNewsScenario)
        try FleetRun(s, devices: 6).run().write(to: dir.appendingPathComponent("quiet").path)
        for name in FleetResult.fileNames {
            #expect(try Data(contentsOf: dir.appendingPathComponent("cli/\(name)"))
                    == Data(contentsOf: dir.appendingPathComponent("quiet/\(name)")), "\(name)")
        }
    }

    struct Interrupted: Error {}

    @Test("a new output directory interrupted after any file is absent; written whole, it is complete")
    func newDirectoryAbsentOrComplete() throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario)
        let result = try FleetRun(s, devices: 2).run()
        let out = dir.appendingPathComponent("out")
        for stop in FleetResult.fileNames {
            #expect(throws: Interrupted.self) {
                try result.write(to: out.path) { if $0 == stop { throw Interrupted() } }
            }
            #expect(!FileManager.default.fileExists(atPath: out.path), "stopped after \(stop): the output exists")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "a temporary was left")
        }
        try result.write(to: out.path)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: out.path)) == Set(FleetResult.fileNames))
        #expect(try FleetResult.read(directory: out.path).json == result.json)
    }

    @Test("an existing directory (a Dask driver's, with its shards) interrupted keeps its old result whole; replaced, the new one")
    func existingDirectoryOldOrNew() throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario)
        let old = try FleetRun(s, devices: 2).run(), new = try FleetRun(s, devices: 3).run()
        try old.write(to: dir.path)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("shards"), withIntermediateDirectories: true)
        for stop in FleetResult.fileNames {
            #expect(throws: Interrupted.self) {
                try new.write(to: dir.path) { if $0 == stop { throw Interrupted() } }
            }
            #expect(try FleetResult.read(directory: dir.path).json == old.json)
            for (name, text) in zip(FleetResult.fileNames, [old.json, old.arrivalsCSV, old.delaysCSV, old.reasonsCSV, old.populationCSV]) {
                #expect(try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) == text, "\(name)")
            }
            #expect(try Set(FileManager.default.contentsOfDirectory(atPath: dir.path))
                    == Set(FleetResult.fileNames + ["shards"]), "a temporary was left")
        }
        try new.write(to: dir.path)
        #expect(try FleetResult.read(directory: dir.path).json == new.json)
        #expect(try String(contentsOf: dir.appendingPathComponent("arrivals.csv"), encoding: .utf8) == new.arrivalsCSV)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: dir.path)) == Set(FleetResult.fileNames + ["shards"]))
    }

    @Test("a fleet process killed mid-run leaves no output directory")
    func killedMidRun() throws {
        let exe = try #require(CommandLineTests.executable)
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let news = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: news, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let process = Process()
        process.executableURL = exe
        process.arguments = ["fleet", news.path, "--devices", "100000", "--out", out.path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Killed once it says it has started (its first progress line), while it runs.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("fleet: 0/100000 devices") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(String(decoding: seen, as: UTF8.self).contains("fleet: 0/100000 devices"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
