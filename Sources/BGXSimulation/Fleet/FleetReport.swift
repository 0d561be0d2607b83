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
        svg{display:block} .bar{fill:#9fb7d3}
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

    /// The arrival curves of one app: a line per cause, per minute of the day.
    func arrivals(_ app: String) -> String {
        let series = FleetResult.causes.compactMap { c in result.arrivals[app]?[c].map { (c, $0) } }
        let peak = max(1, series.map { $0.1.max() ?? 0 }.max() ?? 1)
        let w = 1440.0, h = 300.0, left = 50.0, bottom = 24.0
        var svg = "<svg width=\"\(Int(w + left + 10))\" height=\"\(Int(h + bottom + 10))\" "
            + "viewBox=\"0 0 \(Int(w + left + 10)) \(Int(h + bottom + 10))\" role=\"img\" aria-label=\"arrivals of \(Self.escape(app))\">"
        for hour in stride(from: 0, through: 24, by: 3) {
            let x = left + Double(hour * 60)
            svg += "<line x1=\"\(x)\" y1=\"0\" x2=\"\(x)\" y2=\"\(h)\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(x - 14)\" y=\"\(h + 16)\" font-size=\"11\" fill=\"#777\">\(hour < 10 ? "0" : "")\(hour):00</text>"
        }
        svg += "<line x1=\"\(left)\" y1=\"\(h)\" x2=\"\(left + w)\" y2=\"\(h)\" stroke=\"#999\"/>"
        svg += "<text x=\"4\" y=\"12\" font-size=\"11\" fill=\"#777\">\(peak)/min</text>"
        for (cause, minutes) in series {
            var points = ""
            for (m, n) in minutes.enumerated() {
                points += "\(left + Double(m) + 0.5),\(Int((h - Double(n) / Double(peak) * (h - 8)).rounded())) "
            }
            svg += "<polyline fill=\"none\" stroke=\"#\(Self.colours[cause] ?? "000000")\" stroke-width=\"2\" "
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
        guard !result.reasons.isEmpty else { return out + "<p class=\"muted\">none</p>" }
        for category in ["refused", "held", "dropped", "killed"] {
            guard let apps = result.reasons[category] else { continue }
            for app in apps.keys.sorted() {
                let sorted = apps[app]!.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                let most = max(1, sorted.first?.value ?? 1)
                out += "<h3>\(category) — \(Self.escape(app))</h3><table>"
                for (reason, n) in sorted {
                    let width = max(1, Int(Double(n) / Double(most) * 300))
                    out += "<tr><td>\(Self.escape(reason))</td><td class=\"n\">\(n)</td><td><svg width=\"302\" height=\"10\">"
                        + "<rect class=\"bar\" x=\"0\" y=\"1\" width=\"\(width)\" height=\"8\"/></svg></td></tr>"
                }
                out += "</table>"
            }
        }
        return out
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
