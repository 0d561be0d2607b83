import BGXCore
import Foundation

/// Draws the timeline as inline SVG: one strip per calendar day (or one for
/// a run shorter than half a day), each with a lane per app and per device
/// property, so a week keeps a day's resolution instead of smearing.
struct ReportSVG {
    let timeline: ReportTimeline
    let clock: ReportClock
    let duration: Nanoseconds

    /// 1386 wide: drawn at its own size (labels at their CSS size) in a
    /// 1440-px window, the page's margins included.
    static let labelWidth = 220.0, plotWidth = 1150.0, rightPad = 16.0
    static let axisHeight = 22.0
    /// An app's row: a line of markers per `markerPitch`, as many lines as
    /// keep the markers of one instant (or of a few minutes) apart.
    static let markerPitch = 16.0, appPad = 4.0
    /// Half a marker's width, its stroke included, and the room between two.
    static let markerHalfWidth = 7.5, markerGap = 1.0
    /// The thin lanes under an app's row (requests, transfers, held pushes).
    static let sublanePitch = 16.0, sublaneHeight = 10.0
    static let deviceGap = 8.0, devicePitch = 16.0, deviceHeight = 11.0
    static let suspendedHeight = 8.0
    /// Labels as long as fit the label column at their font size.
    static let labelCharacters = 27, sublaneLabelCharacters = 29
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
    /// 12 px across and at most 14 (`markerHalfWidth`), to be seen at 1440 px.
    static let markerShapes: [(id: String, svg: String)] = [
        ("launch", #"<path id="m-launch" d="M-5-7L7 0L-5 7Z"/>"#),
        ("launch-notification", #"<path id="m-launch-notification" fill-rule="evenodd" d="M-5-7L7 0L-5 7ZM-2.5-1.8A1.8 1.8 0 1 0-2.5 1.8A1.8 1.8 0 1 0-2.5-1.8Z"/>"#),
        ("terminate", #"<path id="m-terminate" d="M-7-4.9L-4.9-7L0-2.1L4.9-7L7-4.9L2.1 0L7 4.9L4.9 7L0 2.1L-4.9 7L-7 4.9L-2.1 0Z"/>"#),
        ("begin", #"<path id="m-begin" d="M0-5.5L6 4.5H-6Z"/>"#),
        ("expire", #"<path id="m-expire" d="M0-6.5L6.5 0L0 6.5L-6.5 0Z"/>"#),
        ("refused", #"<path id="m-refused" d="M-5-5H5V5H-5Z"/>"#),
        ("star", #"<path id="m-star" d="M0-7L1.9-2.6L6.7-2.2L3 1L4.1 5.7L0 3.2L-4.1 5.7L-3 1L-6.7-2.2L-1.9-2.6Z"/>"#),
        ("hourglass", #"<path id="m-hourglass" d="M-5.5-6.5H5.5L0.8 0L5.5 6.5H-5.5L-0.8 0Z"/>"#),
        ("fetch", #"<path id="m-fetch" d="M-2-6.5H2V0H5.5L0 6.5L-5.5 0H-2Z"/>"#),
        ("warning", #"<path id="m-warning" fill-rule="evenodd" d="M0-6.5L6.5 5.5H-6.5ZM-1-2.5H1V2H-1ZM-1 3H1V4.5H-1Z"/>"#),
        ("forbidden", #"<path id="m-forbidden" fill-rule="evenodd" d="M-6.5 0A6.5 6.5 0 1 0 6.5 0A6.5 6.5 0 1 0-6.5 0ZM-4.2 0A4.2 4.2 0 1 0 4.2 0A4.2 4.2 0 1 0-4.2 0ZM-4-1.3H4V1.3H-4Z"/>"#),
        ("notification", #"<circle id="m-notification" r="5"/>"#),
        ("notification-app", #"<path id="m-notification-app" fill-rule="evenodd" d="M-5 0A5 5 0 1 0 5 0A5 5 0 1 0-5 0ZM-1.6 0A1.6 1.6 0 1 0 1.6 0A1.6 1.6 0 1 0-1.6 0Z"/>"#),
        ("service", #"<path id="m-service" d="M-1.8-6H1.8V-1.8H6V1.8H1.8V6H-1.8V1.8H-6V-1.8H-1.8Z"/>"#),
        ("tap", #"<path id="m-tap" fill-rule="evenodd" d="M-6.5 0A6.5 6.5 0 1 0 6.5 0A6.5 6.5 0 1 0-6.5 0ZM-3.2 0A3.2 3.2 0 1 0 3.2 0A3.2 3.2 0 1 0-3.2 0Z"/>"#),
        ("cancel", #"<path id="m-cancel" d="M-6.5-2H6.5V2H-6.5Z"/>"#),
        ("reboot", #"<path id="m-reboot" d="M-2-6H2V6H-2Z"/>"#),
        ("push", #"<path id="m-push" d="M-6.5-5.5H6.5L0 6.5Z"/>"#),
        ("audio", #"<rect id="m-audio" x="-7" y="-3.5" width="14" height="7" rx="3.5"/>"#),
        ("transfer", #"<path id="m-transfer" d="M6 0L3 5.2H-3L-6 0L-3-5.2H3Z"/>"#),
    ]

    /// The patterns on the colour of waiting that name the policies holding a
    /// request back (`req-hold0` …, the last for any further policy), and the
    /// cellular stripes on the network row. White marks over the band's colour.
    static let patterns: [(id: String, marks: String)] = [
        ("p-hold0", #"<path d="M0 6L6 0" stroke-width="2.2"/>"#),
        ("p-hold1", #"<path d="M0 0L6 6" stroke-width="2.2"/>"#),
        ("p-hold2", #"<path d="M1.5 0V6M4.5 0V6" stroke-width="1.2"/>"#),
        ("p-hold3", #"<path d="M0 1.5H6M0 4.5H6" stroke-width="1.2"/>"#),
        ("p-hold4", #"<circle cx="3" cy="3" r="1.3" stroke="none" fill="white" fill-opacity=".75"/>"#),
        ("p-hold5", #"<path d="M0 6L6 0M0 0L6 6" stroke-width="1.2"/>"#),
        ("p-hold6", #"<path d="M0 0H3V3H0ZM3 3H6V6H3Z" stroke="none" fill="white" fill-opacity=".75"/>"#),
        ("p-hold7", #"<path d="M3 0V6M0 3H6" stroke-width="1.2"/>"#),
        ("p-hold8", #"<path d="M0 3H6" stroke-width="2.6"/>"#),
    ]

    static var defs: String {
        var out = "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>"
            + markerShapes.map(\.svg).joined()
        func pattern(_ id: String, _ colour: ReportColour, _ marks: String) -> String {
            "<pattern id=\"\(id)\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
                + "<rect width=\"6\" height=\"6\" fill=\"\(colour.hex)\"/>"
                + "<g stroke=\"#fff\" stroke-opacity=\".75\" fill=\"none\">\(marks)</g></pattern>"
        }
        for p in patterns { out += pattern(p.id, .waiting, p.marks) }
        out += pattern("p-cellular", .device, patterns[0].marks)
        return out + "</defs></svg>\n"
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
            out += "<section class=\"strip\">"
            // One strip: its heading above it. Days: each names itself in its axis row.
            if strips.count == 1 { out += "<h3>\(ReportFormat.escape(strip.heading))</h3>" }
            out += "\n" + drawStrip(strip, appMarkers: appMarkers[i], deviceMarkers: deviceMarkers[i],
                                    named: strips.count > 1)
            out += "</section>\n"
        }
        return out
    }

    /// Markers placed so that none covers another: in time order, each on the
    /// first line of the row where it clears the one before it by
    /// `markerGap`. Returns the line of each marker and how many lines.
    static func pack(_ xs: [Double]) -> (lines: [Int], count: Int) {
        var rightEdges: [Double] = [], lines: [Int] = []
        for x in xs {
            let left = x - markerHalfWidth
            if let k = rightEdges.firstIndex(where: { $0 + markerGap <= left }) {
                rightEdges[k] = x + markerHalfWidth
                lines.append(k)
            } else {
                rightEdges.append(x + markerHalfWidth)
                lines.append(rightEdges.count - 1)
            }
        }
        return (lines, max(rightEdges.count, 1))
    }

    func drawStrip(_ strip: Strip, appMarkers: [[ReportTimeline.Marker]],
                   deviceMarkers: [[ReportTimeline.Marker]], named: Bool) -> String {
        typealias F = ReportFormat
        let span = Double(strip.end - strip.start)
        func x(_ t: Nanoseconds) -> Double {
            Self.labelWidth + Double(min(max(t, strip.start), strip.end) - strip.start) / span * Self.plotWidth
        }
        // Each app's markers in time order, packed into lines; the row as tall as its lines.
        var placed: [[(marker: ReportTimeline.Marker, x: Double, line: Int)]] = []
        var lanes: [(top: Double, rowHeight: Double, height: Double)] = []
        // The thin lanes with something in this strip, each labelled (a session's
        // further lanes repeat its name only when its first lane is not shown).
        var sublanes: [[(label: String, bands: [ReportTimeline.Band])]] = []
        var top = Self.axisHeight
        for (lane, app) in timeline.apps.enumerated() {
            var shown: [(label: String, bands: [ReportTimeline.Band])] = []
            var name = "", named = false
            for sublane in app.sublanes {
                if !sublane.label.isEmpty { name = sublane.label; named = false }
                let bands = sublane.bands.filter { $0.end > strip.start && $0.start < strip.end }
                guard !bands.isEmpty else { continue }
                shown.append((named ? "" : name, bands))
                named = true
            }
            sublanes.append(shown)
            let markers = appMarkers[lane].enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
                .map(\.element)
            let xs = markers.map { x($0.time) }
            let (lines, count) = Self.pack(xs)
            placed.append(markers.indices.map { (markers[$0], xs[$0], lines[$0]) })
            let rowHeight = Double(count) * Self.markerPitch + 2 * Self.appPad
            let height = rowHeight + Double(shown.count) * Self.sublanePitch + (shown.isEmpty ? 0 : 2)
            lanes.append((top, rowHeight, height))
            top += height
        }
        let appsHeight = top - Self.axisHeight
        let deviceTop = top + Self.deviceGap
        let height = deviceTop + Double(timeline.device.count) * Self.devicePitch + 4
        let plotRight = Self.labelWidth + Self.plotWidth
        let w = F.coordinate(Self.width), h = F.coordinate(height)
        var out = "<svg class=\"timeline\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\" "
            + "role=\"img\" aria-label=\"\(F.escape(strip.heading))\">\n"
        if named {
            out += "<text class=\"day\" x=\"0\" y=\"16\">\(F.escape(strip.heading))</text>\n"
        }

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
            out += "<text class=\"tick\" x=\"\(tx)\" y=\"15\" text-anchor=\"\(anchor)\">\(label)</text>"
            tick += step
        }
        out += "\n"

        // Apps: a label, state bands, the thin lanes of waits, markers.
        for (lane, app) in timeline.apps.enumerated() {
            let top = lanes[lane].top, rowHeight = lanes[lane].rowHeight
            let bandTop = top + 2, bandHeight = rowHeight - 4
            out += "<g class=\"app\" data-app=\"\(F.escape(app.label))\">"
            out += label(app.label, y: top + rowHeight / 2)
            for band in app.bands where band.end > strip.start && band.start < strip.end {
                let suspended = band.style == ReportTimeline.BandKind.suspended.rawValue
                let height = suspended ? Self.suspendedHeight : bandHeight
                let y = suspended ? top + (rowHeight - height) / 2 : bandTop
                out += rect(band.style, x(band.start), x(band.end), y, height,
                            bandTitle(band), minimumWidth: suspended ? 0.5 : 1.5)
            }
            for (k, sublane) in sublanes[lane].enumerated() {
                let y = top + rowHeight + Double(k) * Self.sublanePitch + (Self.sublanePitch - Self.sublaneHeight) / 2
                if !sublane.label.isEmpty {
                    out += label(sublane.label, y: y + Self.sublaneHeight / 2, small: true)
                }
                for band in sublane.bands {
                    out += rect("req " + band.style, x(band.start), x(band.end), y, Self.sublaneHeight, bandTitle(band),
                                minimumWidth: 2)
                }
            }
            for p in placed[lane] {
                let y = top + Self.appPad + (Double(p.line) + 0.5) * Self.markerPitch
                out += use(p.marker, x: p.x, y: y)
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
        let limit = small ? Self.sublaneLabelCharacters : Self.labelCharacters
        let shown = text.count > limit ? "…" + String(text.suffix(limit - 1)) : text
        return "<text class=\"\(device ? "dlabel" : small ? "rlabel" : "label")\" x=\"\(F.coordinate(Self.labelWidth - 8))\" "
            + "y=\"\(F.coordinate(y + 4.5))\" text-anchor=\"end\"><title>\(F.escape(text))</title>"
            + "\(F.escape(shown))</text>"
    }

    private typealias F = ReportFormat
}
