import BGXCore
import Foundation

/// The trace for people: wall-clock time, app, kind, fields.
public struct TraceText {
    let renderer: TraceRenderer
    let startOffset: Nanoseconds
    let appWidth: Int

    public init(device: SimulatedDevice) {
        renderer = device.renderer
        startOffset = device.engine.wallClockOffset
        appWidth = max(6, renderer.appNames.map(\.count).max() ?? 0)
    }

    /// `1d 08:00:05`, in the scenario's wall-clock time.
    public func clock(_ t: Nanoseconds) -> String { Time.wallClock(t + startOffset, seconds: true) }

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
