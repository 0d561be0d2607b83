import BGXCore
import Foundation
import Yams

/// Reads a scenario file (docs/scenarios.md) into a `Scenario`.
/// Every value is read as the raw text YAML gave it — `22:30` stays a time,
/// not YAML 1.1's base-60 number, and `on:` stays a key, not `true`.
/// Every mistake is a `ScenarioError` pointing at the offending node.
public struct ScenarioParser {
    let file: String
    let limits: ScenarioLimits

    public init(file: String, limits: ScenarioLimits = .standard) {
        self.file = file
        self.limits = limits
    }

    public static func parse(contentsOf path: String, limits: ScenarioLimits = .standard) throws -> Scenario {
        let data = try limits.contents(of: path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "the file is not UTF-8 text")
        }
        return try ScenarioParser(file: path, limits: limits).parse(text)
    }

    // MARK: Vocabulary

    /// Trace kinds an `expect:` may name, with the fields each carries (BGXCore's `TraceKind`).
    static let traceKinds: [String: [String]] = Dictionary(uniqueKeysWithValues: TraceKind.allCases.map {
        ($0.rawValue, $0.fields)
    })
    static let futureTraceKinds: [String: String] = [:]
    /// Background modes of newer iOS, recognised and not yet simulated: what
    /// each is and what bgx would need to build it. Apple's list:
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/uibackgroundmodes
    public static let futureModes: [String: String] = [
        "push-to-talk": "the 'push-to-talk' background mode (iOS 16 PushToTalk: the system keeps a "
            + "PTChannelManager's channel, a push of type pushtotalk launches or wakes the app to play audio, and the "
            + "system activates its audio session) — bgx would need that push type, the channel manager and its audio session",
        "nearby-interaction": "the 'nearby-interaction' background mode (iOS 16 Nearby Interaction: an NISession "
            + "ranging with a paired Bluetooth LE accessory keeps running in the background and wakes the app with "
            + "updates) — bgx would need NISession, accessory ranging and its wakes",
    ]
    /// Task request types of newer iOS, recognised and not yet simulated.
    static let futureTaskTypes: [String: String] = [
        "healthResearch": "BGHealthResearchTaskRequest (iOS 17: a processing request for a health research study "
            + "that runs only while the data it needs is readable — protectionTypeOfRequiredData: with complete "
            + "protection only while the device is unlocked, otherwise after the first unlock since boot) — bgx "
            + "would need the device's protected-data state as a scheduling condition",
    ]

    /// Every word list of the scenario language, by the vocabulary block of
    /// docs/scenarios.md that documents it — made from the declarations
    /// themselves, so that DocsDriftTests holds the docs to what is read.
    static var vocabulary: [String: [String]] {
        [
            "top": topKeys.names, "profiles": PolicyProfile.all.map(\.name), "device": timelineDeviceKeys.names,
            "app": appKeys.names, "modes": BackgroundMode.allCases.map(\.rawValue), "sounds": soundKeys.names,
            "notifications": notificationsKeys.names,
            "handlers": handlers.map(\.name) + futureHandlers.keys, "actions": actions.map(\.name) + futureActions.keys,
            "submit": submitKeys.names, "notify": notifyKeys.names, "download": downloadKeys.names, "usage": usageKeys.names,
            "timeline": timelineKeys, "user": userCommands.map(\.name), "push": pushKeys.names, "debug": debugKeys.names,
            "expect": expectationKeys.names, "population": populationKeys.names, "loadtest": loadTestKeys.names,
            "request": requestKeys.names, "trace": Array(traceKinds.keys) + futureTraceKinds.keys,
        ]
    }

    // MARK: Entry

    /// Parses a scenario. Features of later issues are kept as `unsupported`
    /// entries in `unsupported`; `bgx run` refuses them, `bgx check` reads past.
    public func parse(_ text: String) throws -> Scenario {
        let root: Node
        do {
            // Every value is read as its raw text, so YAML's tag resolution
            // (a regular expression per scalar) is left out: `.basic`.
            guard let node = try Yams.compose(yaml: text, .basic) else {
                throw ScenarioError(loc(line: 1, column: 1), "the scenario is empty")
            }
            root = node
        } catch let error as YamlError {
            // libyaml's words for a tab ("found character that cannot start any token") hide the fix.
            if let tab = Self.indentingTab(in: text) {
                throw ScenarioError(loc(line: tab.line, column: tab.column),
                                    "a tab in the indentation; indent with spaces (YAML does not allow tabs there)")
            }
            throw yamlError(error)
        }
        try checkNesting(root)
        var reading = TopReading(scenario: Scenario(file: file))
        try read(Self.topKeys, root, into: &reading)
        return reading.scenario
    }

    /// The scenario's apps by name: every timeline entry and expectation
    /// names one, so finding it must not be a pass over all of them.
    struct KnownApps {
        let names: [String]
        let set: Set<String>
        init(names: [String]) {
            self.names = names
            set = Set(names)
        }
        func contains(_ name: String) -> Bool { set.contains(name) }
    }

    struct MomentContext {
        var startOffset: Nanoseconds
        var duration: Nanoseconds
        var start = Date(timeIntervalSince1970: 0)
        var profile = PolicyProfile.modern
        /// Every id a `notify` action names (what `tapNotification` may name).
        var notificationIDs: Set<String> = []
    }

    static func parseStart(_ s: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let d = formatter.date(from: s) { return d }
        }
        return nil
    }

    // MARK: Sections

    /// `allocate: 50MB` grows the footprint, `allocate: -50MB` frees.
    func allocation(_ node: Node, _ device: DeviceState) throws -> Int64 {
        let text = try scalar(node, "allocate")
        let negative = text.hasPrefix("-")
        guard let v = Units.size(negative ? String(text.dropFirst()) : text) else {
            throw err(node, "allocate: '\(text)' is not a size (write 50MB, or -50MB to free)")
        }
        guard v <= device.memory else {
            throw err(node, "allocate: \(text) is more than the device's \(Engine.mb(device.memory)) of RAM")
        }
        return negative ? -v : v
    }

    static let weekdays = Units.weekdays

    /// `at:` of a notification: `HH:MM` (the next time the clock reads it;
    /// daily if it repeats), `Mon HH:MM` (weekly), `Nd HH:MM` (that date), or
    /// a duration from the start (a fixed moment).
    func notifyMoment(_ node: Node, repeats: Bool, hasZone: Bool, _ context: MomentContext) throws -> ScenarioApp.Notify.When {
        let text = try scalar(node, "at")
        let words = text.split(separator: " ").map(String.init)
        if let clock = words.last.flatMap(Units.timeOfDay), words.count <= 2 {
            guard words.count == 2 else { return .clock(day: nil, weekday: nil, timeOfDay: clock) }
            if let i = Self.weekdays.firstIndex(of: words[0]) { return .clock(day: nil, weekday: i + 1, timeOfDay: clock) }
            if words[0].hasSuffix("d"), let day = Int(words[0].dropLast()), day >= 0 {
                guard !repeats else {
                    throw err(node, "at: a date repeats never; write 'at: HH:MM' to repeat daily or 'at: Mon HH:MM' weekly")
                }
                // Calendar triggers are looked for four years ahead (DateMatch.next).
                guard day <= 4 * 366 else { throw err(node, "at: a date is at most 1464d (four years) after the start") }
                return .clock(day: day, weekday: nil, timeOfDay: clock)
            }
            if let guess = nearest(words[0], in: Self.weekdays) {
                throw err(node, "at: unknown day '\(words[0])'; did you mean '\(guess)'?")
            }
        } else if let d = Units.duration(text) {
            guard !repeats else {
                throw err(node, "at: a moment repeats never; write 'at: HH:MM' to repeat daily or 'at: Mon HH:MM' weekly")
            }
            guard !hasZone else { throw err(node, "at: a moment given as a duration is on no clock; timeZone has no meaning") }
            return .at(d)
        }
        throw err(node, "at: '\(text)' is not a time (write HH:MM, Mon HH:MM, Nd HH:MM, or a duration like 90s)")
    }

    /// An IANA time zone name, as a table of its offsets over the run.
    func timeZone(_ node: Node, _ context: MomentContext) throws -> TimeZoneRules {
        let name = try scalar(node, "timeZone")
        guard let zone = TimeZone(identifier: name) else {
            throw unknown(node, "time zone", name, TimeZone.knownTimeZoneIdentifiers + ["UTC"])
        }
        let end = context.start.addingTimeInterval(Time.toSeconds(context.duration) + 4 * 366 * 86_400)
        return TimeZoneRules(zone, from: context.start.addingTimeInterval(-2 * 86_400), through: end)
    }

    // MARK: Node helpers

    struct Mapping {
        var ordered: [(String, Node)] = []
        var keyNodes: [String: Node] = [:]
        subscript(key: String) -> Node? { ordered.first { $0.0 == key }?.1 }
    }

    func mapping(_ node: Node, _ what: String, known: [String]?) throws -> Mapping {
        guard case let .mapping(m) = node else { throw err(node, "\(what) must be a mapping of 'key: value' pairs") }
        var result = Mapping()
        for (k, v) in m {
            let key = try scalar(k, "a key")
            if result.keyNodes[key] != nil { throw err(k, "'\(key)' is given twice") }
            if let known, !known.contains(key) { throw unknown(k, "key in \(what)", key, known) }
            result.ordered.append((key, v))
            result.keyNodes[key] = k
        }
        return result
    }

    func sequence(_ node: Node, _ what: String) throws -> [Node] {
        guard case let .sequence(s) = node else { throw err(node, "\(what) must be a list") }
        return Array(s)
    }

    func scalar(_ node: Node, _ what: String) throws -> String {
        guard case let .scalar(s) = node else { throw err(node, "\(what) must be a single value") }
        return s.string
    }

    func bool(_ node: Node, _ what: String) throws -> Bool {
        switch try scalar(node, what) {
        case "true": return true
        case "false": return false
        case let other: throw err(node, "\(what) must be true or false, got '\(other)'")
        }
    }

    func duration(_ node: Node, _ what: String) throws -> Nanoseconds {
        let text = try scalar(node, what)
        guard let d = Units.duration(text) else {
            if Units.isDurationOutOfRange(text) {
                throw err(node, "\(what): '\(text)' is out of range: a duration is at most "
                          + "\(Time.describe(ScenarioLimits.longestDuration))")
            }
            throw err(node, "\(what): '\(text)' is not a duration (write 500ms, 30s, 15m, 2h, 7d or 1h30m)")
        }
        return d
    }

    func moment(_ node: Node, _ what: String, _ context: MomentContext) throws -> Nanoseconds {
        let text = try scalar(node, what)
        guard let t = Units.moment(text, startOffset: context.startOffset, start: context.start) else {
            throw err(node, "\(what): '\(text)' is not a time (write HH:MM, Nd HH:MM, Mon HH:MM, or a duration like 90s)")
        }
        guard t >= 0 else { throw err(node, "\(what): \(text) is before the scenario starts") }
        return t
    }

    func bundle(_ node: Node, _ bundles: KnownApps) throws -> String {
        let name = try scalar(node, "app")
        guard bundles.contains(name) else { throw unknown(node, "app", name, bundles.names) }
        return name
    }

    func location(_ node: Node?) -> SourceLocation {
        let mark = node?.mark
        return loc(line: mark?.line ?? 1, column: mark?.column ?? 1)
    }
    func loc(line: Int, column: Int) -> SourceLocation { SourceLocation(file: file, line: line, column: column) }

    func err(_ node: Node?, _ message: String) -> ScenarioError { ScenarioError(location(node), message) }

    func unknown(_ node: Node, _ what: String, _ word: String, _ known: [String]) -> ScenarioError {
        var message = "unknown \(what) '\(word)'"
        if let guess = nearest(word, in: known) { message += "; did you mean '\(guess)'?" }
        else { message += " (known: \(known.joined(separator: ", ")))" }
        return err(node, message)
    }

    /// Collections nested deeper than `limits.nestingDepth` (a
    /// pass over the tree, without recursion).
    func checkNesting(_ root: Node) throws {
        var stack: [(Node, Int)] = [(root, 1)]
        while let (node, depth) = stack.popLast() {
            switch node {
            case .scalar, .alias: continue
            case let .mapping(m):
                if depth > limits.nestingDepth { throw tooDeep(node.mark) }
                for (k, v) in m { stack.append((k, depth + 1)); stack.append((v, depth + 1)) }
            case let .sequence(s):
                if depth > limits.nestingDepth { throw tooDeep(node.mark) }
                for v in s { stack.append((v, depth + 1)) }
            }
        }
    }

    func tooDeep(_ mark: Mark?) -> ScenarioError {
        ScenarioError(loc(line: mark?.line ?? 1, column: mark?.column ?? 1),
                      "the YAML nests deeper than \(limits.nestingDepth) levels (a scenario needs about 8)")
    }

    /// The first tab among a line's leading whitespace (1-based line and column).
    static func indentingTab(in text: String) -> (line: Int, column: Int)? {
        var line = 1
        for row in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var column = 1
            for c in row.utf8 {
                if c == UInt8(ascii: "\t") { return (line, column) }
                if c != UInt8(ascii: " ") { break }
                column += 1
            }
            line += 1
        }
        return nil
    }

    func yamlError(_ error: YamlError) -> ScenarioError {
        switch error {
        case let .scanner(_, problem, mark, _) where problem.contains("nesting level"),
             let .parser(_, problem, mark, _) where problem.contains("nesting level"):
            // libyaml's own words name its C API; ours name the limit.
            return tooDeep(mark)
        case let .duplicatedKeysInMapping(duplicates, context):
            return ScenarioError(loc(line: context.mark.line, column: context.mark.column),
                                 "'\(duplicates.first ?? "")' is given twice")
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            let what = context.map { "\(problem) \($0.text)" } ?? problem
            return ScenarioError(loc(line: mark.line, column: mark.column), "malformed YAML: \(what)")
        case let .composer(context, problem, mark, _):
            let what = context.map { "\(problem) \($0.text)" } ?? problem
            return ScenarioError(loc(line: mark.line, column: mark.column), "malformed YAML: \(what)")
        default:
            return ScenarioError(loc(line: 1, column: 1), "malformed YAML: \(error)")
        }
    }
}
