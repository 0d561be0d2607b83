import BGXCore
import Foundation

/// The trace for people: wall-clock time, app, kind, fields.
public struct TraceText {
    let renderer: TraceRenderer
    let startOffset: Nanoseconds
    let appWidth: Int

    public init(device: SimulatedDevice) {
        renderer = device.renderer
        startOffset = Time.seconds(Int(device.startDate.timeIntervalSince1970.rounded()) % 86_400)
        appWidth = max(6, renderer.appNames.map(\.count).max() ?? 0)
    }

    /// `1d 08:00:05`, in the scenario's wall-clock time.
    public func clock(_ t: Nanoseconds) -> String {
        let total = (t + startOffset) / Time.nanosecondsPerSecond
        let day = total / 86_400, rest = total % 86_400
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(day)d \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
    }

    public func line(_ event: TraceEvent) -> String {
        let app = event.app.map { renderer.appNames[Int($0.index)] } ?? "device"
        let fields = renderer.fields(of: event).map { name, value -> String in
            switch value {
            case let .string(s): return "\(name)=\(s.contains(" ") ? "\"\(s)\"" : s)"
            case let .number(n): return n == n.rounded() ? "\(name)=\(Int64(n))" : "\(name)=\(n)"
            case let .bool(b): return "\(name)=\(b)"
            }
        }.joined(separator: " ")
        return "\(clock(event.time))  \(app.padding(toLength: appWidth, withPad: " ", startingAt: 0))  "
            + "\(event.kindName.padding(toLength: 14, withPad: " ", startingAt: 0)) \(fields)"
    }
}
