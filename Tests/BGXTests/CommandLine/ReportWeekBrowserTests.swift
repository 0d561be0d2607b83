import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// A week's report as headless Chromium lays it out (issue 31): the page is
/// measured from its rendered element boxes — a script added to a copy of
/// it (the report itself has none) writes them out and `--dump-dom` hands
/// them back. Nothing drawn on top of something else, every wait drawn, a
/// colour means one thing, readable labels, and a week that fits a 1440-px
/// window's width and at most `pageHeight` px of height.
@Suite("Timeline report: a week in a browser")
struct ReportWeekBrowserTests {
    /// The window the page is laid out in, and what the week's page may take.
    static let viewport = 1440, pageHeight = 3000.0
    /// The smallest font, in CSS pixels as drawn, of any text on the timeline.
    static let smallestFont = 12.0

    /// A podcast app through a week, as a user wrote it: a discretionary
    /// download on every exit (it waits for the charger at 23:00), a silent
    /// push every evening (held on Wednesday after a force quit, until the
    /// person opens the app at 20:00), and several things at one instant
    /// (the commute's launch, audio and background task; the night's transfers).
    static let week = """
    start: 2026-01-05T00:00:00
    duration: 7d
    apps:
      - bundle: com.example.pods
        backgroundModes: [audio, fetch, processing, remote-notification]
        permittedTaskIdentifiers: [com.example.pods.refresh, com.example.pods.download]
        on:
          didFinishLaunching:
            - register: com.example.pods.refresh
            - register: com.example.pods.download
            - createSession: com.example.pods.episodes
          didBecomeActive:
            - playAudio: {for: 40m}
          didEnterBackground:
            - download: {session: com.example.pods.episodes, bytes: 40MB, discretionary: true}
            - beginBackgroundTask: savePosition
            - work: 500ms
            - endBackgroundTask: savePosition
            - submit: {identifier: com.example.pods.refresh, type: appRefresh, earliestBegin: 1h}
            - submit: {identifier: com.example.pods.download, type: processing, requiresExternalPower: true, requiresNetworkConnectivity: true}
          backgroundTaskExpired savePosition:
            - endBackgroundTask: savePosition
          task com.example.pods.refresh:
            - wait: 3s
            - submit: {identifier: com.example.pods.refresh, type: appRefresh, earliestBegin: 1h}
            - complete: true
          expire com.example.pods.refresh:
            - complete: false
          task com.example.pods.download:
            - download: {session: com.example.pods.episodes, bytes: 120MB, discretionary: true}
            - complete: true
          expire com.example.pods.download:
            - complete: false
          backgroundTransfer com.example.pods.episodes:
            - work: 1s
            - complete: true
          silentPush:
            - wait: 2s
            - complete: newData
    usage:
      - {app: com.example.pods, daily: ["12:30 3m", "20:00 5m"]}
    timeline:
      - {every: weekday, at: "07:30", user: launch com.example.pods}
      - {every: weekday, at: "07:31", user: lock}
      - {every: day, at: "23:00", user: lock}
      - {every: day, at: "23:00", device: {charging: true}}
      - {every: day, at: "07:00", device: {charging: false}}
      - {every: day, at: "18:00", push: {app: com.example.pods, type: background, priority: 5}}
      - {every: sun, at: "21:00", user: forceQuit com.example.pods}
      - {every: wed, at: "17:00", user: forceQuit com.example.pods}
    """

    static func weekRun() throws -> ScenarioRun {
        let run = try ScenarioRun(try ScenarioParser(file: "week.yaml").parse(week))
        run.run()
        return run
    }

    /// Added to a copy of the page: measures what Chromium laid out and
    /// replaces the page with the measurements as JSON.
    static let measuring = #"""
    <script>
    (function () {
      const box = e => { const b = e.getBoundingClientRect();
        return {x: b.left + scrollX, y: b.top + scrollY, w: b.width, h: b.height}; };
      // A fill as drawn: a colour (rgb), a pattern (by id), or hollow (white, with its stroke).
      const fill = e => { const s = getComputedStyle(e), f = s.fill;
        if (f.startsWith('url(')) return 'pattern:' + f.replace(/^url\("?#?/, '').replace(/"?\)$/, '').replace(/^.*#/, '');
        if (f === 'rgb(255, 255, 255)') return e.tagName === 'use' ? 'shape:' + e.getAttribute('href') : 'hollow:' + s.stroke;
        return f; };
      const out = {viewport: innerWidth, width: document.documentElement.scrollWidth,
                   height: document.documentElement.scrollHeight};
      out.markers = [...document.querySelectorAll('svg.timeline use')].map(e =>
        Object.assign(box(e), {kind: e.getAttribute('data-kind'), fill: fill(e)}));
      out.texts = [...document.querySelectorAll('svg.timeline text')].map(e => {
        const svg = e.ownerSVGElement;
        const own = [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
        return Object.assign(box(e), {text: own, svg: [...document.querySelectorAll('svg.timeline')].indexOf(svg),
          svgLeft: box(svg).x, font: parseFloat(getComputedStyle(e).fontSize) * e.getScreenCTM().a}); });
      out.bands = [...document.querySelectorAll('svg.timeline rect')].map(e =>
        Object.assign(box(e), {cls: e.getAttribute('class'), fill: fill(e),
          title: e.querySelector('title') ? e.querySelector('title').textContent : ''}));
      out.legend = [...document.querySelectorAll('.legend li')].filter(li => !li.classList.contains('key')).map(li => {
        const swatch = li.querySelector('rect, use');
        return {text: li.textContent, fill: swatch ? fill(swatch) : ''}; });
      const pre = document.createElement('pre'); pre.id = 'bgx-measured'; pre.textContent = JSON.stringify(out);
      document.body.replaceChildren(pre);
    })();
    </script>
    """#

    struct Box: Decodable {
        var x: Double, y: Double, w: Double, h: Double
        func overlaps(_ o: Box, slack: Double = 0.05) -> Bool {
            x < o.x + o.w - slack && o.x < x + w - slack && y < o.y + o.h - slack && o.y < y + h - slack
        }
    }
    struct Marker: Decodable { var x: Double, y: Double, w: Double, h: Double, kind: String?, fill: String
        var box: Box { Box(x: x, y: y, w: w, h: h) } }
    struct Text: Decodable { var x: Double, y: Double, w: Double, h: Double, text: String, svg: Int, svgLeft: Double, font: Double
        var box: Box { Box(x: x, y: y, w: w, h: h) } }
    struct Band: Decodable { var x: Double, y: Double, w: Double, h: Double, cls: String?, fill: String, title: String }
    struct Entry: Decodable { var text: String, fill: String }
    struct Layout: Decodable {
        var viewport: Int, width: Int, height: Double
        var markers: [Marker], texts: [Text], bands: [Band], legend: [Entry]
    }

    /// The report laid out by Chromium in a window `viewport` px wide.
    static func layout(_ html: String) throws -> Layout {
        let json = try ReportBrowserTests.measured(html, script: measuring, width: viewport)
        return try JSONDecoder().decode(Layout.self, from: Data(json.utf8))
    }

    static let enabled = ReportBrowserTests.browser != nil || ReportBrowserTests.required

    @Test("no marker is drawn on top of another: what happens at one instant is stacked (the week and the demo)",
          .enabled(if: enabled, "no chromium on PATH"), arguments: ["week", "demo"])
    func markersDoNotOverlap(_ which: String) throws {
        let run = which == "week" ? try Self.weekRun() : try ReportTests.demo()
        let layout = try Self.layout(TimelineReport(run: run).html)
        let markers = layout.markers.filter { $0.kind != nil }
        #expect(markers.count >= 50, "only \(markers.count) markers")
        var overlaps: [String] = []
        for (i, a) in markers.enumerated() {
            for b in markers[(i + 1)...] where a.box.overlaps(b.box) {
                overlaps.append("\(a.kind!)@(\(Int(a.x)),\(Int(a.y))) and \(b.kind!)@(\(Int(b.x)),\(Int(b.y)))")
            }
        }
        #expect(overlaps.isEmpty, "\(overlaps.count) markers overlap, e.g. \(overlaps.prefix(5))")
        // In the week several things did happen at one instant: the stacking was needed.
        let instants = Dictionary(grouping: run.device.trace.filter { MarkerStyle($0.kind) != nil && $0.app != nil },
                                  by: { "\($0.app!.index) \($0.time)" })
        #expect(which == "demo" || instants.values.contains { $0.count >= 3 })
    }

    /// Whether two colours look alike: close in CIELAB (ΔE*76 under 25; 2.3
    /// is just noticeable), or of one hue family — both coloured, hues within
    /// 20° and lightness within 15 (the purples and oranges issue 31 found
    /// two meanings in were 39 and 18 apart, but of one hue).
    static func alike(_ a: [Double], _ b: [Double]) -> Bool {
        func lab(_ c: [Double]) -> (l: Double, a: Double, b: Double) {
            func linear(_ v: Double) -> Double { let v = v / 255; return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
            let (r, g, bl) = (linear(c[0]), linear(c[1]), linear(c[2]))
            let x = (r * 0.4124 + g * 0.3576 + bl * 0.1805) / 0.95047, y = r * 0.2126 + g * 0.7152 + bl * 0.0722
            let z = (r * 0.0193 + g * 0.1192 + bl * 0.9505) / 1.08883
            func f(_ t: Double) -> Double { t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116 }
            return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
        }
        let p = lab(a), q = lab(b)
        let distance = ((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) + (p.b - q.b) * (p.b - q.b)).squareRoot()
        let chromaP = (p.a * p.a + p.b * p.b).squareRoot(), chromaQ = (q.a * q.a + q.b * q.b).squareRoot()
        var hue = abs(atan2(p.b, p.a) - atan2(q.b, q.a)) * 180 / .pi
        if hue > 180 { hue = 360 - hue }
        return distance < 25 || (chromaP >= 20 && chromaQ >= 20 && hue < 20 && abs(p.l - q.l) < 15)
    }

    static func rgb(_ fill: String) -> [Double]? {
        guard fill.hasPrefix("rgb") else { return nil }
        let numbers = fill.split { !$0.isNumber && $0 != "." }.compactMap { Double($0) }
        return numbers.count >= 3 ? Array(numbers.prefix(3)) : nil
    }

    @Test("a colour means one thing: the legend's colours look unlike each other, and every colour, pattern and shape drawn is in it once",
          .enabled(if: enabled, "no chromium on PATH"), arguments: ["week", "demo"])
    func oneMeaningPerColour(_ which: String) throws {
        let run = which == "week" ? try Self.weekRun() : try ReportTests.demo()
        let layout = try Self.layout(TimelineReport(run: run).html)
        let colours = layout.legend.filter { Self.rgb($0.fill) != nil }
        #expect(colours.count >= 8, "\(colours.count) colours in the legend")
        for (i, a) in colours.enumerated() {
            for b in colours[(i + 1)...] {
                #expect(!Self.alike(Self.rgb(a.fill)!, Self.rgb(b.fill)!),
                        "one colour, two meanings: \(a.fill) '\(a.text)' and \(b.fill) '\(b.text)'")
            }
        }
        // Patterns, hollow bands and outlined shapes: each once.
        let others = layout.legend.map(\.fill).filter { Self.rgb($0) == nil }
        #expect(Set(others).count == others.count, "\(others)")
        // What the timeline draws has its meaning in the legend (lane backgrounds aside).
        let legendFills = Set(layout.legend.map(\.fill))
        let drawn = Set(layout.markers.map(\.fill) + layout.bands.filter {
            !["lane0", "lane1", "outside"].contains($0.cls ?? "")
        }.map(\.fill))
        for fill in drawn where !fill.hasPrefix("shape:") {
            #expect(legendFills.contains(fill), "\(fill) is drawn but the legend does not say what it means")
        }
    }

    @Test("labels are readable: every text on the timeline is at least 12 px as drawn at 1440 px, inside its strip, none on another",
          .enabled(if: enabled, "no chromium on PATH"))
    func readableLabels() throws {
        let layout = try Self.layout(TimelineReport(run: try Self.weekRun()).html)
        #expect(layout.texts.count >= 50)
        for text in layout.texts {
            #expect(text.font >= Self.smallestFont - 0.01, "'\(text.text)' is \(text.font) px")
            #expect(text.x >= text.svgLeft - 0.5, "'\(text.text)' runs out of its strip")
        }
        let byStrip = Dictionary(grouping: layout.texts, by: \.svg)
        for texts in byStrip.values {
            for (i, a) in texts.enumerated() {
                for b in texts[(i + 1)...] { #expect(!a.box.overlaps(b.box), "'\(a.text)' and '\(b.text)' overlap") }
            }
        }
        // The lane names are whole: the bundle identifier and each request's.
        for name in ["com.example.pods", "com.example.pods.refresh", "com.example.pods.download", "com.example.pods.episodes"] {
            #expect(layout.texts.contains { $0.text == name }, "\(name) is cut")
        }
    }

    @Test("a week fits the screen: no sideways scrolling at 1440 px (the week, the demo's three apps, 20 apps), and the week's page at most 3,000 px tall",
          .enabled(if: enabled, "no chromium on PATH"), arguments: ["week", "demo", "20 apps"])
    func weekFitsTheScreen(_ which: String) throws {
        let run = which == "week" ? try Self.weekRun() : which == "demo" ? try ReportTests.demo()
            : try ReportTests.run(try ReportTests.syntheticWeek())
        let layout = try Self.layout(TimelineReport(run: run).html)
        #expect(layout.viewport == Self.viewport)
        #expect(layout.width <= Self.viewport, "the page is \(layout.width) px wide")
        if which == "week" { #expect(layout.height <= Self.pageHeight, "the week's page is \(layout.height) px tall") }
    }

    @Test("every wait is drawn: each transfer's wait for the charger, and the held push until it arrives",
          .enabled(if: enabled, "no chromium on PATH"))
    func waitsAreDrawn() throws {
        let run = try Self.weekRun()
        let html = TimelineReport(run: run).html
        let layout = try Self.layout(html)
        let trace = run.device.trace
        // px per hour: a day strip is ReportSVG.plotWidth wide and drawn at its own size.
        let perHour = ReportSVG.plotWidth / 24

        // Transfers, from the trace: waiting from creation (or a deferral) until they move or end.
        var waitingSince: [Int32: Nanoseconds] = [:], session: [Int32: TextID] = [:]
        var waited: Nanoseconds = 0, longest: Nanoseconds = 0
        func stop(_ task: Int32, _ t: Nanoseconds) {
            guard let since = waitingSince.removeValue(forKey: task) else { return }
            waited += t - since
            longest = max(longest, t - since)
        }
        for event in trace {
            switch event.kind {
            case let .transferCreate(s, task, _, _): waitingSince[task] = event.time; session[task] = s
            case let .transferDefer(_, task, _), let .transferRetry(_, task, _):
                if waitingSince[task] == nil { waitingSince[task] = event.time }
            case let .transferStart(_, task, _), let .transferComplete(_, task), let .transferFail(_, task, _, _):
                stop(task, event.time)
            case let .transferCancel(s, _):
                for (task, owner) in session where owner == s { stop(task, event.time) }
            default: break
            }
        }
        for task in Array(waitingSince.keys) { stop(task, run.scenario.duration) }
        #expect(longest >= Time.hours(11), "the week has no long transfer wait to draw")
        let drawnWaits = layout.bands.filter { $0.title.contains(" waiting: ") && ($0.cls ?? "").contains("xfer-wait") }
        let drawnHours = drawnWaits.map(\.w).reduce(0, +) / perHour
        let hours = Double(waited) / Double(Time.hours(1))
        #expect(abs(drawnHours - hours) <= 0.5 + 0.02 * hours, "transfers waited \(hours) h; \(drawnHours) h drawn")

        // The push held on Wednesday at 18:00 arrives when the person opens the app at 20:00.
        let held = try #require(trace.first { if case .pushDrop(_, _, _, true) = $0.kind { true } else { false } })
        let arrived = try #require(trace.first { e in
            if case .pushDeliver = e.kind, e.time > held.time { true } else { false }
        })
        #expect(Time.wallClock(held.time) == "2d 18:00" && Time.wallClock(arrived.time) == "2d 20:00")
        let pushBands = layout.bands.filter { ($0.cls ?? "").contains("push-wait") }
        let pushHours = pushBands.map(\.w).reduce(0, +) / perHour
        #expect(abs(pushHours - 2) <= 0.1, "the push was held 2h; \(pushHours) h drawn")
        #expect(!pushBands.isEmpty && pushBands.allSatisfy { $0.title.contains("; arrived 2d 20:00:00") })
        // And the table says it arrived.
        #expect(html.contains("<td>held, arrived 2d 20:00:00 (after 2h)</td>"))
    }
}
