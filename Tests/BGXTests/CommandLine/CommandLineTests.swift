import Foundation
import Testing

/// The command line's contracts (docs/cli.md), run against the
/// built `bgx` executable.
@Suite("bgx command line")
struct CommandLineTests {
    /// `bgx` sits beside the test bundle in SwiftPM's build folder.
    static let executable: URL? = {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("bgx")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    struct Output { var status: Int32; var stdout: String; var stderr: String }

    func bgx(_ arguments: [String], input: String? = nil, in directory: URL? = nil) throws -> Output {
        let exe = try #require(Self.executable, "the bgx executable was not built beside the tests")
        let process = Process()
        process.executableURL = exe
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        // Standard error is read on another thread: a full pipe must not stall bgx while stdout is read.
        nonisolated(unsafe) var stderr = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            stderr = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    func temporaryFile(_ text: String, _ name: String = "scenario.yaml") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("bgx run prints a summary and exits 0 when every expectation holds")
    func runPasses() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec2-expiry-handled.yaml").path
        let r = try bgx(["run", path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("com.example.uploader"))
        #expect(r.stdout.contains("bg tasks:     1 begun, 1 expired"))
    }

    @Test("bgx run exits 1 when an expectation fails")
    func runFails() throws {
        let path = try temporaryFile("""
        apps: [{bundle: com.example.a}]
        expect: [{kind: launch, app: com.example.a}]
        """)
        let r = try bgx(["run", path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("FAIL"))
    }

    @Test("bad input: error: FILE:LINE:COLUMN: message on stderr, exit 2")
    func badInput() throws {
        let path = try temporaryFile("apps:\n  - bundle: a\n    backgroundMode: [audio]\n")
        let r = try bgx(["run", path])
        #expect(r.status == 2)
        #expect(r.stderr == "error: \(path):3:5: unknown key in an app 'backgroundMode'; did you mean 'backgroundModes'?\n")
        let missing = try bgx(["run", "/nonexistent/scenario.yaml"])
        #expect(missing.status == 2)
        // A file that is not there has no line to point at.
        #expect(missing.stderr == "error: /nonexistent/scenario.yaml: no such file\n")
    }

    @Test("a command line bgx cannot use is bad input too: error: message and the usage on stderr, exit 2; help still exits 0")
    func commandLineMisuse() throws {
        for arguments in [["run"], ["frobnicate"], ["bench", "--events", "-3"], ["run", "x.yaml", "--seed", "many"]] {
            let r = try bgx(arguments)
            #expect(r.status == 2, "\(arguments)")
            #expect(r.stderr.hasPrefix("error: "), "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains("Usage: bgx"), "\(arguments): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let help = try bgx(["run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE") || help.stdout.contains("Usage"))
    }

    @Test("--trace - writes JSON Lines in docs/scenarios.md's trace format, byte-identical run to run")
    func traceToStdout() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec1-launch-and-suspend.yaml").path
        let first = try bgx(["run", path, "--trace", "-"])
        #expect(first.status == 0)
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.contains { $0 == #"{"t": 1200, "app": "com.example.notes", "kind": "state", "from": "background", "to": "suspended", "reason": "no assertions"}"# })
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["t"] is NSNumber && object?["kind"] is String, "\(line)")
        }
        #expect(try bgx(["run", path, "--trace", "-"]).stdout == first.stdout)
    }

    @Test("--json prints the summary as JSON")
    func json() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec2-task-never-ended.yaml").path
        let r = try bgx(["run", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let apps = try #require(object["apps"] as? [[String: Any]])
        #expect((apps.first?["terminations"] as? [String: Int])?["backgroundTaskTimeout"] == 1)
        #expect(object["passed"] as? Bool == true)
    }

    @Test("rules §9: the last features once refused as 'not yet supported' run (a notification's badge)")
    func formerlyUnsupportedRuns() throws {
        let path = try temporaryFile("""
        apps:
          - bundle: com.example.feed
            on:
              didEnterBackground:
                - notify: {id: n, after: 1m, badge: 1}
        timeline: [{at: 1m, user: launch com.example.feed}, {at: 2m, user: home}]
        expect: [{kind: notification.deliver, id: n, badge: 1, between: [3m, 3m]}]
        """)
        let r = try bgx(["run", path])
        #expect(r.status == 0)
        #expect(!r.stderr.contains("not yet supported"))
    }

    @Test("bgx check reports missing modes and identifiers; exit 1 on errors")
    func check() throws {
        let path = try temporaryFile("""
        apps:
          - bundle: com.example.feed
            backgroundModes: [audio]
            on:
              didEnterBackground:
                - submit: {identifier: com.example.feed.refresh, type: appRefresh}
        """)
        let r = try bgx(["check", path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("error: com.example.feed: 'submit' (appRefresh, line 6) needs UIBackgroundModes 'fetch'"))
        #expect(r.stdout.contains("not in BGTaskSchedulerPermittedIdentifiers"))
        #expect(r.stdout.contains("warning: com.example.feed: UIBackgroundModes declares 'audio' but nothing"))
        let clean = try bgx(["check", repositoryRoot.appendingPathComponent("Scenarios/spec2-end-twice.yaml").path])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("no problems found"))
    }

    @Test("bgx check takes several files, as `bgx check Scenarios/*.yaml`: each is checked, and the exit code is the worst")
    func checkSeveralFiles() throws {
        let clean = repositoryRoot.appendingPathComponent("Scenarios/spec2-end-twice.yaml").path
        let erring = repositoryRoot.appendingPathComponent("Scenarios/spec5-identifier-not-permitted.yaml").path
        let both = try bgx(["check", clean, erring])
        #expect(both.status == 1)
        #expect(both.stdout.contains("spec2-end-twice.yaml: no problems found"))
        #expect(both.stdout.contains("spec5-identifier-not-permitted.yaml: 1 error(s)"))
        // A file that is not there is bad input (exit 2), and the files after it are still checked.
        let missing = try bgx(["check", "no-such.yaml", clean])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error: no-such.yaml: no such file"))
        #expect(missing.stdout.contains("spec2-end-twice.yaml: no problems found"))
    }

    @Test("bgx demo runs the built-in scenario and its expectations hold")
    func demo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try bgx(["demo"], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout.contains("backgroundTaskTimeout"))
        #expect(!r.stdout.contains("FAIL"))
    }

    /// Every line of standard output is a JSON object (what `| jq` needs).
    func expectJSONLines(_ stdout: String, _ context: String) {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!lines.isEmpty, "\(context): no trace on stdout")
        #expect(stdout.hasSuffix("\n"), "\(context)")
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            #expect(object is [String: Any], "\(context): not a JSON object: \(line)")
        }
    }

    @Test("bgx demo --trace -: standard output is JSON Lines only, every line a JSON object; the story and summary go to stderr")
    func demoTraceIsJSONLinesOnly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try bgx(["demo", "--trace", "-"], in: dir)
        #expect(r.status == 0)
        expectJSONLines(r.stdout, "demo")
        #expect(r.stderr.contains("What the system decided"))
        #expect(r.stderr.contains("Summary (modern profile, 7d, seed 7):"))
        #expect(r.stderr.contains("Expectations:"))
        #expect(r.stderr.contains("The timeline report: bgx-demo.html"))
    }

    @Test("a failed expectation is reported with --trace - too: stdout stays JSON Lines, stderr says which one failed, exit 1")
    func failedExpectationWithTraceToStdout() throws {
        let path = try temporaryFile("""
        duration: 10m
        apps: [{bundle: com.example.a}]
        timeline: [{at: 1m, user: launch com.example.a}]
        expect: [{kind: terminate, app: com.example.a}]
        """)
        let r = try bgx(["run", path, "--trace", "-"])
        #expect(r.status == 1)
        expectJSONLines(r.stdout, "run")
        #expect(r.stderr.contains("FAIL \(path):4: {kind: terminate, app: com.example.a}: expected at least one, found none"))
        let json = try bgx(["run", path, "--trace", "-", "--json"])
        #expect(json.status == 1)
        expectJSONLines(json.stdout, "run --json")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any])
        #expect(summary["passed"] as? Bool == false)
    }

    @Test("bgx run - reads the scenario from standard input; its errors say <stdin>:LINE:COLUMN")
    func scenarioFromStandardInput() throws {
        let text = try String(contentsOfFile: repositoryRoot.appendingPathComponent("Scenarios/spec2-expiry-handled.yaml").path,
                              encoding: .utf8)
        let r = try bgx(["run", "-"], input: text)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("bg tasks:     1 begun, 1 expired"))
        #expect(r.stdout.contains("ok   <stdin>:"))
        let bad = try bgx(["run", "-"], input: "apps:\n  - bundle: a\n    backgroundMode: [audio]\n")
        #expect(bad.status == 2)
        #expect(bad.stderr == "error: <stdin>:3:5: unknown key in an app 'backgroundMode'; did you mean 'backgroundModes'?\n")
    }

    @Test("bgx --version prints the version; --help states the exit codes and shell completion")
    func versionAndHelp() throws {
        let version = try bgx(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.range(of: #"^bgx [0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression) != nil,
                "\(version.stdout)")
        for arguments in [["--help"], ["run", "--help"], ["demo", "--help"]] {
            let help = try bgx(arguments)
            #expect(help.status == 0)
            let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.contains("Exit codes: 0 the command ran (and every expectation held); 1 an expectation failed"),
                    "\(arguments)")
            #expect(text.contains("2 bad input"), "\(arguments)")
        }
        #expect(try bgx(["--help"]).stdout.contains("--generate-completion-script bash|zsh|fish"))
        let completion = try bgx(["--generate-completion-script", "bash"])
        #expect(completion.status == 0 && completion.stdout.contains("complete"))
    }

    @Test("bgx demo --report FILE writes the report there")
    func demoReportFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = dir.appendingPathComponent("week.html").path
        let r = try bgx(["demo", "--report", report], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout.contains("The timeline report: \(report)"))
        #expect(try String(contentsOfFile: report, encoding: .utf8).contains("bgx timeline: bgx demo"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bgx-demo.html").path))
    }

    @Test("rules §5: bgx run's summary says every submit was refused and why")
    func refusedSubmitsInTheSummary() throws {
        let path = try temporaryFile(SummaryTests.allRefused)
        let r = try bgx(["run", path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("BGTasks:      2 submitted: 0 started, 2 refused"))
        #expect(r.stdout.contains("notPermitted: com.example.feed.refresh is not in BGTaskSchedulerPermittedIdentifiers"))
    }

    @Test("bgx bench --json reports engine and bare-heap throughput from one run")
    func bench() throws {
        let r = try bgx(["bench", "--json", "--events", "20000", "--apps", "50", "--device-runs", "2"])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect((object["events"] as? Int ?? 0) >= 20000)
        #expect((object["engineEventsPerSecond"] as? Double ?? 0) > 0)
        #expect((object["bareHeapEventsPerSecond"] as? Double ?? 0) > 0)
        // The fastest of the rounds counts, and every round is shown.
        let rounds = try #require(object["engineRoundEventsPerSecond"] as? [Double])
        #expect(rounds.count == 3 && rounds.max() == object["engineEventsPerSecond"] as? Double)
        let days = try #require(object["deviceDaysRoundsPerSecond"] as? [Double])
        #expect(days.count == 3 && days.max() == object["deviceDaysPerSecond"] as? Double)
    }

    @Test("bgx daemon and bgx ctl take exactly bgx-daemon's options, with the same defaults, and hand over what was typed")
    func liveHostOptionsDeclaredOnce() throws {
        let exe = try #require(Self.executable)
        let daemon = exe.deletingLastPathComponent().appendingPathComponent("bgx-daemon")
        try #require(FileManager.default.isExecutableFile(atPath: daemon.path), "bgx-daemon is built beside bgx by swift build")
        func help(_ executable: URL, _ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            // From OPTIONS on: the options, their help and their defaults (the overview and usage name the
            // tool, and only bgx has a --version).
            return text.components(separatedBy: "OPTIONS:").dropFirst().joined()
                .components(separatedBy: "\n").filter { !$0.contains("--version") }.joined(separator: "\n")
        }
        for command in ["daemon", "ctl"] {
            let fromBGX = try help(exe, [command, "--help"])
            #expect(fromBGX.contains("--socket"), "\(fromBGX)")
            #expect(fromBGX == (try help(daemon, [command, "--help"])), "bgx \(command) and bgx-daemon \(command) differ")
        }
        #expect(try help(exe, ["daemon", "--help"]).contains("(default: 10000)"))  // --snapshot-every's, once drifted
        // A bad option is refused by bgx itself, before any hand-over.
        let bad = try bgx(["daemon", "--state", "/tmp/x", "--socket", "/tmp/y", "--snapshot-evry", "5"])
        #expect(bad.status != 0 && bad.stderr.contains("snapshot-evry"), "\(bad.stderr)")
        // What bgx accepts reaches bgx-daemon as typed: its own check of the profile answers.
        let handed = try bgx(["daemon", "--state", "/tmp/bgx-no-such-state", "--socket", "/tmp/bgx-no.sock", "--profile=ios5"])
        #expect(handed.status == 2 && handed.stderr.contains("unknown profile ios5"), "\(handed.stderr)")
    }
}
