import BGXCore
import Foundation

/// Reads the decisions `dasd` logs (Console, `log show --predicate
/// 'process == "dasd"'`, or lines pasted into an issue): an activity with a
/// six-digit tag, its policies, and the final decision —
///
///     bgProcessing-com.example.feed.cleanup:B5B340:[
///         {name: DeviceActivityPolicy, policyWeight: 5.000, response: {Decision: Must Not Proceed, …}}
///      ], FinalDecision: Must Not Proceed}
///
/// — with the `CurrentScore … ThresholdScore … DecisionToRun` line that may
/// follow (alone, that line is a decision with no policies printed). Whatever is not such a decision is ignored; a decision that is
/// cut off or garbled is skipped and counted, never a crash.
public struct DasdLog: Sendable {
    public struct Policy: Sendable, Equatable {
        public var name: String
        public var weight: Double
        /// dasd's words: `Must Not Proceed`, `Can Proceed`, `Absolutely Must Proceed`, …
        public var decision: String
        public var score: Double
        public var rationale: String
    }

    public struct Decision: Sendable, Equatable {
        /// The activity as logged (`com.apple.pushLaunch.com.example.chat`), without its tag.
        public var activity: String
        public var tag: String
        /// The time of day on the decision's line (`09:12:48`), as logged, and in seconds.
        public var time: String?
        public var secondsOfDay: Int?
        public var policies: [Policy]
        public var sumScores: Double?
        public var denominator: Double?
        public var finalDecision: String
        public var finalScore: Double?
        public var currentScore: Double?
        public var thresholdScore: Double?
        public var decisionToRun: Bool?
        /// 1-based line of the decision's first line.
        public var line: Int

        /// Whether dasd let the activity run: a Proceed verdict, unless a
        /// logged `DecisionToRun:0` says the score fell short of the threshold.
        public var ran: Bool {
            if let decisionToRun { return decisionToRun }
            return !finalDecision.contains("Not")
        }

        /// The app the activity is for: the bundle of a push launch, the
        /// identifier of a BGTask activity (whose prefix is usually the bundle).
        public var subject: String {
            for prefix in ["com.apple.pushLaunch.", "bgProcessing-", "bgRefresh-"] where activity.hasPrefix(prefix) {
                return String(activity.dropFirst(prefix.count))
            }
            return activity
        }

        /// The policies that decided: the blocking ones when the activity was
        /// blocked; the one that said Absolutely Must Proceed; else the one
        /// holding the score down most (largest weight × (1 − score)).
        public var decidingPolicies: [String] {
            let blocking = policies.filter { $0.decision.contains("Not") }
            if !blocking.isEmpty { return blocking.map(\.name) }
            if let must = policies.first(where: { $0.decision.hasPrefix("Absolutely") }) { return [must.name] }
            let worst = policies.max { $0.weight * (1 - $0.score) < $1.weight * (1 - $1.score) }
            return worst.map { [$0.name] } ?? []
        }
    }

    public var decisions: [Decision] = []
    /// Decisions that were begun but could not be read (cut off, garbled).
    public var skipped = 0

    public init(text: String) {
        // Apple's technotes break `…:0B1380:` and `[{name: …` over two lines.
        let text = text.replacingOccurrences(of: ":\r\n[", with: ":[").replacingOccurrences(of: ":\n[", with: ":[")
        var open: (header: Substring, tag: String, activity: String, body: String, line: Int)?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (n, raw) in lines.enumerated() {
            let line = raw.replacingOccurrences(of: "\r", with: "")
            if let header = Self.header(in: line) {
                if open != nil { skipped += 1 }  // a decision that never reached its FinalDecision
                open = (Substring(line), header.tag, header.activity, String(line[header.rest...]), n + 1)
            } else if open != nil {
                open!.body += "\n" + line
            } else if line.contains("{name:"), line.contains("policyWeight:") {
                // A decision quoted without its first line: the activity is unknown.
                open = (Substring(line), "", "", line, n + 1)
            } else if let threshold = Self.threshold(in: line) {
                if let k = decisions.lastIndex(where: { $0.activity == threshold.activity && $0.tag == threshold.tag }) {
                    decisions[k].currentScore = threshold.current
                    decisions[k].thresholdScore = threshold.threshold
                    decisions[k].decisionToRun = threshold.run
                } else {
                    // The score line alone (its policy block filtered out or not
                    // copied): still a decision, with no policies printed.
                    let (time, seconds) = Self.time(in: Substring(line))
                    decisions.append(Decision(activity: threshold.activity, tag: threshold.tag, time: time, secondsOfDay: seconds,
                                              policies: [], sumScores: nil, denominator: nil,
                                              finalDecision: threshold.run ? "Can Proceed" : "Must Not Proceed", finalScore: nil,
                                              currentScore: threshold.current, thresholdScore: threshold.threshold,
                                              decisionToRun: threshold.run, line: n + 1))
                }
                continue
            } else {
                continue
            }
            guard let o = open, o.body.contains("FinalDecision:") else {
                if let o = open, o.body.count > 20_000 { skipped += 1; open = nil }  // runaway: no end in sight
                continue
            }
            open = nil
            if let d = Self.decision(o.activity, o.tag, header: o.header, body: o.body, line: o.line) {
                decisions.append(d)
            } else {
                skipped += 1
            }
        }
        if open != nil { skipped += 1 }
    }

    /// Decisions about one app (its bundle identifier, or a prefix of a task identifier).
    public func decisions(for bundle: String) -> [Decision] {
        decisions.filter { $0.subject == bundle || $0.subject.hasPrefix(bundle + ".") || $0.activity.contains(bundle) }
    }

    // MARK: Reading

    /// `…<activity>:<6 hex>:[` — where a decision begins.
    static func header(in line: String) -> (activity: String, tag: String, rest: String.Index)? {
        guard let bracket = line.range(of: ":[") else { return nil }
        let before = line[..<bracket.lowerBound]
        guard let colon = before.lastIndex(of: ":") else { return nil }
        let tag = before[before.index(after: colon)...]
        guard tag.count == 6, tag.allSatisfy(\.isHexDigit) else { return nil }
        let name = before[..<colon]
        // The activity is the last token before the tag; a `uid:` prefix
        // (`501:com.apple…`) belongs to it, whitespace and quotes do not.
        let start = name.lastIndex { $0 == " " || $0 == "\t" || $0 == "'" }.map { name.index(after: $0) } ?? name.startIndex
        let activity = droppingUID(String(name[start...]))
        guard !activity.isEmpty else { return nil }
        return (activity, String(tag), bracket.upperBound)
    }

    static func decision(_ activity: String, _ tag: String, header: Substring, body: String, line: Int) -> Decision? {
        var policies: [Policy] = []
        var rest = Substring(body)
        while let start = rest.range(of: "{name:") {
            guard let (policy, end) = Self.policy(rest[start.upperBound...]) else { return nil }
            policies.append(policy)
            rest = rest[end...]
        }
        guard let finalRange = body.range(of: "FinalDecision:") else { return nil }
        let afterFinal = body[finalRange.upperBound...]
        let finalWords = afterFinal.prefix { $0 != "}" && $0 != "\n" }
        var finalDecision = String(finalWords).trimmingCharacters(in: .whitespaces)
        var finalScore: Double?
        if let scoreRange = finalDecision.range(of: "FinalScore:") {
            finalScore = Double(finalDecision[scoreRange.upperBound...].trimmingCharacters(in: .whitespaces))
            finalDecision = String(finalDecision[..<scoreRange.lowerBound]).trimmingCharacters(in: .whitespaces)
            guard finalScore != nil else { return nil }
        }
        guard Self.verdicts.contains(finalDecision) else { return nil }
        let (time, seconds) = Self.time(in: header)
        return Decision(activity: activity, tag: tag, time: time, secondsOfDay: seconds, policies: policies,
                        sumScores: Self.number(after: "sumScores:", in: body),
                        denominator: Self.number(after: "denominator:", in: body),
                        finalDecision: finalDecision, finalScore: finalScore, line: line)
    }

    static let verdicts: Set<String> = ["Must Not Proceed", "Can Proceed", "Absolutely Must Proceed",
                                        "Absolutely Must Not Proceed", "Must Proceed", "May Not Proceed"]

    /// ` DeviceActivityPolicy, policyWeight: 5.000, response: {Decision: …, Score: 0.00, Rationale: [...]}}`
    static func policy(_ s: Substring) -> (Policy, Substring.Index)? {
        guard let comma = s.firstIndex(of: ",") else { return nil }
        let name = s[..<comma].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, let weight = number(after: "policyWeight:", in: s),
              let decisionStart = s.range(of: "Decision:") else { return nil }
        let decisionText = s[decisionStart.upperBound...].prefix { $0 != "," && $0 != "}" }
        let decision = decisionText.trimmingCharacters(in: .whitespaces)
        guard verdicts.contains(decision), let score = number(after: "Score:", in: s[decisionStart.upperBound...]) else {
            return nil
        }
        // The response closes with `}}` (the rationale's own braces are inside brackets).
        var depth = 0, inBrackets = 0
        var end: Substring.Index?
        var i = s.startIndex
        while i < s.endIndex {
            switch s[i] {
            case "[": inBrackets += 1
            case "]": inBrackets = max(0, inBrackets - 1)
            case "{" where inBrackets == 0: depth += 1
            case "}" where inBrackets == 0:
                if depth == 0 { end = s.index(after: i) } else { depth -= 1 }
            default: break
            }
            if end != nil { break }
            i = s.index(after: i)
        }
        guard let end else { return nil }
        var rationale = ""
        if let r = s[..<end].range(of: "Rationale:") {
            rationale = s[r.upperBound..<end].trimmingCharacters(in: .whitespacesAndNewlines)
            while rationale.hasSuffix("}") { rationale.removeLast() }
            rationale = rationale.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let policyName = name.replacingOccurrences(of: " ", with: "")  // TN3163 prints `Device Activity Policy`
        guard !policyName.isEmpty, weight.isFinite, score.isFinite else { return nil }
        return (Policy(name: policyName, weight: weight, decision: decision, score: score, rationale: rationale), end)
    }

    /// `'<activity>:<tag>' CurrentScore: 0.839600, ThresholdScore: 0.909800 DecisionToRun:0`
    static func threshold(in line: String) -> (activity: String, tag: String, current: Double, threshold: Double, run: Bool)? {
        guard let current = number(after: "CurrentScore:", in: line), let threshold = number(after: "ThresholdScore:", in: line),
              let runRange = line.range(of: "DecisionToRun:"), let quote = line.firstIndex(of: "'") else { return nil }
        let run = line[runRange.upperBound...].trimmingCharacters(in: .whitespaces).hasPrefix("1")
        let quoted = line[line.index(after: quote)...].prefix { $0 != "'" }
        guard let colon = quoted.lastIndex(of: ":") else { return nil }
        let activity = droppingUID(String(quoted[..<colon]))
        return (activity, String(quoted[quoted.index(after: colon)...]), current, threshold, run)
    }

    static func number<S: StringProtocol>(after label: String, in s: S) -> Double? {
        guard let r = s.range(of: label) else { return nil }
        // dasd's weights and scores are never negative: a sign is a garbled line.
        let digits = s[r.upperBound...].drop { $0 == " " }.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        return Double(digits)
    }

    /// An activity without its `uid:` prefix (`501:com.apple…`).
    static func droppingUID(_ activity: String) -> String {
        guard let uid = activity.firstIndex(of: ":"), activity[..<uid].allSatisfy(\.isNumber) else { return activity }
        return String(activity[activity.index(after: uid)...])
    }

    /// The first `HH:MM:SS` on the line.
    static func time(in line: Substring) -> (String?, Int?) {
        let chars = Array(line)
        var i = 0
        while i + 8 <= chars.count {
            let w = chars[i..<(i + 8)]
            let d = w.map { $0.isNumber }
            if d[0], d[1], w[w.startIndex + 2] == ":", d[3], d[4], w[w.startIndex + 5] == ":", d[6], d[7],
               i == 0 || !chars[i - 1].isNumber {
                let text = String(w)
                if let t = Units.timeOfDay(text) { return (text, Int(Time.toSeconds(t))) }
            }
            i += 1
        }
        return (nil, nil)
    }
}
