import BGXCore
import Foundation

/// What bgx reads, at most. Parsing, checking and running grow as n log n
/// in apps and timeline entries (`bgx bench --scale` shows it), so these are
/// not where bgx gets slow: they say where a file stops being a scenario
/// someone wrote or generated on purpose, and keep a runaway file from
/// holding the machine. Each is reported as `error: FILE:LINE:COLUMN`.
public struct ScenarioLimits: Sendable {
    /// A scenario file's size (64 MB: about 120 000 generated apps).
    public var fileBytes = 64 * 1024 * 1024
    /// Apps in one scenario (`apps:` entries).
    public var apps = 100_000
    /// Entries of `timeline:` (and, separately, of `expect:` and `usage:`).
    public var timelineEntries = 1_000_000
    /// How deeply YAML collections nest (a scenario needs about 8 levels).
    public var nestingDepth = 64
    /// The longest duration a value may give (10 000 days, about 27 years).
    public static let longestDuration: Nanoseconds = Time.days(10_000)

    /// What `bgx` uses.
    public static let standard = ScenarioLimits()

    public init(fileBytes: Int = 64 * 1024 * 1024, apps: Int = 100_000, timelineEntries: Int = 1_000_000,
                nestingDepth: Int = 64) {
        self.fileBytes = fileBytes
        self.apps = apps
        self.timelineEntries = timelineEntries
        self.nestingDepth = nestingDepth
    }

    /// Reads a file to parse, or says why not: `no such file`, a
    /// directory, too large, unreadable. The message names the file alone,
    /// not a line in it.
    public func contents(of path: String) throws -> Data {
        var isDirectory: ObjCBool = false
        let whole = SourceLocation(file: path, line: 0, column: 0)
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ScenarioError(whole, "no such file")
        }
        guard !isDirectory.boolValue else { throw ScenarioError(whole, "is a directory, not a file") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
           size.int64Value > Int64(fileBytes) {
            throw ScenarioError(whole, "the file is \(size.int64Value / (1024 * 1024)) MB; bgx reads files of at most "
                                + "\(fileBytes / (1024 * 1024)) MB")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(whole, "cannot read the file (permission denied?)")
        }
        return data
    }
}
