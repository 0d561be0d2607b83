import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// `loadtest:` and the schedule `bgx fleet loadtest` replays.
@Suite("bgx fleet loadtest: the scenario's requests and the replay's schedule")
struct FleetLoadTestScheduleTests {
    static let requests = """
    loadtest:
      requests:
        userLaunch: {method: GET, path: /v1/feed, headers: {Accept: application/json}}
        silentPush: {method: POST, path: /v1/sync, body: 2KB}
    """

    func parse(_ text: String) throws -> Scenario { try ScenarioParser(file: "news.yaml").parse(text) }

    @Test("each cause's request is read: method, path, headers, body size; GET by default")
    func parsesRequests() throws {
        let s = try parse(fleetNewsScenario + "\n" + Self.requests + "\n")
        let t = try #require(s.loadTest)
        #expect(t.requests["userLaunch"]?.method == "GET" && t.requests["userLaunch"]?.headers == ["Accept": "application/json"])
        #expect(t.requests["silentPush"]?.method == "POST" && t.requests["silentPush"]?.bodyBytes == 2048)
        #expect(t.requests["refresh"] == nil)
        #expect(try parse(fleetNewsScenario).loadTest == nil)
    }

    @Test("a bad request is an error at its line and column", arguments: [
        ("loadtest:\n  requests:\n    launch: {path: /a}\n", "3:5: unknown key in requests 'launch'"),
        ("loadtest:\n  requests:\n    refresh: {path: a}\n", "3:21: path must start with /"),
        ("loadtest:\n  requests:\n    refresh: {path: /a, method: FETCH}\n", "3:33: unknown method 'FETCH'"),
        ("loadtest:\n  requests:\n    refresh: {path: /a, body: lots}\n", "3:31: body must be a size like 2KB"),
        ("loadtest:\n  requests:\n    refresh: {method: GET}\n", "3:14: the refresh request has no 'path:'"),
        ("loadtest:\n  requests:\n    refresh: {path: /a, headers: {\"a b\": c}}\n", "3:35: 'a b' is not a header name"),
        ("loadtest:\n  app: com.example.other\n  requests:\n    refresh: {path: /a}\n", "2:8: unknown app 'com.example.other'"),
        ("loadtest:\n  app: com.example.news\n", "2:3: loadtest: has no 'requests:'"),
    ])
    func badRequests(_ section: String, _ message: String) throws {
        let text = "apps:\n  - bundle: com.example.news\n" + section
        let error = #expect(throws: ScenarioError.self) { try ScenarioParser(file: "s.yaml").parse(text) }
        // The message's line counts from the section; the file has two lines of apps: before it.
        let parts = message.split(separator: ":", maxSplits: 1)
        let expected = "error: s.yaml:\(Int(parts[0])! + 2):\(parts[1])"
        #expect(error?.description.hasPrefix(expected) == true, "\(error?.description ?? "no error"), expected \(expected)")
    }

    @Test("two apps and no app: named is an error at the section")
    func twoApps() {
        let text = "apps:\n  - bundle: a.one\n  - bundle: a.two\nloadtest:\n  requests:\n    refresh: {path: /a}\n"
        #expect(throws: ScenarioError.self) { try ScenarioParser(file: "s.yaml").parse(text) }
        #expect((try? ScenarioParser(file: "s.yaml").parse(text + "  app: a.two\n"))?.loadTest?.app == "a.two")
    }

    func result() -> FleetResult {
        var r = FleetResult(scenario: "news.yaml", fleetSeed: 1, days: 2, fleetDevices: 3, devices: [[0, 3]])
        // 3 devices × 2 days; userLaunch 1..7 a minute from 06:58, a spike at 07:00, and a refresh at 23:59.
        for (m, n) in [(418, 1), (419, 2), (420, 7), (421, 3)] { for _ in 0..<n { r.arrive("com.example.news", "userLaunch", minute: m) } }
        for _ in 0..<5 { r.arrive("com.example.news", "silentPush", minute: 420) }
        r.arrive("com.example.news", "refresh", minute: 1439)
        return r
    }

    @Test("scaled from the fleet's device-days to a day of N devices, in whole requests that keep the running total")
    func scaling() throws {
        let s = try parse(fleetNewsScenario + "\n" + Self.requests + "\n")
        let plan = try LoadTestSchedule(result(), s.loadTest!, devices: 100, compress: 60, window: (418, 422))
        // 100 devices / 6 device-days: each arrival is 16.67 requests.
        #expect(plan.minutes == [418, 419, 420, 421] && plan.stageSeconds == 1)
        #expect(plan.simulated["userLaunch"] == [1, 2, 7, 3])
        let launches = try #require(plan.planned["userLaunch"])
        #expect(launches == [17, 33, 117, 50])
        #expect(launches.reduce(0, +) == Int((13.0 * 100 / 6).rounded()))
        for (whole, exact) in zip(launches, plan.scaled["userLaunch"]!) { #expect(abs(Double(whole) - exact) < 1) }
        #expect(plan.planned["silentPush"] == [0, 0, 83, 0])
        // refresh has arrivals, but no request: not replayed, and said.
        #expect(plan.planned["refresh"] == nil && plan.unreplayed == ["refresh"])
        // Enough users for the busiest second's 200 requests.
        #expect(plan.users == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(plan.json.utf8)) as? [String: Any])
        #expect((json["stages"] as? [[String: Any]])?.count == 4 && json["stageSeconds"] as? Double == 1)
    }

    @Test("a window may run past midnight; --compress sets how long a minute lasts")
    func windowPastMidnight() throws {
        let s = try parse(fleetNewsScenario + "\nloadtest:\n  requests:\n    refresh: {path: /r}\n")
        let w = try #require(LoadTestSchedule.window("23:58-00:02"))
        let plan = try LoadTestSchedule(result(), s.loadTest!, devices: 6, compress: 144, window: w)
        #expect(plan.minutes == [1438, 1439, 0, 1] && plan.planned["refresh"] == [0, 1, 0, 0])
        #expect(abs(plan.stageSeconds - 60.0 / 144) < 1e-12)
        #expect(LoadTestSchedule.window("07:00-07:00:30") == nil && LoadTestSchedule.window("7") == nil)
        #expect(LoadTestSchedule.window("00:00-24:00")! == (0, 1440))
    }
}

/// The replay itself: a real HTTP server on loopback
/// (docs/examples/loadtest-server.py, which counts requests per path and per
/// second), a real fleet result, and `bgx fleet loadtest` running Locust.
/// `.ci/run` installs Locust and sets BGX_REQUIRE_LOCUST, so CI cannot skip it.
@Suite("bgx fleet loadtest against a server on loopback", .serialized)
struct FleetLoadTestReplayTests {
    static let locustAvailable: Bool = {
        guard FleetLoadTestReplayTests.onPath("locust") != nil,
              let (status, _) = try? ReportBrowserTests.execute("/usr/bin/env", ["python3", "-c", "import locust"]) else { return false }
        return status == 0
    }()
    static let required = ProcessInfo.processInfo.environment["BGX_REQUIRE_LOCUST"] != nil

    static func onPath(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// The counting server, started on a free port; its port once it says it listens.
    final class Server {
        let process = Process()
        let port: Int
        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", repositoryRoot.appendingPathComponent("docs/examples/loadtest-server.py").path] + arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Blocks until the server's first line (it is listening), or its end.
            var text = [UInt8](), byte: UInt8 = 0
            while read(out.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 10 { text.append(byte) }
            let line = String(decoding: text, as: UTF8.self)
            guard line.hasPrefix("port "), let p = Int(line.dropFirst(5)) else {
                process.terminate()
                throw ServerError(text: line)
            }
            port = p
        }
        struct ServerError: Error { var text: String }
        var url: String { "http://127.0.0.1:\(port)" }
        /// What the server counted: path → {seconds: {epoch: n}, methods, bodyBytes, headers}.
        func counts() throws -> [String: [String: Any]] {
            let (status, text) = try ReportBrowserTests.execute("/usr/bin/env", [
                "python3", "-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                url + "/__counts",
            ])
            try #require(status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            return try #require(object?["paths"] as? [String: [String: Any]])
        }
        /// SIGKILL: its table on SIGTERM is for people, and nobody reads its output here.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Per compressed minute (2 s here) the server must see the fleet's
    /// curve, scaled, within max(2 requests, 10 %) — and every planned
    /// request in the end. Why not exact: the scaled curve is rounded to
    /// whole requests (less than 1 a minute), and a request sent near the
    /// end of its stage may reach the server in the next second when the
    /// machine is busy (gevent's timers and the server's threads share two
    /// cores with the build); a request that far off is a few, never 10 %.
    static let tolerance = (requests: 2.0, share: 0.10)

    @Test("06:57–07:03 of the news fleet, 500 devices, a minute in 2 s: the server sees the curve; errors and latency per cause",
          .enabled(if: locustAvailable || required, "Locust is not installed (pip install locust)"),
          .timeLimit(.minutes(3)))
    func replayOnLoopback() throws {
        try #require(Self.locustAvailable, "BGX_REQUIRE_LOCUST is set but locust is not on PATH or python3 cannot import it")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-loadtest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenarioPath = repositoryRoot.appendingPathComponent("docs/examples/fleet-news.yaml").path
        let scenario = try ScenarioParser.parse(contentsOf: scenarioPath)
        let fleet = try FleetRun(scenario, devices: 40).run()
        try fleet.write(to: dir.appendingPathComponent("fleet").path)

        // Every 4th refresh answered 503; the silent pushes' sync takes 20 ms.
        let server = try Server(["--delay", "/v1/sync=20", "--fail", "/v1/refresh=4"])
        defer { server.stop() }
        let out = dir.appendingPathComponent("replay")
        let r = try CommandLineTests().bgx([
            "fleet", "loadtest", dir.appendingPathComponent("fleet").path, "--scenario", scenarioPath, "--host", server.url,
            "--compress", "30", "--window", "06:57-07:03", "--devices", "500", "--out", out.path,
        ])
        let counts = try server.counts()
        let plan = try LoadTestSchedule(fleet, scenario.loadTest!, devices: 500, compress: 30, window: (417, 423))
        // Exit 1: the server answered some requests with errors; the report is written all the same.
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("request(s) failed"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("loadtest.json"))) as? [String: Any])
        let origin = try #require(report["origin"] as? Int)
        let causes = try #require(report["causes"] as? [String: [String: Any]])
        let paths = ["userLaunch": "/v1/feed", "refresh": "/v1/refresh", "silentPush": "/v1/sync"]
        var worst = 0.0
        for (cause, path) in paths {
            let exact = try #require(plan.scaled[cause]), planned = try #require(plan.planned[cause])
            let seen = counts[path]?["seconds"] as? [String: Int] ?? [:]
            var received: [Int] = []
            for stage in 0..<plan.minutes.count {
                // A stage is 2 s from a whole second: the server's seconds origin+2i and origin+2i+1.
                received.append((0..<2).reduce(0) { $0 + (seen[String(origin + 2 * stage + $1)] ?? 0) })
            }
            #expect(received.reduce(0, +) == planned.reduce(0, +), "\(cause): the server got \(received), planned \(planned)")
            for (got, want) in zip(received, exact) {
                let allowed = max(Self.tolerance.requests, Self.tolerance.share * want)
                #expect(abs(Double(got) - want) <= allowed, "\(cause): the server got \(received) a minute, the fleet's curve is \(exact)")
                worst = max(worst, abs(Double(got) - want))
            }
            let c = try #require(causes[cause])
            #expect(c["sent"] as? [Int] == planned, "\(cause)")
            // Late sends (every user busy, or the machine) are counted, not hidden; the minutes above hold them to the curve.
            let late = try #require(c["late"] as? [Int])
            #expect(late.count == planned.count && zip(late, planned).allSatisfy { $0 <= $1 })
        }
        print("loadtest replay: the server's counts per minute were within \(worst) requests of the fleet's scaled curve")
        // The spike is there: 07:00's silent pushes outnumber the minute before by far.
        let push = try #require(plan.planned["silentPush"])
        #expect(push[3] > 5 * max(1, push[2]), "\(push)")
        // Each cause's request as loadtest: describes it.
        #expect(counts["/v1/sync"]?["methods"] as? [String: Int] == ["POST": push.reduce(0, +)])
        #expect(counts["/v1/sync"]?["bodyBytes"] as? Int == 2048 * push.reduce(0, +))
        #expect((counts["/v1/sync"]?["headers"] as? [String: Int])?["content-type"] == push.reduce(0, +))
        let refreshes = plan.planned["refresh"]!.reduce(0, +)
        #expect(refreshes > 0)
        #expect((counts["/v1/refresh"]?["headers"] as? [String: Int])?["accept"] == refreshes)
        // Errors and latency per cause: every 4th refresh failed; the sync's 20 ms shows in its percentiles.
        #expect((causes["refresh"]?["errors"] as? [String: Int])?.values.reduce(0, +) == refreshes / 4)
        #expect((causes["silentPush"]?["errors"] as? [String: Int])?.isEmpty == true)
        #expect(try #require(causes["silentPush"]?["p50Ms"] as? Double) >= 20)
        let refreshP50 = try #require(causes["refresh"]?["p50Ms"] as? Double)
        #expect(refreshP50 < (try #require(causes["silentPush"]?["p50Ms"] as? Double)))
        // The table on stdout sets the fleet's arrivals beside what the server did.
        #expect(r.stdout.contains("cause") && r.stdout.contains("p99 ms") && r.stdout.contains("errors: refresh: "))
        for name in ["loadtest.json", "causes.csv", "minutes.csv", "schedule.json", "locustfile.py", "locust_stats.csv", "locust.log"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)")
        }
        // Nothing half-written is left beside it.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".partial-") }
        #expect(left.isEmpty, "\(left)")
    }
}

@Suite("bgx fleet loadtest on the command line: refusals")
struct FleetLoadTestCommandLineTests {
    func fixture() throws -> (URL, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-loadtest-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let scenario = repositoryRoot.appendingPathComponent("docs/examples/fleet-news.yaml").path
        let fleet = try FleetRun(try ScenarioParser.parse(contentsOf: scenario), devices: 2, days: 1).run()
        try fleet.write(to: dir.appendingPathComponent("fleet").path)
        return (dir, scenario)
    }

    /// bgx with PATH set to an empty directory: no locust anywhere on it.
    func bgxWithoutLocust(_ arguments: [String], emptyPath: URL) throws -> (Int32, String) {
        let exe = try #require(CommandLineTests.executable, "the bgx executable was not built beside the tests")
        let process = Process()
        process.executableURL = exe
        process.arguments = arguments
        process.environment = ["PATH": emptyPath.path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("without Locust it says how to install it, exit 2, and writes nothing")
    func locustMissing() throws {
        let (dir, scenario) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let (status, stderr) = try bgxWithoutLocust([
            "fleet", "loadtest", dir.appendingPathComponent("fleet").path, "--scenario", scenario,
            "--host", "http://127.0.0.1:9", "--compress", "60", "--out", dir.appendingPathComponent("replay").path,
        ], emptyPath: empty)
        #expect(status == 2)
        #expect(stderr.hasPrefix("error: Locust is not yet installed: pip install locust"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("replay").path))
    }

    @Test("bad input is an error, exit 2", arguments: [
        (["--compress", "0.5"], "error: --compress must be between 1 and 3600"),
        (["--compress", "60", "--window", "7-8"], "error: --window must be whole minutes"),
        (["--compress", "60", "--host-is", "x"], "error: "),
    ])
    func badArguments(_ extra: [String], _ message: String) throws {
        let (dir, scenario) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CommandLineTests().bgx(["fleet", "loadtest", dir.appendingPathComponent("fleet").path, "--scenario", scenario,
                                            "--host", "http://127.0.0.1:9", "--out", dir.appendingPathComponent("r").path] + extra)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
    }

    @Test("a scenario without loadtest: is an error naming the file; an existing --out is refused")
    func noSection() throws {
        let (dir, _) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bare = dir.appendingPathComponent("fleet-news.yaml")
        try fleetNewsScenario.write(to: bare, atomically: true, encoding: .utf8)
        let cli = CommandLineTests()
        let r = try cli.bgx(["fleet", "loadtest", dir.appendingPathComponent("fleet").path, "--scenario", bare.path,
                             "--host", "http://127.0.0.1:9", "--compress", "60", "--out", dir.appendingPathComponent("r").path])
        #expect(r.status == 2 && r.stderr.hasPrefix("error: \(bare.path):1:1: the scenario has no loadtest: section"), "\(r.stderr)")
        let exists = try cli.bgx(["fleet", "loadtest", dir.appendingPathComponent("fleet").path, "--scenario", bare.path,
                                  "--host", "http://127.0.0.1:9", "--compress", "60", "--out", dir.appendingPathComponent("fleet").path])
        #expect(exists.status == 2 && exists.stderr.contains("already exists"), "\(exists.stderr)")
    }
}
