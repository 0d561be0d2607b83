import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// docs/scenarios.md lists every word of the scenario language in
/// `<!-- vocabulary: NAME -->` blocks, one `- \`word\` …` item each. These
/// tests hold it to the parser's own tables, both ways, so the reference
/// cannot drift from what `bgx run` accepts.
enum ScenarioReference {
    static let path = repositoryRoot.appendingPathComponent("docs/scenarios.md").path

    /// The documented words of each block, in order, with the `{…}` fields
    /// a trace kind's item lists.
    static func vocabulary(_ text: String) -> [String: [(word: String, fields: [String])]] {
        var blocks: [String: [(String, [String])]] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let l = line.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("<!-- vocabulary: "), l.hasSuffix("-->") {
                let name = l.dropFirst("<!-- vocabulary: ".count).dropLast(3).trimmingCharacters(in: .whitespaces)
                current = name
                blocks[name, default: []] = blocks[name] ?? []
            } else if l.hasPrefix("<!-- end vocabulary") {
                current = nil
            } else if let name = current, l.hasPrefix("- `") {
                let rest = l.dropFirst(3)
                guard let close = rest.firstIndex(of: "`") else { continue }
                // `task ID`, `launch BUNDLE`: the word is what comes before the argument.
                let word = String(rest[..<close].split(separator: " ").first ?? "")
                var fields: [String] = []
                let after = rest[rest.index(after: close)...].trimmingCharacters(in: .whitespaces)
                if after.hasPrefix("{"), let end = after.firstIndex(of: "}") {
                    fields = after[after.index(after: after.startIndex)..<end]
                        .split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                        .filter { !$0.isEmpty }
                }
                blocks[name, default: []].append((word, fields))
            }
        }
        return blocks
    }

    /// What the parser knows, block by block: made from its declarations
    /// (`ScenarioParser.vocabulary`), so a section it gains is held to the docs too.
    static var parserTables: [String: [String]] { ScenarioParser.vocabulary }

    /// Each difference between a documented block and the parser's table, in words.
    static func drift(documented: [String: [(word: String, fields: [String])]],
                      tables: [String: [String]], traceFields: [String: [String]]) -> [String] {
        var problems: [String] = []
        for (name, known) in tables.sorted(by: { $0.key < $1.key }) {
            guard let items = documented[name] else {
                problems.append("docs/scenarios.md has no '<!-- vocabulary: \(name) -->' block"); continue
            }
            let words = Set(items.map(\.word)), table = Set(known)
            for w in table.subtracting(words).sorted() {
                problems.append("\(name): the parser knows '\(w)' but docs/scenarios.md does not document it")
            }
            for w in words.subtracting(table).sorted() {
                problems.append("\(name): docs/scenarios.md documents '\(w)' but the parser does not know it")
            }
            let counts = Dictionary(items.map { ($0.word, 1) }, uniquingKeysWith: +)
            for (w, n) in counts where n > 1 { problems.append("\(name): '\(w)' is documented \(n) times") }
        }
        for name in documented.keys where tables[name] == nil {
            problems.append("docs/scenarios.md has a vocabulary block '\(name)' no parser table backs")
        }
        for item in documented["trace"] ?? [] {
            guard let fields = traceFields[item.word] else { continue }
            if Set(item.fields) != Set(fields) {
                problems.append("trace: '\(item.word)' documents fields \(item.fields) but the parser's are \(fields)")
            }
        }
        return problems
    }
}

@Suite("docs/scenarios.md matches the parser's vocabulary")
struct DocsDriftTests {
    let text = (try? String(contentsOfFile: ScenarioReference.path, encoding: .utf8)) ?? ""

    @Test("every key, handler, action, timeline input, user command and trace kind is documented, and nothing else")
    func vocabularyMatchesParser() {
        let problems = ScenarioReference.drift(documented: ScenarioReference.vocabulary(text),
                                               tables: ScenarioReference.parserTables,
                                               traceFields: ScenarioParser.traceKinds)
        #expect(!text.isEmpty, "docs/scenarios.md is missing")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("a word the parser gains is caught, and so is a word the docs invent")
    func driftIsCaught() {
        var tables = ScenarioReference.parserTables
        tables["actions"]! += ["teleport"]
        var documented = ScenarioReference.vocabulary(text)
        documented["timeline"]!.append((word: "earthquake", fields: []))
        var fields = ScenarioParser.traceKinds
        fields["task.start"]! += ["mood"]
        let problems = ScenarioReference.drift(documented: documented, tables: tables, traceFields: fields)
        #expect(problems.contains { $0.contains("'teleport'") && $0.contains("does not document") })
        #expect(problems.contains { $0.contains("'earthquake'") && $0.contains("does not know") })
        #expect(problems.contains { $0.contains("'task.start'") && $0.contains("mood") })
    }
}

/// docs/rules.md's table of the scheduler's policies lists every policy the
/// scheduler has, with the weight `SchedulerSettings` gives it; its profile
/// table shows each profile's background-task budget.
@Suite("docs/rules.md matches the scheduler's policies and the profiles")
struct RulesDriftTests {
    let text = (try? String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/rules.md").path,
                            encoding: .utf8)) ?? ""

    /// `| \`NamePolicy\` | weight | …` rows: the name and the weight cell without its `[…]` log range.
    static func policyRows(_ text: String) -> [String: String] {
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[0].hasSuffix("Policy`") else { continue }
            let weight = cells[1].split(separator: "[").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = weight
        }
        return rows
    }

    /// What the table should say of a policy's weight: `gate` when it has
    /// none, `processing / refresh` when they differ.
    static func weightCell(_ policy: SchedulingPolicy, _ p: SchedulerSettings) -> String {
        func f(_ w: Double) -> String { w == w.rounded() ? String(Int(w)) : String(w) }
        let processing = p.weight(policy, processing: true), refresh = p.weight(policy, processing: false)
        if processing == 0 && refresh == 0 { return "gate" }
        return processing == refresh ? f(processing) : "\(f(processing)) / \(f(refresh))"
    }

    @Test("every scheduling policy is in the table with its weight, and nothing else (rules §6)")
    func policiesMatch() {
        let rows = Self.policyRows(text)
        let policy = PolicyProfile.modern.scheduler
        #expect(Set(rows.keys) == Set(SchedulingPolicy.allCases.map(\.rawValue)))
        for p in SchedulingPolicy.allCases {
            #expect(rows[p.rawValue] == Self.weightCell(p, policy), "\(p.rawValue): docs say \(rows[p.rawValue] ?? "nothing")")
        }
    }

    @Test("the profile table's background task budgets are the profiles' (rules §2)")
    func budgetsMatch() throws {
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| Background task budget |") })
        let cells = row.split(separator: "|").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        let profiles = [PolicyProfile.modern, .ios12, .ios6]
        #expect(cells.count == profiles.count)
        for (cell, profile) in zip(cells, profiles) {
            #expect(cell.hasPrefix("\(Int(Time.toSeconds(profile.backgroundTaskBudget))) s"), "\(profile.name): \(cell)")
        }
    }
}
