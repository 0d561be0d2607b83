import ArgumentParser
import BGXCore
import BGXSimulation
import Foundation

/// `bgx fleet`: many devices, each with a person sampled from the
/// scenario's `population:`, and what their background work does to a backend.
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a fleet of devices sampled from a scenario's population; merge shards; draw the report.",
        discussion: """
            bgx fleet SCENARIO --devices N [--days D] [--shard I/K] --out DIR runs devices (shard I of K runs \
            devices N·I/K up to N·(I+1)/K) and writes DIR/fleet.json, arrivals.csv, delays.csv, reasons.csv \
            and population.csv. bgx fleet merge DIR… --out DIR adds shards; bgx fleet report DIR --html FILE \
            draws one self-contained HTML file; bgx fleet compare A B sets two results side by side; \
            bgx fleet plan SCENARIO --devices N --shards K --out DIR writes a Kubernetes Indexed Job \
            (--image, --claim) and a Slurm job array that run the shards; bgx fleet loadtest DIR --scenario SCENARIO \
            --host URL --compress F [--devices N] [--window HH:MM-HH:MM] [--users U] [--locust PATH] --out DIR replays \
            the arrivals against an HTTP server with Locust.
            """,
        subcommands: [FleetRunCommand.self, FleetMerge.self, FleetReportCommand.self, FleetCompare.self, FleetPlanCommand.self,
                      FleetLoadTestCommand.self],
        defaultSubcommand: FleetRunCommand.self)
}

struct FleetRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the fleet's devices (all, or one shard) and write the results.")
    @Argument(help: "The scenario file (its population: section, or the documented defaults).") var scenario: String
    @Option(help: "How many devices the whole fleet has.") var devices: Int
    @Option(help: "How many days each device runs (default: the scenario's duration).") var days: Int?
    @Option(help: "Run only shard I of K (I from 0), e.g. 2/8.") var shard: String?
    @Option(help: "The directory to write the results into.") var out: String

    func run() throws {
        guard devices > 0, devices <= 100_000_000 else { throw fail("error: --devices must be between 1 and 100000000") }
        if let days, !(1...366).contains(days) { throw fail("error: --days must be between 1 and 366") }
        var part = (index: 0, count: 1)
        if let shard {
            let p = shard.split(separator: "/")
            guard p.count == 2, let i = Int(p[0]), let k = Int(p[1]), k > 0, i >= 0, i < k else {
                throw fail("error: --shard must be I/K with 0 ≤ I < K, like 2/8; got '\(shard)'")
            }
            part = (i, k)
        }
        let s = try loadScenario(scenario)
        let fleet: FleetRun
        do { fleet = try FleetRun(s, devices: devices, days: days, shard: part) } catch let error as ScenarioError {
            throw fail(error.description)
        }
        warnIfDebugBuild()
        if let warning = SharedWithoutPopulation.warning(s, devices: devices) { standardError(warning + "\n") }
        let total = fleet.range.count
        let started = ProcessInfo.processInfo.systemUptime
        var progress = FleetProgress(total: total, days: fleet.sampler.days, terminal: isatty(2) == 1, startedAt: started)
        if let line = progress.line(done: 0, now: started) { standardError(line) }
        let result: FleetResult
        do {
            result = try fleet.run { done in
                if let line = progress.line(done: done, now: ProcessInfo.processInfo.systemUptime) { standardError(line) }
            }
        } catch let error as ScenarioError {
            throw fail(error.description)
        }
        try result.write(to: out)
        let seconds = ProcessInfo.processInfo.systemUptime - started
        let rate = seconds > 0 ? Double(total * fleet.sampler.days) / seconds : 0
        print("fleet: devices \(fleet.range.lowerBound)..<\(fleet.range.upperBound) of \(devices), "
              + "\(fleet.sampler.days) day(s) each, in \(String(format: "%.1f", seconds)) s "
              + "(\(Int(rate.rounded())) device-days/s) → \(out)")
    }
}

func standardError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

/// A debug build runs a fleet about 40 times slower than release (the
/// engine's inner loops unoptimised); it says so, and how to get the fast one.
func warnIfDebugBuild() {
    #if DEBUG
    standardError("""
        warning: this bgx is a debug build: a fleet runs about 40 times slower than in release. \
        Run the release build: swift run -c release bgx fleet … (or swift build -c release, \
        then .build/release/bgx fleet …)

        """)
    #endif
}

struct FleetMerge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge", abstract: "Add fleet results (shards) into one, in any order.")
    @Argument(help: "Directories written by bgx fleet.") var directories: [String]
    @Option(help: "The directory to write the results into.") var out: String

    func run() throws {
        guard !directories.isEmpty else { throw fail("error: name at least one fleet output directory") }
        var merged: FleetResult?
        for d in directories {
            let r: FleetResult
            do { r = try FleetResult.read(directory: d) } catch let error as ScenarioError { throw fail(error.description) }
            if merged == nil { merged = r; continue }
            do { try merged!.merge(r) } catch let error as FleetResult.MergeError {
                throw fail("error: \(d): \(error.description)")
            }
        }
        try merged!.canonical.write(to: out)
        print("fleet merge: \(merged!.deviceCount) of \(merged!.fleetDevices) devices → \(out)")
    }
}

struct FleetReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Draw a fleet result as one self-contained HTML file.")
    @Argument(help: "A directory written by bgx fleet or bgx fleet merge.") var directory: String
    @Option(help: "The HTML file to write.") var html: String

    func run() throws {
        let r: FleetResult
        do { r = try FleetResult.read(directory: directory) } catch let error as ScenarioError { throw fail(error.description) }
        try Data(FleetReport(r).html.utf8).write(to: URL(fileURLWithPath: html))
        print("fleet report: \(r.deviceCount) devices → \(html)")
    }
}

struct FleetCompare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Set two fleet results side by side: load, staleness, delivery.")
    @Argument(help: "The first result's directory.") var first: String
    @Argument(help: "The second result's directory.") var second: String

    func run() throws {
        let a: FleetResult, b: FleetResult
        do {
            a = try FleetResult.read(directory: first)
            b = try FleetResult.read(directory: second)
        } catch let error as ScenarioError { throw fail(error.description) }
        print(FleetComparison(a, b, names: (first, second)).text, terminator: "")
    }
}

struct FleetPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Write a Kubernetes Indexed Job and a Slurm job array that run a fleet's shards.")
    @Argument(help: "The scenario file.") var scenario: String
    @Option(help: "How many devices the whole fleet has.") var devices: Int
    @Option(help: "How many days each device runs (default: the scenario's duration).") var days: Int?
    @Option(help: "How many shards (Kubernetes completions, Slurm array tasks).") var shards: Int
    @Option(help: "Kubernetes: the container image with bgx on its PATH.") var image = "bgx"
    @Option(help: "Kubernetes: the persistent volume claim mounted at /fleet, holding the scenario.") var claim = "bgx-fleet"
    @Option(help: "The directory to write fleet-job.yaml and fleet-slurm.sh into.") var out: String

    func run() throws {
        guard devices > 0, devices <= 100_000_000 else { throw fail("error: --devices must be between 1 and 100000000") }
        guard shards > 0, shards <= 100_000 else { throw fail("error: --shards must be between 1 and 100000") }
        if let days, !(1...366).contains(days) { throw fail("error: --days must be between 1 and 366") }
        _ = try loadScenario(scenario)  // a plan for a scenario that does not parse would fail on every node
        warnIfDebugBuild()  // the plan's jobs run this executable
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let outURL = URL(fileURLWithPath: out, relativeTo: here).standardizedFileURL
        let plan = FleetPlan(
            scenario: URL(fileURLWithPath: scenario, relativeTo: here).standardizedFileURL.path,
            devices: devices, days: days, shards: shards, image: image, claim: claim,
            bgx: Bundle.main.executableURL?.resolvingSymlinksInPath().path ?? "bgx",
            results: outURL.appendingPathComponent("shards").path)
        try FileManager.default.createDirectory(at: outURL, withIntermediateDirectories: true)
        try Data(try plan.kubernetesJob().utf8).write(to: outURL.appendingPathComponent("fleet-job.yaml"))
        let slurm = outURL.appendingPathComponent("fleet-slurm.sh")
        try Data(plan.slurmScript.utf8).write(to: slurm)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: slurm.path)
        print("fleet plan: \(shards) shards of \(devices) devices → \(out)/fleet-job.yaml (kubectl apply -f), "
              + "\(out)/fleet-slurm.sh (sbatch); then bgx fleet merge the shards")
    }
}
