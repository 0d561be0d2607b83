import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// The timeline report (issue 6): its structure follows the trace, it stays
/// small for a week of 20 apps, it is deterministic, and a real browser draws
/// it as a picture.
@Suite("Timeline report (HTML)")
struct ReportTests {
    static func run(_ scenario: Scenario) throws -> ScenarioRun {
        let run = try ScenarioRun(scenario)
        run.run()
        return run
    }

    static func demo() throws -> ScenarioRun {
        try run(ScenarioParser(file: Demo.file).parse(Demo.scenario))
    }

    /// The trace kinds the report marks on app rows.
    static let markedKinds = ["launch", "terminate", "bgtask.begin", "bgtask.expire", "bgtask.invalid",
                              "notification.deliver", "notification.drop", "notification.tap", "task.start", "task.expire",
                              "task.reject", "task.cancel", "fetch.start", "memory.warning", "audio.start", "audio.stop",
                              "location.deliver", "accessory.deliver", "location.drop", "accessory.drop",
                              "transfer.complete", "transfer.fail", "transfer.cancel", "push.deliver", "push.drop"]

    /// Counts of `data-kind` markers per app, read back from the HTML: every
    /// app group `<g class="app" data-app="…">…</g>` of every day strip.
    static func markers(in html: String) -> [String: [String: Int]] {
        var counts: [String: [String: Int]] = [:]
        for chunk in html.components(separatedBy: "<g class=\"app\" data-app=\"").dropFirst() {
            let app = String(chunk.prefix { $0 != "\"" })
            let group = chunk.components(separatedBy: "</g>")[0]
            for piece in group.components(separatedBy: "data-kind=\"").dropFirst() {
                counts[app, default: [:]][String(piece.prefix { $0 != "\"" }), default: 0] += 1
            }
        }
        return counts
    }

    static func occurrences(_ needle: String, in html: String) -> Int {
        html.components(separatedBy: needle).count - 1
    }

    @Test("every app has a row, a summary line and a concerns line; markers match the trace's counts",
          arguments: [Demo.file] + scenarioFiles)
    func structureFollowsTheTrace(_ path: String) throws {
        let run = path == Demo.file ? try Self.demo() : try Self.run(ScenarioParser.parse(contentsOf: path))
        let html = TimelineReport(run: run).html
        let device = run.device
        let names = device.renderer.appNames
        let strips = Self.occurrences("<svg class=\"timeline\"", in: html)
        #expect(strips >= 1)
        let found = Self.markers(in: html)
        for (index, name) in names.enumerated() {
            let attribute = "data-app=\"\(name)\""
            // One row per strip, plus one line in each of the two tables.
            #expect(Self.occurrences(attribute, in: html) == strips + 2, "\(path): \(name)")
            let events = device.trace.filter { $0.app == AppID(index: Int32(index)) }
            for kind in Self.markedKinds {
                let expected = events.filter { $0.kindName == kind }.count
                #expect((found[name]?[kind] ?? 0) == expected, "\(path): \(name) \(kind)")
            }
        }
        // Nothing but the marked kinds is marked.
        #expect(Set(found.values.flatMap(\.keys)).isSubset(of: Set(Self.markedKinds)))
    }

    @Test("the demo's report shows its kill with the reason, and the three concerns")
    func demoContent() throws {
        let html = TimelineReport(run: try Self.demo()).html
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("terminate: reason=backgroundTaskTimeout code=0x2182bad2"))
        #expect(html.contains("The three concerns: power, performance, privacy (rules §12)"))
        // Nothing points outside the repository.
        #expect(!html.contains("SPEC §") && !html.contains("DESIGN.md"))
        #expect(html.contains("background task &#39;send&#39; ×14"))
        #expect(html.contains("BGTask &#39;com.example.colorfeed.db_cleaning&#39; ×2"))
        // Self-contained: no script, nothing fetched.
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(!html.contains("src="))
    }

    @Test("cold and warm launches, and wakes by cause, are counted from the trace")
    func coldAndWarm() throws {
        let scenario = try ScenarioParser(file: "warm.yaml").parse("""
        duration: 1h
        apps: [{bundle: com.example.a}]
        timeline:
          - {at: 1m, user: launch com.example.a}
          - {at: 2m, user: home}
          - {at: 10m, user: launch com.example.a}
          - {at: 11m, user: lock}
          - {at: 12m, user: unlock}
          - {at: 20m, user: forceQuit com.example.a}
          - {at: 30m, user: launch com.example.a}
        """)
        let html = TimelineReport(run: try Self.run(scenario)).html
        // Two processes (cold); a return from suspension and one from unlock (warm).
        #expect(html.contains("<td class=\"n\">2</td><td class=\"n\">2</td><td>user 2</td>"))
        #expect(html.contains("<td>userForceQuit 1</td>"))
    }

    @Test("SPEC §9: notifications are counted (to user / to app / dropped / opened) and marked by where they went")
    func notifications() throws {
        let html = TimelineReport(run: try Self.run(ScenarioParser.parse(
            contentsOf: repositoryRoot.appendingPathComponent("Scenarios/spec9-tap-to-launch.yaml").path))).html
        // Delivered to the user at 11m and 35m; three taps, one of them on nothing (device-wide, not the app's).
        #expect(html.contains("<td class=\"n\">2 / 0 / 0 / 2</td>"))
        // Each marker (the legend shows each shape once, in outline).
        #expect(Self.occurrences("class=\"m notif-tap\"", in: html) == 2)
        #expect(Self.occurrences("class=\"m notif\"", in: html) == 2)
        // None went to the app in front, so neither a marker nor a legend entry.
        #expect(Self.occurrences("class=\"m notif-app\"", in: html) == 0)
        #expect(!html.contains("href=\"#m-notification-app\" class=\"m shape\""))
        #expect(html.contains("notification.deliver: id=tea to=user alert=Tea is ready sound=default"))
        #expect(html.contains("notification opened by the person"))
    }

    @Test("text from the scenario is escaped")
    func escaping() throws {
        let scenario = try ScenarioParser(file: "<b>&\"x\".yaml").parse("""
        duration: 1h
        apps:
          - bundle: com.example.a
            on:
              didEnterBackground:
                - beginBackgroundTask: "<script>alert('x')</script>"
        timeline:
          - {at: 1m, user: launch com.example.a}
          - {at: 2m, user: home}
        """)
        let html = TimelineReport(run: try Self.run(scenario)).html
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
    }

    @Test("the same run gives byte-identical reports")
    func deterministic() throws {
        let first = TimelineReport(run: try Self.demo()).html
        let second = TimelineReport(run: try Self.demo()).html
        #expect(first == second)
        let week = try Self.syntheticWeek()
        #expect(TimelineReport(run: try Self.run(week)).html == TimelineReport(run: try Self.run(week)).html)
    }

    @Test("a week of 20 apps: a strip per calendar day, each naming its day, with every app, well under 2 MB")
    func weekOfTwentyApps() throws {
        let run = try Self.run(try Self.syntheticWeek())
        let html = TimelineReport(run: run).html
        let bytes = html.utf8.count
        #expect(bytes < 1_000_000, "\(bytes) bytes")
        // 7 days from Monday 06:00 touch 8 calendar days; the first and last are partial.
        #expect(Self.occurrences("<svg class=\"timeline\"", in: html) == 8)
        for day in 0...7 { #expect(html.contains("<text class=\"day\" x=\"0\" y=\"16\">Day \(day) · ")) }
        #expect(html.contains(">Day 7 · Mon 2026-01-12</text>"))
        #expect(Self.occurrences("<title>before the run</title>", in: html) == 1)
        #expect(Self.occurrences("<title>after the run</title>", in: html) == 1)
        for name in run.device.renderer.appNames {
            #expect(Self.occurrences("<g class=\"app\" data-app=\"\(name)\"", in: html) == 8)
        }
        // The device rows show what changed: nights on the charger, locked.
        #expect(Self.occurrences("<rect class=\"charging\"", in: html) >= 6)
        // Every lane and label fits the label column's 27 characters (29 for the thin lanes).
        #expect(html.contains("<title>com.example.app19</title>com.example.app19</text>"))
        #expect(Self.occurrences("<rect class=\"locked\"", in: html) >= 6)
        #expect(Self.occurrences("<rect class=\"net-cellular\"", in: html) >= 1)
        #expect(Self.occurrences("<rect class=\"lowpower\"", in: html) >= 1)
        // Coordinates are rounded to a tenth.
        #expect(html.range(of: #"x="[0-9]+\.[0-9]{2}"#, options: .regularExpression) == nil)
    }

    static func file(_ name: String) throws -> ScenarioRun {
        try run(ScenarioParser.parse(contentsOf: repositoryRoot.appendingPathComponent("Scenarios/\(name)").path))
    }

    /// The `<ul class="legend">` part of a report, and the rest.
    static func legendAndRest(_ html: String) -> (legend: String, rest: String) {
        let start = html.range(of: "<ul class=\"legend\">")!, end = html.range(of: "</ul>", range: start.upperBound..<html.endIndex)!
        return (String(html[start.lowerBound..<end.upperBound]), String(html[..<start.lowerBound] + html[end.upperBound...]))
    }

    /// The distinct words that follow `prefix` in the text, up to a quote.
    static func values(after prefix: String, in text: String) -> Set<String> {
        Set(text.components(separatedBy: prefix).dropFirst().map { String($0.prefix { $0 != "\"" }) })
    }

    @Test("SPEC §5: a request's life is a band under its app — held back by ChargerPluggedInPolicy 09:00–22:00, then running — and the table says why it waited")
    func requestBands() throws {
        let html = TimelineReport(run: try Self.file("spec5-processing-waits-for-power.yaml")).html
        // A lane for the identifier, under the app's row.
        #expect(html.contains("<title>com.example.photos.index</title>com.example.photos.index</text>"))
        let held = #"<title>com.example.photos.index held back: ChargerPluggedInPolicy: [{requiresExternalPower == 1 AND pluggedIn == 0}]: 0d 09:00:00 – 0d 22:00:00 (13h)</title>"#
        #expect(html.contains(held))
        // The band's colour is the one the legend gives ChargerPluggedInPolicy.
        let band = try #require(html.components(separatedBy: held).first?.components(separatedBy: "<rect class=\"").last)
        let style = String(band.prefix { $0 != "\"" })
        #expect(style.hasPrefix("req req-hold"))
        #expect(Self.legendAndRest(html).legend.contains("<rect class=\"\(style)\" x=\"1\" y=\"3\" width=\"20\" height=\"8\"/></svg>request held back by ChargerPluggedInPolicy</li>"))
        // The reason changes: after the charger, the device's activity held the resubmitted request
        // while in use; once locked, DeviceActivityPolicy only scores low (dasd's logs), so the
        // retry spacing shows, then the score below the threshold until the device is idle.
        #expect(html.contains("com.example.photos.index held back: DeviceActivityPolicy: [{launchType == PROCESSING AND deviceActive == 1}]: 0d 22:07:00 – 0d 22:08:00 (1m)"))
        #expect(html.contains("com.example.photos.index held back: score 0.83 &lt; 0.91 — DeviceActivityPolicy: [{launchType == PROCESSING AND idle &lt; 10m}]: 0d 22:17:00 – 0d 22:18:00 (1m)"))
        #expect(html.contains("<title>com.example.photos.index running (score "))
        // Readable without hovering: the table below the timeline.
        #expect(html.contains("<h2>Why it waited: each BGTask request</h2>"))
        // Plugged in after 13 hours unplugged: the thundering herd holds it 5 minutes more (rules §6).
        #expect(html.contains("<td class=\"why\"><div>0d 09:00:00 – 0d 22:00:00 (13h): ChargerPluggedInPolicy: [{requiresExternalPower == 1 AND pluggedIn == 0}]</div><div>0d 22:00:00 – 0d 22:05:00 (5m): ThunderingHerdPolicy: "))
        #expect(html.contains("</div></td><td>started 0d 22:05:00 after 13h5m: "))
        #expect(html.contains("; expired 0d 22:07:00"))
        #expect(html.range(of: "</svg>\n</section>\n", options: .backwards)!.lowerBound
                < html.range(of: "Why it waited")!.lowerBound)
        // The summary table: submitted / started / deferred / refused / expired, and the longest hold.
        #expect(html.contains("<td>ChargerPluggedInPolicy (13h)</td>"))
    }

    @Test("SPEC §5: a request the app cancels ends its band there, with a marker, and the table says so")
    func cancelledRequest() throws {
        let scenario = try ScenarioParser(file: "cancel.yaml").parse("""
        duration: 1h
        apps:
          - bundle: com.example.feed
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.feed.refresh]
            on:
              didFinishLaunching:
                - register: com.example.feed.refresh
              didEnterBackground:
                - submit: {identifier: com.example.feed.refresh, type: appRefresh, earliestBegin: 2h}
              willEnterForeground:
                - cancel: com.example.feed.refresh
        timeline:
          - {at: 1m, user: launch com.example.feed}
          - {at: 2m, user: home}
          - {at: 30m, user: launch com.example.feed}
        """)
        let html = TimelineReport(run: try Self.run(scenario)).html
        #expect(Self.occurrences("class=\"m bgt-cancel\"", in: html) == 1)
        #expect(html.contains("<td>cancelled by the app 0d 00:30:00</td>"))
        // Held back from 2m until the cancel at 30m (the earliest begin date is two hours on).
        #expect(html.contains("held back: EarliestBeginDatePolicy"))
        #expect(html.contains(": 0d 00:02:00 – 0d 00:30:00 (28m)</title>"))
    }

    @Test("SPEC §5: refused submits are markers and a table with iOS's error and why")
    func refusals() throws {
        let html = TimelineReport(run: try Self.run(ScenarioParser(file: "refused.yaml").parse(SummaryTests.allRefused))).html
        // Two markers, and the legend's outline of the shape.
        #expect(Self.occurrences("class=\"m bgt-reject\"", in: html) == 2)
        #expect(Self.occurrences("href=\"#m-forbidden\" class=\"m shape\"", in: html) == 1)
        #expect(html.contains("<h2>BGTask submits refused</h2>"))
        #expect(Self.occurrences("<td>notPermitted</td><td>com.example.feed.refresh is not in BGTaskSchedulerPermittedIdentifiers</td>", in: html) == 2)
        #expect(html.contains("<td class=\"n\">2 / 0 / 0 / 2 / 0</td>"))
        // No request ever waited: no lane, no table.
        #expect(!html.contains("Why it waited"))
    }

    @Test("SPEC §7: pushes held and dropped are told apart (marker and table), and a held push is drawn until it arrives")
    func pushesHeldAndDropped() throws {
        let html = TimelineReport(run: try Self.demo()).html
        #expect(html.contains("<h2>Pushes held or dropped</h2>"))
        #expect(html.contains("<td>held, arrived 2d 19:00:00 (after 20m)</td>"))
        #expect(!html.contains("held for later</td>"))
        #expect(html.contains("</td><td>held: throttled: 3 background pushes in the past hour (at most 3)</td>"))
        #expect(html.contains("<td>dropped</td><td>replaced by a newer push while held: only the newest is kept</td>"))
        // The one replaced while held: its wait ends there.
        #expect(html.contains("<td>held, dropped "))
        #expect(Self.occurrences("class=\"m push-held\"", in: html) == 3)
        #expect(Self.occurrences("class=\"m push-drop\"", in: html) == 1)
        // Each held push's wait is a band on the app's "pushes held" lane (the night's in two strips).
        #expect(html.contains("<title>pushes held</title>pushes held</text>"))
        #expect(Self.occurrences("<rect class=\"req push-wait\"", in: html) == 4)
        #expect(html.contains("<title>push held: the user force-quit the app; no background launch until the user opens it; "
                              + "arrived 5d 08:10:00: 4d 22:00:00 – 5d 08:10:00 (10h10m)</title>"))
    }

    @Test("SPEC §8: a transfer's wait is a band — waiting for power from its creation until it moves — under its app")
    func transferWaits() throws {
        let html = TimelineReport(run: try Self.run(ScenarioParser(file: "transfer.yaml").parse("""
        duration: 1d
        apps:
          - bundle: com.example.pods
            on:
              didFinishLaunching:
                - createSession: com.example.pods.episodes
              didEnterBackground:
                - download: {session: com.example.pods.episodes, bytes: 40MB, discretionary: true}
        timeline:
          - {at: 12:00, user: launch com.example.pods}
          - {at: 12:01, user: home}
          - {at: 23:00, device: {charging: true}}
        """))).html
        #expect(html.contains("<title>com.example.pods.episodes</title>com.example.pods.episodes</text>"))
        #expect(html.contains("<title>transfer in com.example.pods.episodes waiting: a discretionary transfer (isDiscretionary) waits for external power: 0d 12:01:00 – 0d 23:00:00 (10h59m)</title>"))
        #expect(html.contains("<title>transfer in com.example.pods.episodes moving: 0d 23:00:00 – "))
    }

    @Test("the report lists the scenario's expectations, each ok or failed")
    func expectations() throws {
        let scenario = try ScenarioParser(file: "expect.yaml").parse("""
        duration: 10m
        apps: [{bundle: com.example.a}]
        timeline: [{at: 1m, user: launch com.example.a}]
        expect:
          - {kind: launch, app: com.example.a}
          - {kind: terminate, app: com.example.a}
        """)
        let html = TimelineReport(run: try Self.run(scenario)).html
        #expect(html.contains("<li class=\"ok\"><b>ok</b> expect.yaml:5: {kind: launch, app: com.example.a}: found 1"))
        #expect(html.contains("<li class=\"failed\"><b>FAILED</b> expect.yaml:6: {kind: terminate, app: com.example.a}: expected at least one, found none</li>"))
        #expect(html.contains("expectations: 1 of 2 FAILED"))
    }

    @Test("a 1-hour run is drawn over its own span: an event at 59m sits at the right end, not in the first pixels of a day")
    func shortRunSpan() throws {
        let scenario = try ScenarioParser(file: "short.yaml").parse("""
        duration: 1h
        apps: [{bundle: com.example.a}]
        timeline: [{at: 59m, user: launch com.example.a}]
        """)
        let html = TimelineReport(run: try Self.run(scenario)).html
        #expect(Self.occurrences("<svg class=\"timeline\"", in: html) == 1)
        let launch = try #require(html.components(separatedBy: "class=\"m launch-user\" x=\"").dropFirst().first)
        let x = try #require(Double(launch.prefix { $0 != "\"" }))
        let right = ReportSVG.labelWidth + ReportSVG.plotWidth
        #expect(x > right - ReportSVG.plotWidth / 60 * 1.5 && x <= right, "x = \(x)")
    }

    @Test("device rows with nothing to show are left out, and the legend lists only what is drawn",
          arguments: [Demo.file] + scenarioFiles)
    func legendListsOnlyWhatAppears(_ path: String) throws {
        let run = path == Demo.file ? try Self.demo() : try Self.run(ScenarioParser.parse(contentsOf: path))
        let html = TimelineReport(run: run).html
        let (legend, rest) = Self.legendAndRest(html)
        // Shapes: the legend's outlines are the shapes of the markers drawn.
        let shapes = Set(rest.components(separatedBy: "<use href=\"#m-").dropFirst().map { String($0.prefix { $0 != "\"" }) })
        let legendShapes = Set(legend.components(separatedBy: "<use href=\"#m-").dropFirst().map { String($0.prefix { $0 != "\"" }) })
        #expect(shapes == legendShapes, "\(path)")
        // Colours: the legend names each colour the markers and bands are drawn in, and no other.
        let markerStyles = Self.values(after: "class=\"m ", in: rest).compactMap(MarkerStyle.init(rawValue:))
        let rects = Self.values(after: "<rect class=\"", in: rest)
        var used = Set(markerStyles.map(\.colour))
        let bandColours: [String: ReportColour] = [
            "foreground": .front, "background": .background, "suspended": .suspended, "lane0": .notRunning,
            "chargezone": .charging, "charging": .device, "locked": .device, "net-wifi": .device, "lowpower": .device,
            "req req-run": .running, "req xfer-run": .running, "req xfer-wait": .waiting, "req push-wait": .waiting,
            "req req-wait": .waiting,
        ]
        for style in rects {
            if let colour = bandColours[style] { used.insert(colour) }
            if style.hasPrefix("req req-hold") { used.insert(.waiting) }
            if style == "net-cellular" || style == "net-none" { used.insert(.device) }
        }
        let legendColours = Set(ReportColour.allCases.filter { legend.contains("class=\"\($0.swatchClass)\"") })
        #expect(used == legendColours, "\(path)")
        // Patterns and hollow bands: in the legend when drawn.
        for style in rects where style.hasPrefix("req req-hold") || style == "req req-wait" || style.hasPrefix("net-c") || style == "net-none" {
            #expect(legend.contains("<rect class=\"\(style)\""), "\(path): \(style) is drawn but not in the legend")
        }
        // A device row is drawn only when it has a band or a marker.
        for row in ["charging", "locked", "network", "Low Power Mode"] {
            let drawn = html.contains("<title>\(row)</title>\(row)</text>")
            let shown = html.contains("<title>\(row): ") || (row == "locked" && html.contains("class=\"m reboot\" x"))
            #expect(drawn == shown, "\(path): \(row)")
        }
    }

    @Test("a run that never charges, locks or enters Low Power Mode has no rows for them")
    func emptyDeviceRowsLeftOut() throws {
        let html = TimelineReport(run: try Self.file("spec2-expiry-handled.yaml")).html
        for row in ["charging", "locked", "Low Power Mode"] { #expect(!html.contains("<title>\(row)</title>")) }
        #expect(html.contains("<title>network</title>network</text>"))
        #expect(!Self.legendAndRest(html).legend.contains("<rect class=\"lowpower\""))
    }

    @Test("markers that differ in meaning differ visibly — in shape or colour — and are about 12 px across")
    func markersAreDistinct() throws {
        /// How far apart two colours are (RGB distance; 0–441).
        func distance(_ x: String, _ y: String) -> Double {
            func rgb(_ hex: String) -> [Double] {
                let v = Int(hex.dropFirst(), radix: 16) ?? 0
                return [Double(v >> 16 & 255), Double(v >> 8 & 255), Double(v & 255)]
            }
            return zip(rgb(x), rgb(y)).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        }
        for a in MarkerStyle.allCases {
            // Its colour is one of the report's, by its CSS.
            #expect(TimelineReport.styleCSS.contains(".\(a.rawValue){fill:var(\(a.colour.variable))}"), "\(a)")
            #expect(ReportSVG.markerShapes.contains { $0.id == a.shape }, "\(a) has no shape")
            for b in MarkerStyle.allCases where a != b {
                // No two meanings share both shape and colour.
                #expect(a.shape != b.shape || a.colour != b.colour, "\(a) and \(b) look the same")
                // Markers of one shape are told apart by colour: clearly different colours, not two teals.
                if a.shape == b.shape { #expect(distance(a.colour.hex, b.colour.hex) >= 100, "\(a) and \(b) look alike") }
            }
        }
        // The two the issue named: a BGTask's start and audio's.
        #expect(MarkerStyle.bgTaskStart.shape != MarkerStyle.audioStart.shape)
        // Every shape spans at least 10 units (a viewBox unit is a pixel at 1440 px).
        for (id, svg) in ReportSVG.markerShapes {
            let numbers = svg.components(separatedBy: CharacterSet(charactersIn: "0123456789.-").inverted)
                .flatMap { $0.split(separator: "-", omittingEmptySubsequences: true).map { Double($0) ?? 0 } }
            let extent = numbers.max() ?? 0
            #expect(extent >= 5 && extent <= 2 * ReportSVG.markerHalfWidth, "\(id): \(extent)")
        }
    }

    /// 20 apps used a few times a day for a week, with background tasks that
    /// end, expire or are killed, and nights on the charger.
    static func syntheticWeek() throws -> Scenario {
        var yaml = """
        profile: modern
        seed: 3
        start: 2026-01-05T06:00:00
        duration: 7d
        device: {battery: 60%, charging: false, network: wifi}
        apps:

        """
        for i in 0..<20 {
            yaml += "  - bundle: com.example.app\(i)\n    on:\n      didEnterBackground:\n"
            yaml += "        - beginBackgroundTask: sync\n        - wait: \(i % 3 == 0 ? "10m" : "\(5 + i)s")\n"
            if i % 3 != 0 || i % 2 == 0 { yaml += "        - endBackgroundTask: sync\n" }
            if i % 2 == 0 {
                yaml += "      backgroundTaskExpired sync:\n        - endBackgroundTask: sync\n"
            }
        }
        yaml += "usage:\n"
        for i in 0..<20 {
            let hours = [7 + i % 5, 12 + i % 3, 18 + i % 4]
            let sessions = hours.map { "\"\($0 < 10 ? "0" : "")\($0):\(10 + 2 * i) \(2 + i % 7)m\"" }
            yaml += "  - {app: com.example.app\(i), daily: [\(sessions.joined(separator: ", "))]}\n"
        }
        yaml += "timeline:\n"
        for day in 0..<7 {
            let d = day == 0 ? "" : "\(day)d "
            yaml += "  - {at: \(d)23:00, user: lock}\n  - {at: \(d)23:10, device: {charging: true}}\n"
            // The last morning's unplugging is after the week ends (an error, not silently ignored).
            if day < 6 { yaml += "  - {at: \(day + 1)d 06:30, device: {charging: false}}\n" }
        }
        yaml += "  - {at: 2d 09:00, device: {network: cellular}}\n  - {at: 2d 11:00, device: {network: wifi}}\n"
        yaml += "  - {at: 4d 14:00, device: {lowPowerMode: true}}\n  - {at: 4d 20:00, device: {lowPowerMode: false}}\n"
        return try ScenarioParser(file: "week.yaml").parse(yaml)
    }
}

/// The report from the command line: `bgx run --report` and `bgx demo`.
@Suite("Timeline report from the command line")
struct ReportCommandLineTests {
    func bgx(_ arguments: [String], in directory: URL) throws -> (status: Int32, stdout: String) {
        let exe = try #require(CommandLineTests.executable, "the bgx executable was not built beside the tests")
        let process = Process()
        process.executableURL = exe
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-report-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("bgx run --report FILE writes the report and prints what it printed before")
    func runWritesReport() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = repositoryRoot.appendingPathComponent("Scenarios/spec2-task-never-ended.yaml").path
        let report = dir.appendingPathComponent("out.html").path
        let with = try bgx(["run", scenario, "--report", report], in: dir)
        let without = try bgx(["run", scenario], in: dir)
        #expect(with.status == 0)
        #expect(with.stdout == without.stdout)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("bgx timeline: \(scenario)"))
        #expect(html.contains("backgroundTaskTimeout"))
        let unwritable = try bgx(["run", scenario, "--report", "/nonexistent/dir/out.html"], in: dir)
        #expect(unwritable.status == 2)
    }

    @Test("bgx demo writes bgx-demo.html in the current directory and says so")
    func demoWritesReport() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try bgx(["demo"], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout.contains("bgx-demo.html"))
        let html = try String(contentsOfFile: dir.appendingPathComponent("bgx-demo.html").path, encoding: .utf8)
        #expect(html.contains("bgx timeline: bgx demo"))
    }
}
