/// Why jetsam killed an app (a `terminate` field).
public enum JetsamCause: UInt8, Sendable, CustomStringConvertible, Codable {
    /// Free memory fell below the critical level; kills from the lowest band up.
    case pressure
    /// The app's own footprint passed its per-process limit; killed at once.
    case perProcessLimit
    public var description: String {
        switch self {
        case .pressure: "pressure"
        case .perProcessLimit: "perProcessLimit"
        }
    }
}
