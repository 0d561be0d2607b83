import Foundation

/// A scenario's `loadtest:` section: the HTTP request each cause of a
/// fleet's arrivals makes at the backend, for `bgx fleet loadtest` to
/// replay the fleet's curve against a real server.
public struct LoadTest: Sendable, Equatable {
    /// Whose arrivals are replayed; may be left out when the scenario has one app.
    public var app: String?
    /// Cause (`userLaunch`, `refresh`, …) → its request. Causes without one are not replayed.
    public var requests: [String: Request] = [:]
    public var location: SourceLocation

    public struct Request: Sendable, Equatable {
        public var method = "GET"
        /// Starts with `/`; the host comes from `--host`.
        public var path: String
        public var headers: [String: String] = [:]
        /// Bytes of body each request sends (0: none).
        public var bodyBytes: Int64 = 0
        public var location: SourceLocation
    }

    public init(location: SourceLocation) { self.location = location }

    public static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
    /// The largest body a request may send: a replay keeps each body in memory.
    public static let largestBody: Int64 = 64 << 20
}
