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
    static let appPitch = 22.0, appHeight = 18.0
    static let deviceGap = 8.0, devicePitch = 14.0, deviceHeight = 10.0
    static let suspendedHeight = 6.0
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

    /// The marker shapes, centred on (0, 0), referenced with `<use>`.
    static let markerShapes: [(id: String, svg: String)] = [
        ("launch", #"<path id="m-launch" d="M-3.5-5L5 0L-3.5 5Z"/>"#),
        ("terminate", #"<path id="m-terminate" d="M-5-3.5L-3.5-5L0-1.5L3.5-5L5-3.5L1.5 0L5 3.5L3.5 5L0 1.5L-3.5 5L-5 3.5L-1.5 0Z"/>"#),
        ("begin", #"<path id="m-begin" d="M0-3.5L4 3H-4Z"/>"#),
        ("expire", #"<path id="m-expire" d="M0-4.5L4.5 0L0 4.5L-4.5 0Z"/>"#),
        ("refused", #"<path id="m-refused" d="M-3.5-3.5H3.5V3.5H-3.5Z"/>"#),
        ("notification", #"<circle id="m-notification" r="3.5"/>"#),
        ("tap", #"<path id="m-tap" fill-rule="evenodd" d="M-5 0A5 5 0 1 0 5 0A5 5 0 1 0-5 0ZM-2.5 0A2.5 2.5 0 1 0 2.5 0A2.5 2.5 0 1 0-2.5 0Z"/>"#),
        ("reboot", #"<path id="m-reboot" d="M-1.5-6H1.5V6H-1.5Z"/>"#),
        ("push", #"<path id="m-push" d="M-4.5-4H4.5L0 4.5Z"/>"#),
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

    func drawStrip(_ strip: Strip, appMarkers: [[ReportTimeline.Marker]],
                   deviceMarkers: [[ReportTimeline.Marker]]) -> String {
        typealias F = ReportFormat
        let appsHeight = Double(timeline.apps.count) * Self.appPitch
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
        for lane in timeline.apps.indices {
            let y = Self.axisHeight + Double(lane) * Self.appPitch
            out += "<rect class=\"lane\(lane % 2)\" x=\"\(F.coordinate(Self.labelWidth))\" y=\"\(F.coordinate(y))\" "
                + "width=\"\(F.coordinate(Self.plotWidth))\" height=\"\(F.coordinate(Self.appPitch))\"/>"
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
            let top = Self.axisHeight + Double(lane) * Self.appPitch + (Self.appPitch - Self.appHeight) / 2
            out += "<g class=\"app\" data-app=\"\(F.escape(app.label))\">"
            out += label(app.label, y: top + Self.appHeight / 2)
            for band in app.bands where band.end > strip.start && band.start < strip.end {
                let suspended = band.style == ReportTimeline.BandKind.suspended.rawValue
                let bandHeight = suspended ? Self.suspendedHeight : Self.appHeight
                let y = top + (Self.appHeight - bandHeight) / 2
                out += rect(band.style, x(band.start), x(band.end), y, bandHeight,
                            bandTitle(band), minimumWidth: suspended ? 0.5 : 1.5)
            }
            for marker in appMarkers[lane] {
                let y = top + [3.5, Self.appHeight / 2, Self.appHeight - 3.5][marker.style.row]
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
    func label(_ text: String, y: Double, device: Bool = false) -> String {
        let limit = 36
        let shown = text.count > limit ? "…" + String(text.suffix(limit - 1)) : text
        return "<text class=\"\(device ? "dlabel" : "label")\" x=\"\(F.coordinate(Self.labelWidth - 8))\" "
            + "y=\"\(F.coordinate(y + 4))\" text-anchor=\"end\"><title>\(F.escape(text))</title>"
            + "\(F.escape(shown))</text>"
    }

    private typealias F = ReportFormat
}
