import BGXApp
import Foundation

/// os's `Logger`: app code's lines in the unified log. On a simulated device
/// each line goes into the trace (`log`) at the instant its thread wrote it;
/// the live host writes it to the app's standard error. A value is stored as
/// a device stores it when no debugger is attached: strings and other objects
/// interpolated with the default privacy (`.auto`) or `.private` read
/// `<private>`, numbers and booleans under `.auto` are shown, `.public` shows
/// anything.
public struct Logger: Sendable {
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }
    /// The default log (`Logger()`).
    public init() { self.init(subsystem: "", category: "") }

    public func log(_ message: OSLogMessage) { write(.default, message) }
    public func log(level: OSLogType, _ message: OSLogMessage) { write(level, message) }
    public func trace(_ message: OSLogMessage) { write(.debug, message) }
    public func debug(_ message: OSLogMessage) { write(.debug, message) }
    public func info(_ message: OSLogMessage) { write(.info, message) }
    public func notice(_ message: OSLogMessage) { write(.default, message) }
    public func warning(_ message: OSLogMessage) { write(.error, message) }
    public func error(_ message: OSLogMessage) { write(.error, message) }
    public func critical(_ message: OSLogMessage) { write(.fault, message) }
    public func fault(_ message: OSLogMessage) { write(.fault, message) }

    private func write(_ level: OSLogType, _ message: OSLogMessage) {
        let source = subsystem.isEmpty && category.isEmpty ? "" : "[\(subsystem):\(category)] "
        let line = "Logger \(source)\(level.name): \(message.stored)"
        if let connection = ProcessContext.running?.connection {
            connection.appLog(line)
        } else {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}

/// `OSLogType`.
public struct OSLogType: Equatable, Sendable {
    let name: String
    public static let `default` = OSLogType(name: "default")
    public static let info = OSLogType(name: "info")
    public static let debug = OSLogType(name: "debug")
    public static let error = OSLogType(name: "error")
    public static let fault = OSLogType(name: "fault")
}

/// `OSLogPrivacy`.
public struct OSLogPrivacy: Equatable, Sendable {
    enum Kind: Sendable { case auto, `public`, `private`, sensitive }
    let kind: Kind
    public static let auto = OSLogPrivacy(kind: .auto)
    public static let `public` = OSLogPrivacy(kind: .public)
    public static let `private` = OSLogPrivacy(kind: .private)
    public static let sensitive = OSLogPrivacy(kind: .sensitive)
    /// `.private(mask: .hash)`: bgx stores it as `<private>` too.
    public enum Mask: Sendable { case hash, none }
    public static func `private`(mask: Mask) -> OSLogPrivacy { .private }
    public static func auto(mask: Mask) -> OSLogPrivacy { .auto }
}

/// `OSLogMessage`: a string literal with interpolations, each with its privacy.
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var stored = ""
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) { stored += literal }
        /// Numbers and booleans: shown unless made private.
        public mutating func appendInterpolation<T: Numeric>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) {
            stored += privacy.kind == .auto || privacy.kind == .public ? "\(value())" : "<private>"
        }
        public mutating func appendInterpolation(_ value: @autoclosure () -> Bool, privacy: OSLogPrivacy = .auto) {
            stored += privacy.kind == .auto || privacy.kind == .public ? "\(value())" : "<private>"
        }
        /// Strings and any other value: shown only when public.
        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) {
            stored += privacy.kind == .public ? "\(value())" : "<private>"
        }
    }
    let stored: String
    public init(stringLiteral value: String) { stored = value }
    public init(stringInterpolation: StringInterpolation) { stored = stringInterpolation.stored }
}
