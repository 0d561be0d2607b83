import BGXCore
import Foundation

/// The timeline report (issue 6, after WWDC19 707's picture of a day): one
/// self-contained HTML file — inline SVG and CSS, no script, no network — with
/// a row per app showing its states as bands and its events as markers, rows
/// for the device's charging, lock, network and Low Power Mode, and the
/// summary and rules §12's three concerns as tables.
///
/// A pure function of the run: the same trace gives the same bytes.
public struct TimelineReport {
    public var title: String
    /// One line under the title: profile, seed, …
    public var details: String
    public var events: [TraceEvent]
    public var names: TraceNames
    /// Wall clock at t = 0.
    public var start: Date
    public var duration: Nanoseconds
    /// The engine's per-app summaries (matched to apps by bundle identifier).
    public var summaries: [AppSummary]
    /// The device at t = 0; `device` events change it from there.
    public var initialDevice: DeviceState
    /// The scenario's `expect:` entries as checked: held or not, and in words.
    public var expectations: [(passed: Bool, text: String)]

    public init(title: String, details: String = "", events: [TraceEvent], names: TraceNames, start: Date,
                duration: Nanoseconds, summaries: [AppSummary], initialDevice: DeviceState = DeviceState(),
                expectations: [(passed: Bool, text: String)] = []) {
        self.title = title
        self.details = details
        self.events = events
        self.names = names
        self.start = start
        self.duration = duration
        self.summaries = summaries
        self.initialDevice = initialDevice
        self.expectations = expectations
    }

    /// The report of a scenario that has run (its device must keep its trace).
    public init(run: ScenarioRun, seed: UInt64? = nil) {
        let device = run.device, scenario = run.scenario
        let clock = ReportClock(start: scenario.start)
        self.init(title: scenario.file == Demo.file ? "bgx demo" : scenario.file,
                  details: "\(scenario.profile.name) profile · seed \(seed ?? scenario.seed) · "
                      + "\(ReportFormat.duration(scenario.duration)) from \(clock.date(ofDay: 0)) "
                      + "\(clock.clock(0, seconds: false, day: false)) UTC",
                  events: device.trace, names: device.renderer.names, start: scenario.start,
                  duration: scenario.duration, summaries: device.summaries(),
                  initialDevice: scenario.device,
                  expectations: run.results.map { ($0.passed, "\(scenario.file):\($0.expectation.location.line): \($0.message)") })
    }

    public var html: String {
        let clock = ReportClock(start: start)
        let ledger = RequestLedger(events)
        let timeline = ReportTimeline(events: events, names: names, duration: duration, initialDevice: initialDevice,
                                      clock: clock, ledger: ledger)
        let svg = ReportSVG(timeline: timeline, clock: clock, duration: duration)
        let tables = ReportTables(names: names, facts: ReportFacts.count(events: events, names: names),
                                  summaries: summaries, ledger: ledger, clock: clock, duration: duration,
                                  expectations: expectations,
                                  heldPushes: ReportWaits.heldPushes(events, names: names))
        typealias F = ReportFormat
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>bgx report: \(F.escape(title))</title>\n<style>\(Self.css)\(Self.styleCSS)</style>\n</head>\n<body>\n"
        out += ReportSVG.defs
        out += "<header><h1>bgx timeline: \(F.escape(title))</h1>\n"
        var line = details
        if !expectations.isEmpty {
            let failed = expectations.filter { !$0.passed }.count
            line += (line.isEmpty ? "" : " · ") + (failed == 0 ? "expectations: all \(expectations.count) held"
                                                   : "expectations: \(failed) of \(expectations.count) FAILED")
        }
        if !line.isEmpty { out += "<p class=\"details\">\(F.escape(line))</p>\n" }
        out += "<p class=\"note\">Times are the scenario's wall clock (UTC). Hover over a band or a marker "
            + "for what happened and when; why each BGTask request waited is in the table below the timeline.</p>"
            + "</header>\n"
        out += Self.legend(timeline)
        out += "<main>\n" + svg.draw()
        out += tables.expectationList
        out += tables.html
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    // MARK: Legend and style

    /// The legend: only what the timeline draws, in three keys — each colour
    /// once with its one meaning, the patterns that name what held a request
    /// back, and each marker shape (drawn in outline: its colour is the first
    /// key's).
    static func legend(_ timeline: ReportTimeline) -> String {
        func swatch(_ style: String, height: Double = 12) -> String {
            "<svg width=\"22\" height=\"14\" aria-hidden=\"true\"><rect class=\"\(style)\" x=\"1\" "
                + "y=\"\(ReportFormat.coordinate(7 - height / 2))\" width=\"20\" height=\"\(ReportFormat.coordinate(height))\"/></svg>"
        }
        func item(_ kind: String, _ picture: String, _ text: String) -> String {
            "<li class=\"\(kind)\">\(picture)\(ReportFormat.escape(text))</li>"
        }
        let appStyles = Set(timeline.apps.flatMap { $0.bands.map(\.style) })
        let waitStyles = Set(timeline.apps.flatMap { $0.sublanes.flatMap { $0.bands.map(\.style) } })
        let deviceStyles = Set(timeline.device.flatMap { $0.bands.map(\.style) })
        let markers = Set(timeline.apps.flatMap { $0.markers.map(\.style) } + timeline.device.flatMap { $0.markers.map(\.style) })

        var colours = Set(markers.map(\.colour))
        if appStyles.contains("foreground") { colours.insert(.front) }
        if appStyles.contains("background") { colours.insert(.background) }
        if appStyles.contains("suspended") { colours.insert(.suspended) }
        if !timeline.apps.isEmpty { colours.insert(.notRunning) }
        if !waitStyles.isDisjoint(with: ["xfer-wait", "push-wait", "req-wait"]) || waitStyles.contains(where: { $0.hasPrefix("req-hold") }) {
            colours.insert(.waiting)
        }
        if !waitStyles.isDisjoint(with: ["req-run", "xfer-run"]) { colours.insert(.running) }
        if !timeline.charging.isEmpty { colours.insert(.charging) }
        if !deviceStyles.isEmpty { colours.insert(.device) }

        var out = "<ul class=\"legend\"><li class=\"key\">Colours</li>"
        for colour in ReportColour.allCases where colours.contains(colour) {
            let picture = colour == .suspended ? swatch(colour.swatchClass, height: 5)
                : colour == .notRunning ? "<svg width=\"22\" height=\"14\" aria-hidden=\"true\"><rect class=\"\(colour.swatchClass)\" "
                    + "x=\"1\" y=\"1\" width=\"20\" height=\"12\" stroke=\"#ccc\"/></svg>"
                : swatch(colour.swatchClass)
            out += item("colour", picture, colour.meaning)
        }
        var patterns = ""
        if waitStyles.contains("req-wait") {
            patterns += item("pattern", swatch("req req-wait", height: 8), "BGTask request submitted, before the scheduler's first look (hollow)")
        }
        for (i, policy) in timeline.policies.enumerated() where i < ReportTimeline.policyPatterns {
            patterns += item("pattern", swatch("req " + ReportTimeline.policyStyle(i), height: 8), "request held back by \(policy)")
        }
        if timeline.policies.count > ReportTimeline.policyPatterns {
            patterns += item("pattern", swatch("req " + ReportTimeline.policyStyle(ReportTimeline.policyPatterns), height: 8),
                             "request held back by another policy: "
                                + timeline.policies[ReportTimeline.policyPatterns...].joined(separator: ", "))
        }
        if deviceStyles.contains("net-cellular") { patterns += item("pattern", swatch("net-cellular"), "cellular") }
        if deviceStyles.contains("net-none") { patterns += item("pattern", swatch("net-none"), "no network") }
        if !patterns.isEmpty { out += "<li class=\"key\">Patterns</li>" + patterns }
        let shapes = ReportSVG.markerShapes.map(\.id).filter { shape in markers.contains { $0.shape == shape } }
        if !shapes.isEmpty { out += "<li class=\"key\">Markers: the shape says what, the colour how it went</li>" }
        for shape in shapes {
            out += item("shape", "<svg width=\"18\" height=\"16\" aria-hidden=\"true\"><use href=\"#m-\(shape)\" "
                        + "class=\"m shape\" x=\"9\" y=\"8\"/></svg>", MarkerStyle.shapeLegend(shape))
        }
        return out + "</ul>\n"
    }

    /// A marker style's colour, a band style's colour or pattern: the
    /// timeline's classes, all from `ReportColour`.
    static var styleCSS: String {
        var out = ReportColour.css
        out += MarkerStyle.allCases.map { ".\($0.rawValue){fill:var(\($0.colour.variable))}" }.joined() + "\n"
        out += ".foreground{fill:var(--front)}.background{fill:var(--background)}.suspended{fill:var(--suspended)}"
            + ".lane0{fill:var(--not-running)}.lane1{fill:#fbfbfc}.chargezone{fill:var(--charging)}"
            + ".charging,.locked,.net-wifi,.lowpower{fill:var(--device)}.net-cellular{fill:url(#p-cellular)}"
            + ".net-none{fill:#fff;stroke:var(--device);stroke-width:1.5}\n"
        out += ".req{stroke:#fff;stroke-width:.5}.req.req-wait{fill:#fff;stroke:var(--waiting);stroke-width:1.5}"
            + ".req-run,.xfer-run{fill:var(--running)}.xfer-wait,.push-wait{fill:var(--waiting)}"
            + (0...ReportTimeline.policyPatterns).map { ".req-hold\($0){fill:url(#p-hold\($0))}" }.joined() + "\n"
        return out
    }

    static let css = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Helvetica,Arial,sans-serif;\
    margin:20px 24px;color:#1d1d1f;background:#fff}
    h1{font-size:20px;margin:0 0 2px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:14px;margin:14px 0 2px}
    .details{margin:0;color:#444}.note{margin:2px 0 8px;color:#666;font-size:13px}
    .legend{list-style:none;padding:0;margin:6px 0 4px;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}
    .legend li{display:flex;align-items:center;gap:4px}.legend li.key{flex-basis:100%;font-weight:600;margin-top:4px}
    .strip svg.timeline{margin:0 0 6px}
    svg.timeline{display:block;max-width:100%;height:auto}
    svg text{font-size:13px;fill:#222}svg .rlabel{font-size:12px;fill:#444}svg .tick{fill:#555;font-size:12px}\
    svg .dlabel{fill:#555;font-size:12px;font-style:italic}svg .day{font-size:13px;font-weight:600}
    .outside{fill:#e4e4e4}.grid{stroke:#d6d8dd;stroke-width:1}
    .m{stroke:#fff;stroke-width:.8}.m.shape{fill:#fff;stroke:#222;stroke-width:1.2}
    .expectations{list-style:none;padding:0;margin:6px 0 10px;font-size:13px}
    .expectations .ok b{color:#15803d}.expectations .failed b{color:#dc2626}
    td.why{font-size:12.5px}td.why div+div{margin-top:2px}
    details>summary{cursor:pointer;margin:4px 0;font-size:13px;color:#333}
    table{border-collapse:collapse;margin:4px 0 12px;font-size:13px}
    th,td{border:1px solid #d9dce1;padding:4px 8px;text-align:left;vertical-align:top}
    th{background:#f1f3f6;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
    td.app{font-family:ui-monospace,Menlo,"DejaVu Sans Mono",monospace;font-size:12px;overflow-wrap:anywhere}
    table.summary{font-size:12.5px}table.summary th,table.summary td{padding:3px 5px}

    """
}
