import BGXCore
import Foundation

/// Draws the timeline as inline SVG: one strip per calendar day (or one for
/// a run shorter than half a day), each with a lane per app and per device
/// property, so a week keeps a day's resolution instead of smearing.
struct ReportSVG {
    let timeline: ReportTimeline
    let clock: ReportClock
    let duration: Nanoseconds

    static let labelWidth = 230.0, plotWidth = 1200.0, rightPad = 16.0
    static let axisHeight = 20.0
    static let appPitch = 28.0, appHeight = 24.0
    /// The thin lane of each BGTaskScheduler identifier under its app's row.
    static let requestPitch = 12.0, requestHeight = 8.0
    static let deviceGap = 8.0, devicePitch = 14.0, deviceHeight = 10.0
    static let suspendedHeight = 8.0
    static var width: Double { labelWidth + plotWidth + rightPad }

    struct Strip {
        var start: Nanoseconds
        var end: Nanoseconds
        var heading: String
    }

    /// Calendar days of the scenario's wall clock for runs of 12 hours or
    /// more; otherwise the run itself, stretched over the whole width.
    var strips: [Strip] {
        let day = Time.days(1)
        guard duration >= Time.hours(12) else {
            return [Strip(start: 0, end: max(duration, Time.seconds(1)),
                          heading: "\(clock.date(ofDay: 0)), \(clock.clock(0)) – \(clock.clock(duration))")]
        }
        let first = clock.wall(0) / day, last = clock.wall(duration - 1) / day
        return (first...last).map { d in
            Strip(start: d * day - clock.startOffset, end: (d + 1) * day - clock.startOffset,
                  heading: "Day \(d) · \(clock.date(ofDay: d))")
        }
    }

    /// The strip an instant is drawn in (the run's last instant belongs to
    /// the last strip even when it is the next day's midnight).
    func stripIndex(_ t: Nanoseconds, _ strips: [Strip]) -> Int {
        strips.lastIndex { $0.start <= t } ?? 0
    }

    /// The marker shapes, centred on (0, 0), referenced with `<use>`: about
    /// 12 px across, to be seen on a 1600 px screen.
    static let markerShapes: [(id: String, svg: String)] = [
        ("launch", #"<path id="m-launch" d="M-5-7L7 0L-5 7Z"/>"#),
        ("terminate", #"<path id="m-terminate" d="M-7-4.9L-4.9-7L0-2.1L4.9-7L7-4.9L2.1 0L7 4.9L4.9 7L0 2.1L-4.9 7L-7 4.9L-2.1 0Z"/>"#),
        ("begin", #"<path id="m-begin" d="M0-5.5L6 4.5H-6Z"/>"#),
        ("expire", #"<path id="m-expire" d="M0-6.5L6.5 0L0 6.5L-6.5 0Z"/>"#),
        ("refused", #"<path id="m-refused" d="M-5-5H5V5H-5Z"/>"#),
        ("star", #"<path id="m-star" d="M0-7L1.9-2.6L6.7-2.2L3 1L4.1 5.7L0 3.2L-4.1 5.7L-3 1L-6.7-2.2L-1.9-2.6Z"/>"#),
        ("forbidden", #"<path id="m-forbidden" fill-rule="evenodd" d="M-6.5 0A6.5 6.5 0 1 0 6.5 0A6.5 6.5 0 1 0-6.5 0ZM-4.2 0A4.2 4.2 0 1 0 4.2 0A4.2 4.2 0 1 0-4.2 0ZM-4-1.3H4V1.3H-4Z"/>"#),
        ("notification", #"<circle id="m-notification" r="5"/>"#),
        ("service", #"<path id="m-service" d="M-1.8-6H1.8V-1.8H6V1.8H1.8V6H-1.8V1.8H-6V-1.8H-1.8Z"/>"#),
        ("tap", #"<path id="m-tap" fill-rule="evenodd" d="M-6.5 0A6.5 6.5 0 1 0 6.5 0A6.5 6.5 0 1 0-6.5 0ZM-3.2 0A3.2 3.2 0 1 0 3.2 0A3.2 3.2 0 1 0-3.2 0Z"/>"#),
        ("cancel", #"<path id="m-cancel" d="M-6.5-2H6.5V2H-6.5Z"/>"#),
        ("reboot", #"<path id="m-reboot" d="M-2-8H2V8H-2Z"/>"#),
        ("push", #"<path id="m-push" d="M-6.5-5.5H6.5L0 6.5Z"/>"#),
        ("audio", #"<rect id="m-audio" x="-7" y="-3.5" width="14" height="7" rx="3.5"/>"#),
        ("transfer", #"<path id="m-transfer" d="M6 0L3 5.2H-3L-6 0L-3-5.2H3Z"/>"#),
    ]

    static var defs: String {
        "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>"
            + markerShapes.map(\.svg).joined() + "</defs></svg>\n"
    }

    // MARK: Drawing

    func draw() -> String {
        let strips = self.strips
        // Bucket markers by strip once, rather than filtering per strip.
        var appMarkers = [[[ReportTimeline.Marker]]](
            repeating: [[ReportTimeline.Marker]](repeating: [], count: timeline.apps.count), count: strips.count)
        for (lane, app) in timeline.apps.enumerated() {
            for marker in app.markers { appMarkers[stripIndex(marker.time, strips)][lane].append(marker) }
        }
        var deviceMarkers = [[[ReportTimeline.Marker]]](
            repeating: [[ReportTimeline.Marker]](repeating: [], count: timeline.device.count), count: strips.count)
        for (lane, row) in timeline.device.enumerated() {
            for marker in row.markers { deviceMarkers[stripIndex(marker.time, strips)][lane].append(marker) }
        }
        var out = ""
        for (i, strip) in strips.enumerated() {
            out += "<section class=\"strip\"><h3>\(ReportFormat.escape(strip.heading))</h3>\n"
            out += drawStrip(strip, appMarkers: appMarkers[i], deviceMarkers: deviceMarkers[i])
            out += "</section>\n"
        }
        return out
    }

    /// Each app's lane: where it starts below the axis and how tall it is
    /// (its row, and a thin lane per BGTaskScheduler identifier).
    var appLanes: [(top: Double, height: Double)] {
        var top = Self.axisHeight
        return timeline.apps.map { app in
            let height = Self.appPitch + Double(app.requests.count) * Self.requestPitch
                + (app.requests.isEmpty ? 0 : 2)
            defer { top += height }
            return (top, height)
        }
    }

    func drawStrip(_ strip: Strip, appMarkers: [[ReportTimeline.Marker]],
                   deviceMarkers: [[ReportTimeline.Marker]]) -> String {
        typealias F = ReportFormat
        let lanes = appLanes
        let appsHeight = lanes.last.map { $0.top + $0.height - Self.axisHeight } ?? 0
        let deviceTop = Self.axisHeight + appsHeight + Self.deviceGap
        let height = deviceTop + Double(timeline.device.count) * Self.devicePitch + 4
        let span = Double(strip.end - strip.start)
        func x(_ t: Nanoseconds) -> Double {
            Self.labelWidth + Double(min(max(t, strip.start), strip.end) - strip.start) / span * Self.plotWidth
        }
        let plotRight = Self.labelWidth + Self.plotWidth
        let w = F.coordinate(Self.width), h = F.coordinate(height)
        var out = "<svg class=\"timeline\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\" "
            + "role=\"img\" aria-label=\"\(F.escape(strip.heading))\">\n"

        // Lane backgrounds, then what lies outside the run, then charging.
        for (lane, place) in lanes.enumerated() {
            out += "<rect class=\"lane\(lane % 2)\" x=\"\(F.coordinate(Self.labelWidth))\" y=\"\(F.coordinate(place.top))\" "
                + "width=\"\(F.coordinate(Self.plotWidth))\" height=\"\(F.coordinate(place.height))\"/>"
        }
        out += "\n"
        let runStart = max(strip.start, 0), runEnd = min(strip.end, duration)
        let areaTop = Self.axisHeight, areaHeight = height - 4 - Self.axisHeight
        if runStart > strip.start {
            out += rect("outside", x(strip.start), x(runStart), areaTop, areaHeight, "before the run")
        }
        if runEnd < strip.end {
            out += rect("outside", x(runEnd), plotRight, areaTop, areaHeight, "after the run")
        }
        for band in timeline.charging where band.end > strip.start && band.start < strip.end {
            out += rect("chargezone", x(band.start), x(band.end), areaTop, appsHeight, nil)
        }

        // The time axis: wall-clock ticks with gridlines.
        let step = Self.tickStep(strip.end - strip.start)
        let wallStart = clock.wall(strip.start)
        var tick = (wallStart + step - 1) / step * step - clock.startOffset
        let showsSeconds = step < Time.minutes(1)
        while tick <= strip.end {
            let tx = F.coordinate(x(tick))
            out += "<line class=\"grid\" x1=\"\(tx)\" x2=\"\(tx)\" y1=\"\(F.coordinate(Self.axisHeight - 4))\" "
                + "y2=\"\(h)\"/>"
            let midnight = clock.wall(tick) % Time.days(1) == 0
            let label = midnight && tick == strip.end && tick > strip.start ? "24:00"
                : midnight && tick > strip.start ? clock.clock(tick, seconds: false)
                : clock.clock(tick, seconds: showsSeconds, day: false)
            let anchor = tick == strip.start ? "start" : (tick == strip.end ? "end" : "middle")
            out += "<text class=\"tick\" x=\"\(tx)\" y=\"13\" text-anchor=\"\(anchor)\">\(label)</text>"
            tick += step
        }
        out += "\n"

        // Apps: a label, state bands, markers.
        for (lane, app) in timeline.apps.enumerated() {
            let top = lanes[lane].top + (Self.appPitch - Self.appHeight) / 2
            out += "<g class=\"app\" data-app=\"\(F.escape(app.label))\">"
            out += label(app.label, y: top + Self.appHeight / 2)
            for band in app.bands where band.end > strip.start && band.start < strip.end {
                let suspended = band.style == ReportTimeline.BandKind.suspended.rawValue
                let bandHeight = suspended ? Self.suspendedHeight : Self.appHeight
                let y = top + (Self.appHeight - bandHeight) / 2
                out += rect(band.style, x(band.start), x(band.end), y, bandHeight,
                            bandTitle(band), minimumWidth: suspended ? 0.5 : 1.5)
            }
            for (k, requests) in app.requests.enumerated() {
                let y = lanes[lane].top + Self.appPitch + Double(k) * Self.requestPitch
                    + (Self.requestPitch - Self.requestHeight) / 2
                out += label(requests.label, y: y + Self.requestHeight / 2, small: true)
                for band in requests.bands where band.end > strip.start && band.start < strip.end {
                    out += rect("req " + band.style, x(band.start), x(band.end), y, Self.requestHeight, bandTitle(band),
                                minimumWidth: 2)
                }
            }
            for marker in appMarkers[lane] {
                let y = top + [5, Self.appHeight / 2, Self.appHeight - 5][marker.style.row]
                out += use(marker, x: x(marker.time), y: y)
            }
            out += "</g>\n"
        }

        // Device rows.
        for (lane, row) in timeline.device.enumerated() {
            let top = deviceTop + Double(lane) * Self.devicePitch + (Self.devicePitch - Self.deviceHeight) / 2
            out += "<g class=\"device\">" + label(row.label, y: top + Self.deviceHeight / 2, device: true)
            for band in row.bands where band.end > strip.start && band.start < strip.end {
                out += rect(band.style, x(band.start), x(band.end), top, Self.deviceHeight, bandTitle(band),
                            minimumWidth: 1)
            }
            for marker in deviceMarkers[lane] {
                out += use(marker, x: x(marker.time), y: top + Self.deviceHeight / 2)
            }
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// Ticks every so often that a strip gets at most 12 labels.
    static func tickStep(_ span: Nanoseconds) -> Nanoseconds {
        let steps = [1, 5, 10, 15, 30, 60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]
            .map { Time.seconds($0) }
        return steps.first { span / $0 <= 12 } ?? Time.days(1)
    }

    func bandTitle(_ band: ReportTimeline.Band) -> String {
        let from = max(band.start, 0), to = min(band.end, duration)
        return "\(band.label): \(clock.clock(from)) – \(clock.clock(to)) (\(ReportFormat.duration(to - from)))"
    }

    func rect(_ style: String, _ x1: Double, _ x2: Double, _ y: Double, _ height: Double, _ title: String?,
              minimumWidth: Double = 0) -> String {
        typealias F = ReportFormat
        let width = max(x2 - x1, minimumWidth)
        var out = "<rect class=\"\(style)\" x=\"\(F.coordinate(x1))\" y=\"\(F.coordinate(y))\" "
            + "width=\"\(F.coordinate(width))\" height=\"\(F.coordinate(height))\""
        if let title { out += "><title>\(F.escape(title))</title></rect>" } else { out += "/>" }
        return out
    }

    func use(_ marker: ReportTimeline.Marker, x: Double, y: Double) -> String {
        typealias F = ReportFormat
        return "<use href=\"#m-\(marker.style.shape)\" class=\"m \(marker.style.rawValue)\" "
            + "x=\"\(F.coordinate(x))\" y=\"\(F.coordinate(y))\" data-kind=\"\(F.escape(marker.kind))\">"
            + "<title>\(F.escape(marker.title))</title></use>"
    }

    /// A lane's name at the left; long bundle identifiers keep their tail,
    /// where they differ, and the whole name is in the hover title.
    func label(_ text: String, y: Double, device: Bool = false, small: Bool = false) -> String {
        let limit = small ? 40 : 36
        let shown = text.count > limit ? "…" + String(text.suffix(limit - 1)) : text
        return "<text class=\"\(device ? "dlabel" : small ? "rlabel" : "label")\" x=\"\(F.coordinate(Self.labelWidth - 8))\" "
            + "y=\"\(F.coordinate(y + 4))\" text-anchor=\"end\"><title>\(F.escape(text))</title>"
            + "\(F.escape(shown))</text>"
    }

    private typealias F = ReportFormat
}
