/// Nanoseconds spent in each process state. Plain fields behind a switch:
/// a SIMD vector indexed at run time is spilled to memory on every update.
public struct StateTimes: Sendable, Equatable, Codable {
    public var notRunning: Nanoseconds = 0
    public var inactive: Nanoseconds = 0
    public var active: Nanoseconds = 0
    public var background: Nanoseconds = 0
    public var suspended: Nanoseconds = 0

    public subscript(state: ProcessState) -> Nanoseconds {
        get {
            switch state {
            case .notRunning: notRunning
            case .inactive: inactive
            case .active: active
            case .background: background
            case .suspended: suspended
            }
        }
        set {
            switch state {
            case .notRunning: notRunning = newValue
            case .inactive: inactive = newValue
            case .active: active = newValue
            case .background: background = newValue
            case .suspended: suspended = newValue
            }
        }
    }
}
