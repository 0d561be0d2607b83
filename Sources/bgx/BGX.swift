import ArgumentParser
import BGXCore
import BGXSimulation
import Foundation

@main
struct BGX: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgx",
        abstract: "The iOS background-execution system, simulated in virtual time.",
        discussion: exitCodes + "\n\nShell completion: bgx --generate-completion-script bash|zsh|fish",
        version: "bgx \(version)",
        subcommands: [Run.self, Demo.self, Explain.self, Check.self, PluginCommand.self, Init.self, Bench.self,
                      DasdLogCommand.self, Daemon.self, Ctl.self, Fleet.self])

    static let version = "0.1.0"
    /// What every command's exit status means, for `--help`.
    static let exitCodes = """
        Exit codes: 0 the command ran (and every expectation held); 1 an expectation failed \
        (run, demo) or the manifests have errors (check); 2 bad input (a file or a command line bgx cannot use).
        """

    /// ArgumentParser's own `main`, except that a command line it cannot
    /// use is bad input like any other (docs/cli.md, exit codes): `error: message` on
    /// stderr and exit code 2, not its usage exit code 64. Help, and the
    /// exit codes the commands choose, pass through unchanged.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let usage = fullMessage(for: error)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .filter { $0.hasPrefix("Usage:") }
            let words = message(for: error)
            var text = "error: \(words.prefix(1).lowercased() + words.dropFirst())\n"
            if let line = usage.first { text += line + "\n" }
            FileHandle.standardError.write(Data(text.utf8))
            Foundation.exit(2)
        }
    }
}

/// Bad input: `error: FILE:LINE:COLUMN: message` on stderr, exit code 2.
struct InputError: Error {}

func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    return ExitCode(2)
}

/// Reads a scenario file, or standard input for `-` (its errors then say `<stdin>:LINE:COL`).
func loadScenario(_ path: String) throws -> Scenario {
    do {
        guard path == "-" else {
            noteIfLargeInDebugBuild(path)
            return try ScenarioParser.parse(contentsOf: path)
        }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(data: data, encoding: .utf8) else {
            throw fail("error: <stdin>:1:1: the input is not UTF-8 text")
        }
        return try ScenarioParser(file: "<stdin>").parse(text)
    } catch let error as ScenarioError {
        throw fail(error.description)
    }
}

/// Reading and running a scenario of megabytes is slow in a debug build (the
/// YAML library and the engine unoptimised): it says so, and how to get the fast one.
func noteIfLargeInDebugBuild(_ path: String) {
    #if DEBUG
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    guard size >= 2_000_000 else { return }
    standardError("""
        note: this bgx is a debug build, which reads and runs a scenario of \(size / 1_000_000) MB several times \
        slower than release: swift run -c release bgx …

        """)
    #endif
}

/// Where words for people go: standard output — or standard error when
/// standard output carries the trace, which then holds JSON Lines only.
struct Console {
    var toStandardError = false
    func say(_ text: String = "", terminator: String = "\n") {
        if toStandardError {
            FileHandle.standardError.write(Data((text + terminator).utf8))
        } else {
            print(text, terminator: terminator)
        }
    }
}

/// Runs a scenario and prints what `bgx run` prints. Returns false when an
/// expectation failed. With the trace on standard output, everything else
/// goes to standard error.
func runScenario(_ scenario: Scenario, seed: UInt64?, tracePath: String?, json: Bool, report: String?,
                 narrate: Bool = false) throws -> Bool {
    let run: ScenarioRun
    do {
        run = try ScenarioRun(scenario, seed: seed)
    } catch let error as ScenarioError {
        throw fail(error.description)
    }
    var traceHandle: FileHandle?
    var traceToStdout = false
    if let path = tracePath {
        if path == "-" {
            traceToStdout = true
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let handle = FileHandle(forWritingAtPath: path) else {
                throw fail("error: \(path):1:1: cannot write the trace file")
            }
            traceHandle = handle
        }
    }
    // Stream the trace as it is made: a long run never holds it twice.
    if traceHandle != nil || traceToStdout {
        let device = run.device
        // Unowned: the device keeps its sink, so a strong capture would keep the device forever.
        device.traceSink = { [unowned device] events in
            let r = device.renderer
            var chunk = ""
            for e in events { chunk += r.jsonLine(e); chunk += "\n" }
            if let h = traceHandle { h.write(Data(chunk.utf8)) } else { print(chunk, terminator: "") }
        }
    }
    // A long run says how far it has come on stderr (nothing for one that ends within two seconds).
    var progress = RunProgress(duration: scenario.duration, terminal: isatty(2) == 1,
                               startedAt: ProcessInfo.processInfo.systemUptime)
    var reached: Nanoseconds = 0
    while reached < scenario.duration {
        reached = min(scenario.duration, reached + Time.days(1))
        run.run(until: reached)
        if let line = progress.line(simulated: reached, now: ProcessInfo.processInfo.systemUptime) { standardError(line) }
    }
    run.run()
    try? traceHandle?.close()
    if let path = report {
        do {
            try TimelineReport(run: run, seed: seed).html.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw fail("error: \(path):1:1: cannot write the report file")
        }
    }
    let device = run.device
    let summaries = device.summaries()
    let console = Console(toStandardError: traceToStdout)
    if json {
        console.say(try InlineJSONEncoder().encode(RunJSON(run, summaries)))
        return run.passed
    }
    if narrate {
        console.say("What the system decided, and why (every decision, with its reason, is in --trace):")
        let story = DecisionStory(device: device).lines
        for line in story { console.say("  " + line) }
        if story.isEmpty { console.say("  nothing: no app was launched, deferred, refused or killed in the background") }
        console.say()
    }
    console.say("Summary (\(scenario.profile.name) profile, \(Time.describe(scenario.duration)), seed \(seed ?? scenario.seed)):")
    for summary in summaries {
        console.say(summary.text, terminator: "")
        // An app that uses a background plugin: its tasks in the plugin's words.
        if let expansion = scenario.apps.first(where: { $0.manifest.bundleIdentifier == summary.bundleIdentifier })?.pluginExpansion,
           let id = device.app(summary.bundleIdentifier) {
            for line in expansion.summaryLines(events: device.events(of: id), names: device.renderer) { console.say(line) }
        }
    }
    if !run.results.isEmpty {
        console.say("\nExpectations:")
        for r in run.results {
            console.say("  \(r.passed ? "ok  " : "FAIL") \(scenario.file):\(r.expectation.location.line): \(r.message)")
        }
    }
    return run.passed
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a scenario file and print what the system decided and why, a per-app summary and its expectations.",
        discussion: "With --trace -, standard output carries the trace alone (JSON Lines); the story, the summary and "
            + "the expectations go to standard error.\n\n" + BGX.exitCodes)
    @Argument(help: "The scenario file (YAML), or '-' for standard input.") var scenario: String
    @Option(help: "Write the trace as JSON Lines to FILE, or '-' for standard output.") var trace: String?
    @Option(help: "Write the timeline report (HTML) to FILE.") var report: String?
    @Option(help: "Override the scenario's seed.") var seed: UInt64?
    @Flag(help: "Print the summary as JSON.") var json = false
    @Flag(help: "Leave out what the system decided and why: print only the summary and the expectations.") var quiet = false

    func run() throws {
        let s = try loadScenario(scenario)
        if !(try runScenario(s, seed: seed, tracePath: trace, json: json, report: report, narrate: !quiet)) {
            throw ExitCode(1)
        }
    }
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the built-in scenario: ColorFeed and two messaging apps through a week (BGTasks, background tasks, silent pushes).",
        discussion: "With --trace -, standard output carries the trace alone (JSON Lines); the story, the "
            + "summary and the expectations go to standard error.\n\n" + BGX.exitCodes)
    @Option(help: "Write the trace as JSON Lines to FILE, or '-' for standard output.") var trace: String?
    @Option(help: "Write the timeline report (HTML) to FILE.") var report = Self.reportFile
    @Flag(help: "Print the built-in scenario file and exit.") var printScenario = false
    static let reportFile = "bgx-demo.html"

    func run() throws {
        if printScenario { print(BGXSimulation.Demo.scenario); return }
        let scenario: Scenario
        do {
            scenario = try ScenarioParser(file: BGXSimulation.Demo.file).parse(BGXSimulation.Demo.scenario)
        } catch let error as ScenarioError {
            throw fail(error.description)
        }
        let console = Console(toStandardError: trace == "-")
        console.say("bgx demo: the built-in scenario (bgx demo --print-scenario shows it)\n")
        let passed = try runScenario(scenario, seed: nil, tracePath: trace, json: false, report: report,
                                     narrate: true)
        console.say("\nThe timeline report: \(report) (open it in a browser).")
        if !passed { throw ExitCode(1) }
    }
}

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Why a task has or hasn't run, and when it will: each scheduling policy's view at a moment.")
    @Argument(help: "The scenario file (YAML).") var scenario: String
    @Option(help: "The BGTaskScheduler identifier.") var task: String?
    @Option(help: "The app's bundle identifier (found from the task identifier when omitted).") var app: String?
    @Option(help: ArgumentHelp("The moment, written as in the scenario: 14:30, '1d 12:00', 'Tue 09:00' or a duration from the start like 90s (default: the end).",
                               valueName: "moment")) var at: String?
    @Flag(help: "Print JSON.") var json = false
    @Option(help: "'dasd': print each decision in dasd's own log layout, to compare with a device log.") var format: String?

    func run() throws {
        if let format, format != "dasd" { throw fail("error: --format must be 'dasd', got '\(format)'") }
        let s = try loadScenario(scenario)
        guard task != nil || app != nil else { throw fail("error: explain needs --task IDENTIFIER or --app BUNDLE") }
        let run: ScenarioRun
        do { run = try ScenarioRun(s) } catch let error as ScenarioError { throw fail(error.description) }
        var moment = s.duration
        if let at {
            guard let t = Units.moment(at, startOffset: run.startOffset, start: s.start) else {
                throw fail("error: --at '\(at)' is not a moment: write it as in the scenario — 14:30, '1d 12:00', "
                           + "'Tue 09:00' or a duration from the start like 90s (quoted when it has a space)")
            }
            guard t >= 0, t <= s.duration else {
                throw fail("error: --at '\(at)' is outside this run: it runs from \(run.device.engine.clockText(0)) "
                           + "to \(run.device.engine.clockText(s.duration)) (\(Time.describe(s.duration)))")
            }
            moment = t
        }
        let bundle = app ?? task.flatMap { ScenarioRun.app(for: $0, named: nil, in: s) }
        guard let bundle, let appID = run.device.app(bundle) else {
            if let app {
                let guess = Units.nearest(app, in: s.apps.map(\.manifest.bundleIdentifier)).map { "; did you mean '\($0)'?" }
                throw fail("error: no app '\(app)'" + (guess ?? ""))
            }
            let permitted = s.apps.flatMap(\.manifest.permittedTaskIdentifiers)
            let guess = Units.nearest(task ?? "", in: permitted).map { "; did you mean '\($0)'?" }
            throw fail("error: no app permits '\(task ?? "")'" + (guess ?? "; name the app with --app"))
        }
        if let task, let spec = s.apps.first(where: { $0.manifest.bundleIdentifier == bundle }),
           !spec.manifest.permittedTaskIdentifiers.contains(task), spec.manifest.wildcardIdentifier(matching: task) == nil,
           !InfoPlist.usage(of: spec).taskIdentifiers.contains(task),
           let guess = Units.nearest(task, in: spec.manifest.permittedTaskIdentifiers) {
            throw fail("error: \(bundle) does not permit '\(task)'; did you mean '\(guess)'?")
        }
        if format == "dasd" {
            run.run(until: moment)
            let engine = run.device.engine
            print(dasdLayout(engine, appID, task.map { [$0] } ?? engine.taskIdentifiers(of: appID)), terminator: "")
            return
        }
        let explained = run.explain(app: appID, identifiers: task.map { [$0] }, at: moment)
        let explanations = explained.tasks
        if explanations.isEmpty && !json {
            print("\(bundle) permits no BGTaskScheduler identifiers and has submitted none")
        }
        if json && task != nil {
            let encoder = InlineJSONEncoder()
            print(try explanations.count == 1 ? encoder.encode(explanations[0]) : encoder.encode(explanations))
        } else if json {
            // With --app: the tasks and every controller's dump, as data.
            let engine = run.device.engine
            print(try explainedAppJSON(bundle: bundle, at: engine.clockText(moment), explained, clockText: engine.clockText))
        } else {
            // A plugin's task: first in the plugin's words, then iOS's reason beneath.
            let expansion = s.apps.first { $0.manifest.bundleIdentifier == bundle }?.pluginExpansion
            print(explanations.map { e in
                expansion?.headline(e).map { $0 + "\n" + e.text } ?? e.text
            }.joined(separator: "\n"), terminator: "")
            // With --app: each controller's section — transfers, pushes, fetch, launches, … (its dump in words).
            if task == nil {
                var shown = !explanations.isEmpty
                for section in explained.sections {
                    print((shown ? "\n" : "") + section.text, terminator: "")
                    shown = true
                }
            }
        }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lint app manifests: an Info.plist, or every app of a scenario file.")
    @Argument(help: "Info.plists (XML) or scenario files (YAML); each is checked in turn.") var files: [String]

    /// Each file in turn, as `bgx check Scenarios/*.yaml` is what one types: a file
    /// bgx cannot read is reported and the rest still checked; the exit code is the
    /// worst — 2 for bad input, else 1 for a manifest error.
    func run() throws {
        var worst: Int32 = 0
        for file in files {
            do {
                if try !check(file) { worst = max(worst, 1) }
            } catch let code as ExitCode {
                worst = max(worst, code.rawValue)
            }
        }
        if worst != 0 { throw ExitCode(worst) }
    }

    /// Prints the file's findings; false when one is an error.
    func check(_ file: String) throws -> Bool {
        var findings: [ManifestFinding] = []
        var notes: [String] = []
        if file.hasSuffix(".plist") {
            let manifest: AppManifest
            var notYetSupported: [ScenarioError] = []
            do { manifest = try InfoPlist.read(file, notYetSupported: &notYetSupported) } catch let error as ScenarioError {
                throw fail(error.description)
            }
            findings = ManifestCheck.check(manifest, usage: ManifestUsage(known: false))
            notes = notYetSupported.map { "note: \($0.location): \($0.message)" }
        } else {
            let scenario = try loadScenario(file)
            (findings, notes) = ScenarioCheck.findings(scenario)
        }
        for f in findings { print(f.description) }
        for n in notes { print(n) }
        let errors = findings.filter { $0.severity == .error }.count
        print(findings.isEmpty ? "\(file): no problems found"
              : "\(file): \(errors) error(s), \(findings.count - errors) warning(s)")
        return errors == 0
    }
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the engine's throughput against a bare heap loop, in one run.")
    @Flag(help: "Print the result as JSON.") var json = false
    @Option(help: "How many engine events to run.") var events = 2_000_000
    @Option(help: "How many synthetic apps.") var apps = 300
    @Option(help: "How many runs of the demo week for the device-days measure.") var deviceRuns = 200
    @Option(help: "How many rounds of each measure; the fastest counts, all are shown.") var rounds = 3
    @Flag(help: "Instead: parse, check and run a generated scenario of 4 096 and 65 536 apps, and compare their times.")
    var scale = false

    func run() throws {
        guard events > 0, apps > 0, deviceRuns > 0, rounds > 0 else {
            throw fail("error: --events, --apps, --device-runs and --rounds must be positive")
        }
        // The CPU time of this thread, not the wall clock: "on one core" is
        // what is measured, and another process on the machine (a build, a
        // CI neighbour) does not count against bgx. On an idle machine the two agree.
        let measure: (() -> Void) -> Double = { body in
            func cpuSeconds() -> Double {
                var t = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
                return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
            }
            let start = cpuSeconds()
            body()
            return cpuSeconds() - start
        }
        if scale {
            let result: ScaleBenchmark.Result
            do { result = try ScaleBenchmark.run(measure: measure) } catch let error as ScenarioError {
                throw fail(error.description)
            }
            print(json ? result.json : result.text)
            return
        }
        let result = Benchmark.run(events: events, apps: apps, rounds: rounds, measure: measure)
        let days = try Benchmark.deviceDays(runs: deviceRuns, rounds: rounds, measure: measure)
        if json {
            print(Benchmark.json(result, deviceDays: days))
        } else {
            print(result.text)
            print("demo device:   \(Int(days.perSecond.rounded())) simulated device-days/s "
                  + "(\(Int(days.days)) days of the ColorFeed week, \(days.traceEvents) trace events, "
                  + "\(days.evaluationsPerRun) scheduler evaluations a week; rounds "
                  + "\(days.rounds.map { String(Int((days.days / $0).rounded())) }.joined(separator: ", ")), the fastest counts)")
        }
    }
}
