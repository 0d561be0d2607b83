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
                                  expectations: expectations)
        typealias F = ReportFormat
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>bgx report: \(F.escape(title))</title>\n<style>\(Self.css)</style>\n</head>\n<body>\n"
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

    /// The legend: only what the timeline draws.
    static func legend(_ timeline: ReportTimeline) -> String {
        func swatch(_ style: String, height: Double = 12) -> String {
            "<svg width=\"22\" height=\"14\" aria-hidden=\"true\"><rect class=\"\(style)\" x=\"1\" "
                + "y=\"\(ReportFormat.coordinate(7 - height / 2))\" width=\"20\" height=\"\(ReportFormat.coordinate(height))\"/></svg>"
        }
        func item(_ picture: String, _ text: String) -> String { "<li>\(picture)\(ReportFormat.escape(text))</li>" }
        let appStyles = Set(timeline.apps.flatMap { $0.bands.map(\.style) })
        let requestStyles = Set(timeline.apps.flatMap { $0.requests.flatMap { $0.bands.map(\.style) } })
        let deviceStyles = Set(timeline.device.flatMap { $0.bands.map(\.style) })
        let markers = Set(timeline.apps.flatMap { $0.markers.map(\.style) } + timeline.device.flatMap { $0.markers.map(\.style) })
        var out = "<ul class=\"legend\">"
        if appStyles.contains("foreground") { out += item(swatch("foreground"), "in front (active)") }
        if appStyles.contains("background") { out += item(swatch("background"), "running in the background") }
        if appStyles.contains("suspended") { out += item(swatch("suspended", height: 5), "suspended") }
        if !timeline.apps.isEmpty {
            out += item("<svg width=\"22\" height=\"14\" aria-hidden=\"true\"><rect class=\"lane0\" x=\"1\" y=\"1\" "
                        + "width=\"20\" height=\"12\" stroke=\"#ccc\"/></svg>", "not running")
        }
        if requestStyles.contains("req-wait") {
            out += item(swatch("req req-wait", height: 8), "BGTask request submitted, before the scheduler's first look")
        }
        for (i, policy) in timeline.policies.enumerated() {
            out += item(swatch("req " + ReportTimeline.policyStyle(i), height: 8), "request held back by \(policy)")
        }
        if requestStyles.contains("req-run") { out += item(swatch("req req-run", height: 8), "BGTask running") }
        if !timeline.charging.isEmpty { out += item(swatch("chargezone"), "charging") }
        for (style, text) in [("locked", "locked"), ("net-wifi", "Wi-Fi"), ("net-cellular", "cellular"),
                              ("net-none", "no network"), ("lowpower", "Low Power Mode")] where deviceStyles.contains(style) {
            out += item(swatch(style), text)
        }
        for style in MarkerStyle.allCases where markers.contains(style) {
            out += item("<svg width=\"18\" height=\"16\" aria-hidden=\"true\"><use href=\"#m-\(style.shape)\" "
                        + "class=\"m \(style.rawValue)\" x=\"9\" y=\"8\"/></svg>", style.legend)
        }
        return out + "</ul>\n"
    }

    static let css = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Helvetica,Arial,sans-serif;\
    margin:20px 24px;color:#1d1d1f;background:#fff}
    h1{font-size:20px;margin:0 0 2px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:14px;margin:14px 0 2px}
    .details{margin:0;color:#444}.note{margin:2px 0 8px;color:#666;font-size:12.5px}
    .legend{list-style:none;padding:0;margin:6px 0 4px;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12.5px}
    .legend li{display:flex;align-items:center;gap:4px}
    svg.timeline{display:block;max-width:100%;height:auto}
    svg text{font-size:11.5px;fill:#222}svg .rlabel{font-size:9.5px;fill:#555}svg .tick{fill:#555;font-size:11px}svg .dlabel{fill:#666;font-style:italic}
    .lane0{fill:#f4f5f8}.lane1{fill:#fbfbfc}.outside{fill:#e4e4e4}.chargezone{fill:#d4f3d9}
    .grid{stroke:#d6d8dd;stroke-width:1}
    .foreground{fill:#9fcdfd}.background{fill:#1b3a8c}.suspended{fill:#aab3c2}
    .charging{fill:#2f9e48}.locked{fill:#5b5b5b}.net-wifi{fill:#6fa8e8}.net-cellular{fill:#a57ad0}\
    .net-none{fill:#e06464}.lowpower{fill:#f2c230}
    .m{stroke:#fff;stroke-width:.8}
    .launch-user{fill:#15803d}.launch-notification{fill:#db2777}.launch-bg{fill:#e87400}
    .kill{fill:#dc2626}.term{fill:#6b6b6b}.task-begin{fill:#f59e0b}.task-expire{fill:#c026d3}\
    .task-refused{fill:#7c3aed}.notif{fill:#db2777}.notif-app{fill:#f9a8d4}\
    .notif-drop{fill:#9a9a9a}.notif-tap{fill:#0e8c8c}.reboot{fill:#111}
    .bgt-start{fill:#0891b2}.bgt-expire{fill:#9d174d}.bgt-reject{fill:#4c1d95}.bgt-cancel{fill:#475569}.fetch{fill:#65a30d}.mem-warn{fill:#0f766e}
    .audio{fill:#0d9488}.audio-stop{fill:#78716c}.service{fill:#2563eb}.service-drop{fill:#94a3b8}
    .transfer{fill:#4f46e5}.transfer-fail{fill:#be123c}
    .push{fill:#7c3aed}.push-held{fill:#d97706}.push-drop{fill:#a8a29e}
    .req{stroke:#fff;stroke-width:.5}.req-wait{fill:#cbd5e1}.req-run{fill:#0891b2}
    .req-p0{fill:#f59e0b}.req-p1{fill:#ef4444}.req-p2{fill:#8b5cf6}.req-p3{fill:#10b981}.req-p4{fill:#ec4899}\
    .req-p5{fill:#84cc16}.req-p6{fill:#78716c}.req-p7{fill:#f97316}
    .expectations{list-style:none;padding:0;margin:6px 0 10px;font-size:13px}
    .expectations .ok b{color:#15803d}.expectations .failed b{color:#dc2626}
    td.why{font-size:12.5px}td.why div+div{margin-top:2px}
    table{border-collapse:collapse;margin:4px 0 12px;font-size:13px}
    th,td{border:1px solid #d9dce1;padding:4px 8px;text-align:left;vertical-align:top}
    th{background:#f1f3f6;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
    td.app{font-family:ui-monospace,Menlo,"DejaVu Sans Mono",monospace;font-size:12px}
    """
}
