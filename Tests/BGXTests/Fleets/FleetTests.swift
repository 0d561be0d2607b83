import BGXCore
@testable import BGXSimulation
import Foundation
import PropertyBased
import Testing

@Suite("bgx fleet: many devices, merged by adding")
struct FleetRunTests {
    func scenario() throws -> Scenario { try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario) }

    func run(_ devices: Int, shard: (Int, Int) = (0, 1)) throws -> FleetResult {
        try FleetRun(try scenario(), devices: devices, shard: shard).run()
    }

    @Test("the same fleet gives the same bytes; every push sent is delivered, dropped or still held")
    func deterministic() throws {
        let a = try run(24), b = try run(24)
        #expect(a.json == b.json)
        let c = a.counts
        #expect(c["pushesSent"] == 24)
        #expect((c["pushesDelivered"] ?? 0) + (c["pushesDropped"] ?? 0) + (c["pushesHeldAtEnd"] ?? 0) == 24)
        #expect(a.delays["pushToWake"]?.totalCount == UInt64(c["pushesDelivered"] ?? 0))
        let launches = a.arrivals["com.example.news"]?["userLaunch"]?.reduce(0, +) ?? 0
        #expect(launches == c["uses"] && launches > 24)
        #expect(a.population["devices"]?["all"] == 24)
    }

    @Test("shards merged in any order equal the whole fleet, byte for byte")
    func shardsEqualWhole() throws {
        let whole = try run(20)
        let shards = try (0..<4).map { try run(20, shard: ($0, 4)) }
        for order in [[0, 1, 2, 3], [3, 1, 0, 2], [2, 3, 1, 0]] {
            var m = shards[order[0]]
            for k in order.dropFirst() { try m.merge(shards[k]) }
            #expect(m.canonical.json == whole.json)
            #expect(m.arrivalsCSV == whole.arrivalsCSV && m.delaysCSV == whole.delaysCSV)
        }
    }

    @Test("merge is associative: merge(a, merge(b, c)) == merge(merge(a, b), c), over random splits")
    func associative() throws {
        let whole = try run(18)
        var rng = FleetRandom(seed: 99)
        for _ in 0..<4 {
            // Three shards of random sizes: cut [0, 18) at two random points, as --shard would not.
            let cuts = [Int(rng.next() % 17) + 1, Int(rng.next() % 17) + 1].sorted()
            let parts = try [(0, cuts[0]), (cuts[0], cuts[1]), (cuts[1], 18)].map { range -> FleetResult in
                let fleet = try FleetRun(try scenario(), devices: 18)
                let sum = FleetRun.Sum(FleetResult(scenario: "news.yaml", fleetSeed: 42, days: 1, fleetDevices: 18,
                                                   devices: range.0 == range.1 ? [] : [[range.0, range.1]]))
                for i in range.0..<range.1 { try fleet.runDevice(i, into: sum) }
                return sum.result.canonical
            }
            var left = parts[0]; try left.merge(parts[1]); try left.merge(parts[2])
            var bc = parts[1]; try bc.merge(parts[2])
            var right = parts[0]; try right.merge(bc)
            #expect(left.canonical.json == right.canonical.json)
            #expect(left.canonical.json == whole.json)
        }
    }

    @Test("a result read back from its file is the same result")
    func roundTrip() throws {
        let a = try run(6)
        let b = try FleetResult.read(json: Data(a.json.utf8), path: "fleet.json")
        #expect(b.canonical.json == a.json)
    }

    @Test("merge refuses a shard given twice and parts of another fleet")
    func mergeRefuses() throws {
        let s0 = try run(10, shard: (0, 2))
        var m = s0
        #expect(throws: FleetResult.MergeError.self) { try m.merge(s0) }
        var other = try run(12, shard: (1, 2))
        #expect(throws: FleetResult.MergeError.self) { try other.merge(s0) }
    }

    @Test("a reason's moments and numbers are folded, so reasons add up across devices")
    func reasonKinds() {
        #expect(DeviceTally.reasonKind("score 0.37 < 0.5 — ApplicationPolicy: next predicted use 2d 08:00") == "ApplicationPolicy")
        #expect(DeviceTally.reasonKind("EarliestBeginDatePolicy: [{earliest begin 2d 20:25 not reached}]") == "EarliestBeginDatePolicy")
        #expect(DeviceTally.reasonKind("throttled: 3 background pushes in the past hour (at most 3)")
                == "throttled: # background pushes in the past hour (at most #)")
        #expect(DeviceTally.reasonKind("expired after 29.5 s — budget 30 s") == "expired after # s — budget # s")
        #expect(DeviceTally.reasonKind("score 0.2 without a dash: ScorePolicy") == "score # without a dash: ScorePolicy")
        #expect(DeviceTally.reasonKind("Not A Policy: 3") == "Not A Policy: #")
    }

    /// The definition in Characters: what the scalar-reading `reasonKind` must equal.
    static func reasonKindByCharacters(_ text: String) -> String {
        var s = Substring(text)
        if s.hasPrefix("score "), let dash = s.range(of: " — ") { s = s[dash.upperBound...] }
        if let colon = s.firstIndex(of: ":"), s[..<colon].hasSuffix("Policy"), !s[..<colon].contains(" ") {
            return String(s[..<colon])
        }
        var out = ""
        var inNumber = false
        for c in s {
            if c.isNumber || (inNumber && c == ".") {
                if !inNumber { out.append("#") }
                inNumber = true
            } else {
                inNumber = false
                out.append(c)
            }
        }
        return out
    }

    @Test("a reason's category is the same read by scalars as by Characters, for any text")
    func reasonKindsAsCharacters() async {
        let pieces = ["score ", " — ", "Policy", ":", " ", "0", "7", "12.5", ".", "d ", "08:00", "½", "Ⅷ", "§", "≥", "é", "x",
                      "ApplicationPolicy", "throttled", "(at most 3)", "—", "-"]
        await propertyCheck(count: 2000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 0...12)) { picks in
            let text = picks.map { pieces[$0] }.joined()
            #expect(DeviceTally.reasonKind(text) == Self.reasonKindByCharacters(text), "\(text)")
        }
    }
}

@Suite("bgx fleet on the command line")
struct FleetCommandLineTests {
    func temporary() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("shards run as separate processes, merged in any order, write the whole fleet's files byte for byte")
    func shardsByProcess() throws {
        let cli = CommandLineTests()
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: scenario, atomically: true, encoding: .utf8)
        let whole = try cli.bgx(["fleet", scenario.path, "--devices", "15", "--out", dir.appendingPathComponent("whole").path])
        #expect(whole.status == 0, "\(whole.stderr)")
        for i in 0..<3 {
            let r = try cli.bgx(["fleet", scenario.path, "--devices", "15", "--shard", "\(i)/3",
                                 "--out", dir.appendingPathComponent("s\(i)").path])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let merged = try cli.bgx(["fleet", "merge"] + ["s2", "s0", "s1"].map { dir.appendingPathComponent($0).path }
                                 + ["--out", dir.appendingPathComponent("merged").path])
        #expect(merged.status == 0, "\(merged.stderr)")
        for name in FleetResult.fileNames {
            let a = try Data(contentsOf: dir.appendingPathComponent("whole/\(name)"))
            let b = try Data(contentsOf: dir.appendingPathComponent("merged/\(name)"))
            #expect(a == b, "\(name) differs")
        }
        // A shard rerun alone gives the same bytes.
        let again = try cli.bgx(["fleet", scenario.path, "--devices", "15", "--shard", "1/3",
                                 "--out", dir.appendingPathComponent("again").path])
        #expect(again.status == 0)
        #expect(try Data(contentsOf: dir.appendingPathComponent("again/fleet.json"))
                == Data(contentsOf: dir.appendingPathComponent("s1/fleet.json")))
        let twice = try cli.bgx(["fleet", "merge", dir.appendingPathComponent("s1").path, dir.appendingPathComponent("again").path,
                                 "--out", dir.appendingPathComponent("bad").path])
        #expect(twice.status == 2 && twice.stderr.contains("a shard is given twice"))
    }

    @Test("bad input is an error with its place and exit code 2", arguments: [
        (["--devices", "0"], "error: --devices must be between 1 and 100000000"),
        (["--devices", "4", "--shard", "3/3"], "error: --shard must be I/K with 0 ≤ I < K"),
    ])
    func badArguments(_ extra: [String], message: String) throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: scenario, atomically: true, encoding: .utf8)
        let r = try CommandLineTests().bgx(["fleet", scenario.path] + extra + ["--out", dir.appendingPathComponent("o").path])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
    }

    @Test("a bad population value stops the fleet at its line and column")
    func badPopulation() throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = dir.appendingPathComponent("bad.yaml")
        try "apps:\n  - bundle: com.example.a\npopulation:\n  lowPowerMode: sometimes\n".write(to: scenario, atomically: true, encoding: .utf8)
        let r = try CommandLineTests().bgx(["fleet", scenario.path, "--devices", "2", "--out", dir.appendingPathComponent("o").path])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("error: \(scenario.path):4:17: lowPowerMode must be a percentage"), "\(r.stderr)")
    }
}

@Suite("Fleet report in a browser")
struct FleetReportBrowserTests {
    @Test("the report draws the arrival curves in their colours and the spike at 17:00 is in the table")
    func reportContents() throws {
        let r = try FleetRun(try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario), devices: 20).run()
        let html = FleetReport(r).html
        #expect(html.contains("stroke=\"#e15759\""))  // silentPush
        #expect(html.contains("<td>silentPush</td>") && html.contains("<td>17:00</td>"))
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"))
        let push = try #require(r.arrivals["com.example.news"]?["silentPush"])
        #expect(FleetReport.topOfHourRatio(push).map { $0 > 10 } == true)
    }

    @Test("the arrival chart: a panel per cause on its own labelled scale, hours to 24:00 inside the chart, shrinking to the page")
    func chartFitsAndShowsEveryCause() throws {
        let r = try FleetRun(try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario), devices: 20).run()
        let html = FleetReport(r).html
        #expect(html.contains("svg.chart{max-width:100%;height:auto}"))
        let svg = try #require(html.components(separatedBy: "<svg class=\"chart\"").dropFirst().first?.components(separatedBy: "</svg>").first)
        let width = try #require(svg.components(separatedBy: "viewBox=\"0 0 ").dropFirst().first?.split(separator: " ").first.flatMap { Double($0) })
        let series = try #require(r.arrivals["com.example.news"]).filter { $0.value.contains { $0 > 0 } }
        #expect(series.count >= 3)
        #expect(svg.components(separatedBy: "<polyline").count - 1 == r.arrivals["com.example.news"]!.count)
        for (cause, minutes) in series {
            // Its own panel, named in words, its peak labelled on its own axis.
            #expect(svg.contains("\(FleetReport.causeWords[cause]!) — \(cause)</text>"), "\(cause)")
            #expect(svg.contains(">\(minutes.max()!)/min</text>"), "\(cause)'s peak \(minutes.max()!) is not labelled")
        }
        // Every hour label, 24:00 too, ends inside the chart: 24:00 is anchored at its end.
        for hour in stride(from: 0, through: 24, by: 3) { #expect(svg.contains("\(hour < 10 ? "0" : "")\(hour):00</text>")) }
        let last = try #require(svg.components(separatedBy: "<text ").last { $0.hasSuffix("24:00</text>") || $0.contains(">24:00<") })
        let x = try #require(last.components(separatedBy: "x=\"").dropFirst().first?.split(separator: "\"").first.flatMap { Double($0) })
        #expect(last.contains("text-anchor=\"end\"") && x <= width)
        // Every curve point lies inside the chart.
        for points in svg.components(separatedBy: "points=\"").dropFirst() {
            for p in points.prefix(while: { $0 != "\"" }).split(separator: " ") {
                let xy = p.split(separator: ",").compactMap { Double($0) }
                #expect(xy.count == 2 && xy[0] <= width && xy[1] >= 0)
            }
        }
    }

    @Test("reasons read in words: a number that differs between devices is N, not a placeholder")
    func reasonsInWords() throws {
        var r = FleetResult(scenario: "s.yaml", fleetSeed: 1, days: 1, fleetDevices: 1, devices: [[0, 1]])
        r.count("held", "com.example.a", "woken in #m, # over the budget")
        let html = FleetReport(r).html
        #expect(html.contains("<td>woken in Nm, N over the budget</td>"), "\(html)")
        #expect(!html.contains("#m"))
    }

    @Test("headless Chromium draws the fleet report: the curves' colours are in the picture",
          .enabled(if: ReportBrowserTests.browser != nil || ReportBrowserTests.required, "no chromium on PATH"))
    func rendersInChromium() throws {
        let browser = try #require(ReportBrowserTests.browser, "BGX_REQUIRE_BROWSER is set but no chromium is on PATH")
        let r = try FleetRun(try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario), devices: 30).run()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("fleet.html"), png = dir.appendingPathComponent("fleet.png")
        try FleetReport(r).html.write(to: page, atomically: true, encoding: .utf8)
        let (status, _) = try ReportBrowserTests.execute(browser, [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=\(dir.appendingPathComponent("profile").path)",
            "--screenshot=\(png.path)", "--window-size=1600,900", page.absoluteString,
        ])
        #expect(status == 0)
        let wanted = ["userLaunch", "refresh", "silentPush"].map { FleetReport.colours[$0]! }
        let (surveyStatus, survey) = try ReportBrowserTests.execute("/usr/bin/env",
                                                                    ["python3", "-c", ReportBrowserTests.pngSurvey, png.path] + wanted)
        #expect(surveyStatus == 0, "the PNG could not be read: \(survey)")
        let lines = survey.split(separator: "\n")
        try #require(lines.count == 2, "unexpected survey output: \(survey)")
        for entry in lines[1].split(separator: " ") {
            let parts = entry.split(separator: ":")
            // Each curve is drawn: hundreds of pixels of its colour (a legend swatch alone is 56).
            #expect(parts.count == 3 && (Int(parts[1]) ?? 0) >= 150, "too few pixels of #\(parts[0]): \(entry)")
        }
    }
}

/// `bgx-fleet-picture` (Clients/python/bgxfleet), which draws docs/fleets.md's
/// pictures, finds today's report's arrival chart and has Chromium draw it.
@Suite("The fleet report's picture")
struct FleetPictureTests {
    @Test("bgx-fleet-picture draws the report's arrival chart at its own size",
          .enabled(if: ReportBrowserTests.browser != nil || ReportBrowserTests.required, "no chromium on PATH"))
    func drawsTheChart() throws {
        let r = try FleetRun(try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario), devices: 20).run()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-picture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("fleet.html"), png = dir.appendingPathComponent("chart.png")
        try FleetReport(r).html.write(to: page, atomically: true, encoding: .utf8)
        let tool = repositoryRoot.appendingPathComponent("Clients/python/bgxfleet/src/bgxfleet/picture.py").path
        let (status, output) = try ReportBrowserTests.execute("/usr/bin/env", ["python3", tool, page.path, png.path])
        #expect(status == 0, "\(output)")
        // The chart's size, as the report gives it, is the picture's.
        let size = try #require(output.split(separator: " ").first { $0.first?.isNumber == true && $0.contains("x") }).split(separator: "x").compactMap { Int($0) }
        #expect(size.count == 2 && size[0] >= 1000 && size[1] >= 300, "\(output)")
        let bytes = try Data(contentsOf: png)
        #expect(bytes.count > 5_000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG of a chart: \(bytes.count) bytes")
        // The PNG's header holds its width and height (big-endian, bytes 16–23).
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == size[0] && height == size[1], "PNG \(width)x\(height), chart \(size)")
    }
}

/// The fleet report's chart as Chromium lays it out: every label inside its
/// chart, however many digits a peak has.
@Suite("The fleet report's chart, laid out")
struct FleetChartLayoutTests {
    @Test("every label of the arrival chart lies inside the chart, with a peak of 68 893 a minute",
          .enabled(if: ReportBrowserTests.browser != nil || ReportBrowserTests.required, "no chromium on PATH"))
    func labelsInsideTheChart() throws {
        var r = FleetResult(scenario: "s.yaml", fleetSeed: 1, days: 7, fleetDevices: 100_000, devices: [[0, 100_000]])
        for _ in 0..<68_893 { r.arrive("com.example.news", "silentPush", minute: 17 * 60) }
        for m in 0..<1440 { r.arrive("com.example.news", "userLaunch", minute: m) }
        let measure = """
            <script>(function () {
              const svg = document.querySelector('svg.chart'), s = svg.getBoundingClientRect();
              const out = [...svg.querySelectorAll('text')].map(t => { const b = t.getBoundingClientRect();
                return [t.textContent, b.left - s.left, s.right - b.right].join('|'); });
              const pre = document.createElement('pre'); pre.id = 'bgx-measured'; pre.textContent = out.join('\\n');
              document.body.replaceChildren(pre); })();</script>
            """
        let text = try ReportBrowserTests.measured(FleetReport(r).html, script: measure, width: 1600)
        let rows = text.split(separator: "\n").map { $0.split(separator: "|") }
        #expect(rows.contains { $0.first == "68893/min" }, "\(rows)")
        for row in rows where row.count == 3 {
            let (left, right) = (Double(row[1]) ?? -1, Double(row[2]) ?? -1)
            #expect(left >= 0 && right >= 0, "'\(row[0])' sticks out of the chart: \(left) px left, \(right) px right")
        }
    }
}

/// The shards of a fleet as tasks on a real Dask LocalCluster (two worker
/// processes), merged as they finish: the result is the single process's.
/// The driver is installed the documented way, `pip install
/// ./Clients/python/bgxfleet`, into a fresh virtual environment that sees the
/// machine's Dask. `.ci/run` installs Dask and sets BGX_REQUIRE_DASK, so CI
/// cannot skip this; elsewhere it runs when Dask is installed.
// Serialized: both tests pip-install the same source tree, which setuptools builds in place.
@Suite("Fleet shards on Dask", .serialized)
struct FleetDaskTests {
    static let daskAvailable: Bool = {
        guard let (status, _) = try? ReportBrowserTests.execute("/usr/bin/env", ["python3", "-c", "import dask.distributed"])
        else { return false }
        return status == 0
    }()
    static let required = ProcessInfo.processInfo.environment["BGX_REQUIRE_DASK"] != nil

    /// `pip install ./Clients/python/bgxfleet` into a fresh virtual environment in `dir`; its path.
    static func install(into dir: URL) throws -> String {
        let venv = dir.appendingPathComponent("venv").path
        let (made, madeOutput) = try ReportBrowserTests.execute("/usr/bin/env", ["python3", "-m", "venv", "--system-site-packages", venv])
        #expect(made == 0, "\(madeOutput)")
        let package = repositoryRoot.appendingPathComponent("Clients/python/bgxfleet").path
        let (installed, installOutput) = try ReportBrowserTests.execute(venv + "/bin/python", [
            "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check", package,
        ])
        try #require(installed == 0, "pip install ./Clients/python/bgxfleet failed: \(installOutput)")
        return venv
    }

    @Test("bgx-fleet-bench times one process and Dask with one worker and two, each merged result the same bytes",
          .enabled(if: daskAvailable || required, "python3 with dask.distributed is not installed (pip install dask distributed)"))
    func bench() throws {
        try #require(Self.daskAvailable, "BGX_REQUIRE_DASK is set but python3 cannot import dask.distributed")
        let exe = try #require(CommandLineTests.executable, "the bgx executable was not built beside the tests")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let venv = try Self.install(into: dir)
        let scenario = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: scenario, atomically: true, encoding: .utf8)
        let (status, output) = try ReportBrowserTests.execute(venv + "/bin/bgx-fleet-bench", [
            scenario.path, "--devices", "8", "--days", "1", "--shards", "2", "--bgx", exe.path,
            "--out", dir.appendingPathComponent("bench").path,
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("8 devices x 1 days = 8 device-days"))
        let lines = output.split(separator: "\n")
        #expect(lines.filter { $0.contains("same bytes as one process") }.count == 2, "\(output)")
        #expect(lines.contains { $0.contains("one process") && $0.contains("device-days/s") })
        #expect(output.contains("speed-up from one Dask worker to two: "))
        // Each run says where its time went: bgx's CPU, everything else's, how busy the workers were.
        let runs = lines.filter { $0.contains("device-days/s") }
        #expect(runs.count == 3 && runs.allSatisfy { $0.contains("CPU: bgx ") && $0.contains("% busy") }, "\(output)")
    }

    /// What a shard task does is wait for its bgx process, so the LocalCluster
    /// the driver starts has one thread per worker process and Dask's own
    /// sampling (profiler, event-loop tick, memory and system monitors) slowed
    /// down — in the worker processes too, which get it from their nannies.
    static let clusterSurvey = #"""
    import json, os, dask
    from bgxfleet import QUIET_CLUSTER, local_cluster
    if __name__ == "__main__":
        with local_cluster(2) as client:
            workers = client.run(lambda: {"pid": os.getpid(), "config": json.dumps(
                {k: dask.config.get(k) for k in QUIET_CLUSTER}, sort_keys=True)})
            threads = [w["nthreads"] for w in client.scheduler_info()["workers"].values()]
            print(json.dumps({"driver": os.getpid(), "threads": threads, "workers": list(workers.values()),
                              "quiet": json.dumps(QUIET_CLUSTER, sort_keys=True),
                              "profiler": QUIET_CLUSTER["distributed.worker.profile.enabled"]}))
    """#

    @Test("the driver's LocalCluster: worker processes of one thread each, Dask's profiler off and its monitors slowed in every worker",
          .enabled(if: daskAvailable || required, "python3 with dask.distributed is not installed (pip install dask distributed)"))
    func quietLocalCluster() throws {
        try #require(Self.daskAvailable, "BGX_REQUIRE_DASK is set but python3 cannot import dask.distributed")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let venv = try Self.install(into: dir)
        let script = dir.appendingPathComponent("survey.py")
        try Self.clusterSurvey.write(to: script, atomically: true, encoding: .utf8)
        let (status, output) = try ReportBrowserTests.execute(venv + "/bin/python", [script.path])
        try #require(status == 0, "\(output)")
        let line = try #require(output.split(separator: "\n").last.map(String.init))
        let survey = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(survey["threads"] as? [Int] == [1, 1])
        let workers = try #require(survey["workers"] as? [[String: Any]])
        let pids = Set(workers.compactMap { $0["pid"] as? Int })
        #expect(pids.count == 2 && !pids.contains(survey["driver"] as? Int ?? -1), "two worker processes of their own: \(line)")
        #expect(survey["profiler"] as? Bool == false)
        let quiet = try #require(survey["quiet"] as? String)
        #expect(quiet.contains(#""distributed.admin.tick.interval": "1s""#), "\(quiet)")
        for worker in workers {
            #expect(worker["config"] as? String == quiet, "a worker runs with \(worker["config"] ?? "?"), not \(quiet)")
        }
    }

    @Test("bgx-fleet-dask, pip-installed, on a LocalCluster writes what one bgx fleet process writes, byte for byte",
          .enabled(if: daskAvailable || required, "python3 with dask.distributed is not installed (pip install dask distributed)"))
    func localCluster() throws {
        try #require(Self.daskAvailable, "BGX_REQUIRE_DASK is set but python3 cannot import dask.distributed")
        let exe = try #require(CommandLineTests.executable, "the bgx executable was not built beside the tests")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-dask-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let venv = try Self.install(into: dir)

        let scenario = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: scenario, atomically: true, encoding: .utf8)
        let whole = try CommandLineTests().bgx(["fleet", scenario.path, "--devices", "16", "--out", dir.appendingPathComponent("whole").path])
        #expect(whole.status == 0)
        let (status, output) = try ReportBrowserTests.execute(venv + "/bin/bgx-fleet-dask", [
            scenario.path, "--devices", "16", "--shards", "4", "--workers", "2",
            "--bgx", exe.path, "--out", dir.appendingPathComponent("dask").path,
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("4/4 shards merged"))
        for name in FleetResult.fileNames {
            let a = try Data(contentsOf: dir.appendingPathComponent("whole/\(name)"))
            let b = try Data(contentsOf: dir.appendingPathComponent("dask/\(name)"))
            #expect(a == b, "\(name) differs")
        }
    }
}

@Suite("The fleet example: round times spike, earliestBeginDate does not")
struct FleetExampleTests {
    func run(spread: Bool) throws -> FleetResult {
        let path = repositoryRoot.appendingPathComponent("docs/examples/fleet-news.yaml").path
        var s = try ScenarioParser.parse(contentsOf: path)
        if spread { s.population?.pushSpread = .between(0, Time.hours(1)) }
        return try FleetRun(s, devices: 40).run()
    }

    @Test("pushes sent on the hour arrive in a spike at each round hour; a staggered send does not; refreshes bunch at the predictor's quarter-hours")
    func topOfTheHour() throws {
        let round = try run(spread: false)
        let push = try #require(round.arrivals["com.example.news"]?["silentPush"])
        #expect(try #require(FleetReport.topOfHourRatio(push)) > 5)
        let spread = try run(spread: true)
        let staggered = try #require(spread.arrivals["com.example.news"]?["silentPush"])
        #expect(try #require(FleetReport.topOfHourRatio(staggered)) < 2)
        #expect(staggered.reduce(0, +) > 0)
        // The scheduler launches refresh shortly before a predicted quarter-hour of use:
        // far more than the even 4/60 of refreshes start at :00, :15, :30 and :45.
        let refresh = try #require(round.arrivals["com.example.news"]?["refresh"])
        let quarters = refresh.enumerated().filter { $0.offset % 15 == 0 }.reduce(0) { $0 + $1.element }
        #expect(Double(quarters) / Double(max(1, refresh.reduce(0, +))) > 0.25)
    }
}

@Suite("bgx fleet compare: what if we change X")
struct FleetCompareTests {
    @Test("15 minutes against an hour between refreshes: the comparison shows each side's own figures")
    func earliestBegin() throws {
        let base = try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario)
        let hourly = try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario.replacingOccurrences(of: "earliestBegin: 15m",
                                                                                                       with: "earliestBegin: 1h"))
        let a = try FleetRun(base, devices: 20).run(), b = try FleetRun(hourly, devices: 20).run()
        let c = FleetComparison(a, b, names: ("15m", "1h"))
        let refreshes = try #require(c.rows.first { $0.0 == "refresh: arrivals" })
        #expect(refreshes.1 == "\(a.arrivals["com.example.news"]!["refresh"]!.reduce(0, +))")
        #expect(refreshes.2 == "\(b.arrivals["com.example.news"]!["refresh"]!.reduce(0, +))")
        #expect(c.rows.contains { $0.0 == "silent pushes delivered" && $0.1.hasSuffix("%)") })
        #expect(c.text.hasPrefix(" ") && c.text.contains("15m") && c.text.contains("submitToRun p50 / p90 / p99"))
    }

    @Test("on the command line, two result directories; a missing one is an error, exit 2")
    func commandLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try FleetRun(try ScenarioParser(file: "news.yaml").parse(fleetNewsScenario), devices: 4).run()
        try r.write(to: dir.appendingPathComponent("a").path)
        let cli = CommandLineTests()
        let ok = try cli.bgx(["fleet", "compare", dir.appendingPathComponent("a").path, dir.appendingPathComponent("a").path])
        #expect(ok.status == 0 && ok.stdout.contains("userLaunch: arrivals"))
        let missing = try cli.bgx(["fleet", "compare", dir.appendingPathComponent("a").path, dir.appendingPathComponent("nope").path])
        #expect(missing.status == 2 && missing.stderr.hasPrefix("error: "))
    }
}

/// docs/fleets.md's worked example, re-run small so its claims stay true in shape:
/// docs/examples/fleet-news-week.yaml, a week of a news app refreshing no
/// sooner than every 15 minutes, and one silent push to all at 17:00.
@Suite("The fleet week: a 17:00 campaign, refreshes before use, 15 min against 1 h")
struct FleetWeekExampleTests {
    static func run(earliestBegin: String, devices: Int = 60) throws -> FleetResult {
        let path = repositoryRoot.appendingPathComponent("docs/examples/fleet-news-week.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "earliestBegin: 15m", with: "earliestBegin: \(earliestBegin)")
        return try FleetRun(try ScenarioParser(file: path).parse(text), devices: devices).run()
    }

    @Test("the campaign arrives mostly in its own minute, 17:00; the rest trickle in later, held; not all arrive")
    func campaign() throws {
        let r = try Self.run(earliestBegin: "15m")
        let push = try #require(r.arrivals["com.example.news"]?["silentPush"])
        let total = push.reduce(0, +)
        let atFive = push[17 * 60]
        #expect(push.max() == atFive && Double(atFive) > 0.5 * Double(total))
        #expect(push[(17 * 60 + 1)...].reduce(0, +) + push[..<(17 * 60)].reduce(0, +) > 0, "none arrived late")
        #expect(r.counts["pushesSent"] == 60 && total < 60, "every push arrived")
    }

    @Test("an hour instead of 15 minutes between refreshes changes the refresh load by less than a fifth")
    func earliestBeginBarelyMatters() throws {
        let quarter = try Self.run(earliestBegin: "15m"), hour = try Self.run(earliestBegin: "1h")
        let a = try #require(quarter.arrivals["com.example.news"]?["refresh"]).reduce(0, +)
        let b = try #require(hour.arrivals["com.example.news"]?["refresh"]).reduce(0, +)
        #expect(a > 0 && b > 0)
        #expect(abs(Double(a - b)) / Double(a) < 0.2, "15m: \(a) refreshes, 1h: \(b)")
        // Yet earliestBegin is honoured: a request never starts sooner than it allows.
        let soonest = try #require(hour.delays["submitToRun"]).min
        #expect(soonest >= 3_564_000, "a 1 h request ran after \(soonest) ms")
    }
}
