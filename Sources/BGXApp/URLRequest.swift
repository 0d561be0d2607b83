import Foundation

#if !canImport(Darwin)
/// iOS's `URLRequest`, for the background-session methods that take one
/// (`uploadTask(with:fromFile:)`, `downloadTask(with:)`). On Linux
/// Foundation's lives in FoundationNetworking, which code written for iOS
/// never imports, so without this one `import BGXKit` in place of UIKit would
/// not be the only change. It holds what a request says; header names are
/// matched without regard to case, as HTTP and Foundation do. (A file that
/// imports FoundationNetworking itself sees two `URLRequest`s.)
public struct URLRequest: Hashable, Sendable, CustomStringConvertible {
    public enum CachePolicy: UInt, Sendable {
        case useProtocolCachePolicy = 0, reloadIgnoringLocalCacheData = 1
        case returnCacheDataElseLoad = 2, returnCacheDataDontLoad = 3
    }

    public var url: URL?
    public var cachePolicy: CachePolicy
    public var timeoutInterval: TimeInterval
    public var httpMethod: String? = "GET"
    public var allHTTPHeaderFields: [String: String]?
    public var httpBody: Data?
    public var allowsCellularAccess = true

    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval = 60) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.timeoutInterval = timeoutInterval
    }

    public func value(forHTTPHeaderField field: String) -> String? {
        allHTTPHeaderFields?.first { $0.key.caseInsensitiveCompare(field) == .orderedSame }?.value
    }

    /// Replaces the field's value (nil removes it).
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        var fields = allHTTPHeaderFields ?? [:]
        let existing = fields.keys.first { $0.caseInsensitiveCompare(field) == .orderedSame }
        if let existing { fields[existing] = nil }
        if let value { fields[existing ?? field] = value }
        allHTTPHeaderFields = fields
    }

    /// Appends to the field's value, comma-separated, as Foundation does.
    public mutating func addValue(_ value: String, forHTTPHeaderField field: String) {
        setValue(self.value(forHTTPHeaderField: field).map { $0 + "," + value } ?? value, forHTTPHeaderField: field)
    }

    public var description: String { url?.absoluteString ?? "(null)" }
}
#endif
