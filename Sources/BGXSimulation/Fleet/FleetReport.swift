import BGXCore
import Foundation

/// `bgx fleet report`: a fleet result as one self-contained HTML page —
/// arrivals at the backend over the day by cause, the delay percentiles,
/// the reasons things were refused, held, dropped or killed, and the
/// sampled population. Inline SVG and CSS only: nothing loads from elsewhere.
public struct FleetReport {
    public let result: FleetResult
    public init(_ result: FleetResult) { self.result = result.canonical }

    /// Each cause's colour (the legend, the curves and the tests use them).
    public static let colours: [String: String] = [
        "userLaunch": "4e79a7", "refresh": "f28e2b", "processing": "76b7b2",
        "fetch": "59a14f", "silentPush": "e15759", "transfer": "b07aa1",
    ]

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    public var html: String {
        let r = result
        var out = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>bgx fleet — \(Self.escape(r.scenario))</title>
        <style>
        body{font:14px/1.4 -apple-system,system-ui,sans-serif;margin:24px;color:#222;background:#fff}
        h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
        table{border-collapse:collapse;margin:6px 0} td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #eee}
        td.n{text-align:right;font-variant-numeric:tabular-nums} .muted{color:#777}
        .legend span{display:inline-block;margin-right:14px} .legend i{display:inline-block;width:14px;height:4px;margin-right:4px;vertical-align:middle}
        svg{display:block} svg.chart{max-width:100%;height:auto} .bar{fill:#9fb7d3}
        </style></head><body>
        <h1>bgx fleet — \(Self.escape(r.scenario))</h1>
        <p class="muted">\(r.deviceCount) of \(r.fleetDevices) devices × \(r.days) day(s), fleet seed \(r.fleetSeed).
        Times of day are UTC; arrivals from all days add up per minute of the day.</p>

        """
        for app in r.arrivals.keys.sorted() { out += arrivals(app) }
        out += delays() + reasons() + totals() + population()
        out += "</body></html>\n"
        return out
    }

    /// Each cause in words, for the charts' panels.
    public static let causeWords: [String: String] = [
        "userLaunch": "the person opens the app", "refresh": "background refresh (BGAppRefreshTask)",
        "processing": "processing (BGProcessingTask)", "fetch": "background fetch",
        "silentPush": "woken by a silent push", "transfer": "background transfer completed",
    ]

    /// The arrival curves of one app, per minute of the day: one panel per
    /// cause, each on its own scale with labelled ticks, so a spike of one
    /// cause does not flatten the others. The SVG has its natural size (for
    /// `bgx-fleet-picture`) and shrinks to the page's width (`max-width`).
    func arrivals(_ app: String) -> String {
        let series = FleetResult.causes.compactMap { c in result.arrivals[app]?[c].map { (c, $0) } }
        let w = 1440.0, panel = 110.0, gap = 34.0, right = 24.0, top = 18.0
        // Room for the longest tick label ("68893/min"): about 7 px a character at 11 px, and the gap.
        let longest = series.map { "\(max(1, $0.1.max() ?? 0))/min".count }.max() ?? 5
        let left = max(64, 7 * Double(longest) + 10)
        let width = Int(left + w + right), height = Int(top + Double(series.count) * (panel + gap) + 4)
        var svg = "<svg class=\"chart\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
            + "role=\"img\" aria-label=\"arrivals of \(Self.escape(app))\">"
        for (k, (cause, minutes)) in series.enumerated() {
            let y0 = top + Double(k) * (panel + gap)  // the panel's top
            let base = y0 + panel
            let peak = max(1, minutes.max() ?? 0)
            let colour = Self.colours[cause] ?? "000000"
            svg += "<text x=\"\(Int(left))\" y=\"\(Int(y0 - 5))\" font-size=\"12\" fill=\"#\(colour)\" font-weight=\"bold\">"
                + "\(Self.escape(Self.causeWords[cause] ?? cause)) — \(cause)</text>"
            for hour in stride(from: 0, through: 24, by: 3) {
                let x = left + Double(hour * 60)
                let anchor = hour == 0 ? "start" : hour == 24 ? "end" : "middle"
                svg += "<line x1=\"\(x)\" y1=\"\(y0)\" x2=\"\(x)\" y2=\"\(base)\" stroke=\"#eee\"/>"
                svg += "<text x=\"\(x)\" y=\"\(Int(base + 14))\" font-size=\"11\" fill=\"#777\" text-anchor=\"\(anchor)\">"
                    + "\(hour < 10 ? "0" : "")\(hour):00</text>"
            }
            // Ticks at 0, half the peak and the peak, each labelled.
            for tick in Array(Set([0, peak / 2, peak])).sorted() {
                let y = base - Double(tick) / Double(peak) * (panel - 6)
                svg += "<line x1=\"\(left - 4)\" y1=\"\(y)\" x2=\"\(left + w)\" y2=\"\(y)\" stroke=\"\(tick == 0 ? "#999" : "#eee")\"/>"
                svg += "<text x=\"\(Int(left - 6))\" y=\"\(Int(y + 4))\" font-size=\"11\" fill=\"#777\" text-anchor=\"end\">"
                    + "\(tick)/min</text>"
            }
            var points = ""
            for (m, n) in minutes.enumerated() {
                points += "\(left + Double(m) + 0.5),\(Int((base - Double(n) / Double(peak) * (panel - 6)).rounded())) "
            }
            svg += "<polyline fill=\"none\" stroke=\"#\(colour)\" stroke-width=\"2\" "
                + "points=\"\(points)\"><title>\(cause)</title></polyline>"
        }
        svg += "</svg>"
        var legend = "<p class=\"legend\">"
        var rows = ""
        for (cause, minutes) in series {
            let total = minutes.reduce(0, +)
            legend += "<span><i style=\"background:#\(Self.colours[cause] ?? "000000")\"></i>\(cause) (\(total))</span>"
            rows += "<tr><td>\(cause)</td><td class=\"n\">\(total)</td><td class=\"n\">\(minutes.max() ?? 0)</td>"
                + "<td>\(FleetResult.clock(minutes.firstIndex(of: minutes.max() ?? 0) ?? 0))</td>"
                + "<td class=\"n\">\(Self.topOfHour(minutes))</td></tr>"
        }
        legend += "</p>"
        return "<h2>Arrivals at the backend — \(Self.escape(app))</h2>" + legend + svg
            + "<table><tr><th>cause</th><th>arrivals</th><th>busiest minute</th><th>at</th>"
            + "<th>first 3 minutes of the hour vs the hour's mean</th></tr>" + rows + "</table>"
    }

    /// How much busier the first three minutes of each hour are than the hour
    /// as a whole (1.0: no spike) — the top-of-the-hour question.
    public static func topOfHourRatio(_ minutes: [Int]) -> Double? {
        let total = minutes.reduce(0, +)
        guard total > 0 else { return nil }
        var first = 0
        for hour in 0..<24 { first += minutes[hour * 60] + minutes[hour * 60 + 1] + minutes[hour * 60 + 2] }
        return (Double(first) / 72) / (Double(total) / 1440)
    }

    static func topOfHour(_ minutes: [Int]) -> String {
        guard let ratio = topOfHourRatio(minutes) else { return "—" }
        return String(format: "%.2f×", ratio)
    }

    func delays() -> String {
        var rows = ""
        let words = ["submitToRun": "a request submitted → started", "pushToWake": "a silent push sent → the app woken",
                     "pushToDrop": "a silent push sent → dropped",
                     "stalenessAtUse": "the app opened, since its last background refresh"]
        for name in FleetResult.delayNames {
            guard let h = result.delays[name], h.totalCount > 0 else {
                rows += "<tr><td>\(name)</td><td class=\"muted\">\(words[name] ?? "")</td><td class=\"n\">0</td><td></td><td></td><td></td><td></td></tr>"
                continue
            }
            let cells = [50.0, 90, 99].map { Time.describe(Nanoseconds(h.valueAtPercentile($0)) * 1_000_000) }
                + [Time.describe(Nanoseconds(h.max) * 1_000_000)]
            rows += "<tr><td>\(name)</td><td class=\"muted\">\(words[name] ?? "")</td><td class=\"n\">\(h.totalCount)</td>"
                + cells.map { "<td class=\"n\">\($0)</td>" }.joined() + "</tr>"
        }
        return "<h2>Delays</h2><table><tr><th>delay</th><th></th><th>count</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>"
            + rows + "</table>"
    }

    func reasons() -> String {
        var out = "<h2>Refused, held, dropped, killed — by reason</h2>"
            + "<p class=\"muted\">N stands for a number that differs from device to device (a time, a count, a score): "
            + "reasons that differ only in it are counted together.</p>"
        guard !result.reasons.isEmpty else { return out + "<p class=\"muted\">none</p>" }
        for category in ["refused", "held", "dropped", "killed"] {
            guard let apps = result.reasons[category] else { continue }
            for app in apps.keys.sorted() {
                let sorted = apps[app]!.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                let most = max(1, sorted.first?.value ?? 1)
                out += "<h3>\(category) — \(Self.escape(app))</h3><table>"
                for (reason, n) in sorted {
                    let width = max(1, Int(Double(n) / Double(most) * 300))
                    out += "<tr><td>\(Self.escape(Self.inWords(reason)))</td><td class=\"n\">\(n)</td><td><svg width=\"302\" height=\"10\">"
                        + "<rect class=\"bar\" x=\"0\" y=\"1\" width=\"\(width)\" height=\"8\"/></svg></td></tr>"
                }
                out += "</table>"
            }
        }
        return out
    }

    /// A folded reason as a reader sees it: the numbers that differ between
    /// devices (folded to `#` so reasons add up) read as "N".
    static func inWords(_ reason: String) -> String {
        reason.replacingOccurrences(of: "#", with: "N")
    }

    func totals() -> String {
        var out = "<h2>Totals</h2><table>"
        for (name, n) in result.counts.sorted(by: { $0.key < $1.key }) {
            out += "<tr><td>\(Self.escape(name))</td><td class=\"n\">\(n)</td></tr>"
        }
        return out + "</table>"
    }

    func population() -> String {
        var out = "<h2>The sampled population</h2><table><tr><th>property</th><th>value</th><th>devices</th></tr>"
        for property in result.population.keys.sorted() {
            for (value, n) in result.population[property]!.sorted(by: { $0.key < $1.key }) {
                out += "<tr><td>\(Self.escape(property))</td><td>\(Self.escape(value))</td><td class=\"n\">\(n)</td></tr>"
            }
        }
        return out + "</table>"
    }
}
