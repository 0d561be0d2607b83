import Foundation
import Testing

/// docs/cli.md documents every command and every option the executable's
/// own help lists, and no other: a `## bgx COMMAND` section per command.
@Suite("docs/cli.md matches bgx's help")
struct CommandLineDocsTests {
    static func options(in text: some StringProtocol) -> Set<String> {
        var found: Set<String> = []
        var rest = Substring(text)
        while let r = rest.range(of: "--") {
            let word = rest[r.upperBound...].prefix { $0.isLetter || $0 == "-" }
            if let first = word.first, first.isLetter { found.insert("--" + word) }
            rest = rest[r.upperBound...]
        }
        return found.subtracting(["--help"])
    }

    /// Options of the root command (`bgx --version` …) ArgumentParser may
    /// also list under each command; the docs give them once.
    static let rootOnly: Set<String> = ["--version"]

    /// The `## bgx NAME` sections of docs/cli.md.
    static func sections(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                current = line.hasPrefix("## bgx ") ? String(line.dropFirst("## bgx ".count)) : nil
                if let c = current { result[c] = "" }
            } else if let c = current {
                result[c]! += line + "\n"
            }
        }
        return result
    }

    func help(_ arguments: [String]) throws -> String {
        try CommandLineTests().bgx(arguments).stdout
    }

    @Test("every subcommand has a section, and every section a subcommand")
    func commandsMatch() throws {
        let doc = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/cli.md").path, encoding: .utf8)
        let top = try help(["--help"])
        guard let start = top.range(of: "SUBCOMMANDS:") else { Issue.record("no SUBCOMMANDS in help"); return }
        let commands = Set(top[start.upperBound...].split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            // A command's line is indented by two spaces; wrapped text by more.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let w = words.first else { return nil }
            return String(w)
        }.filter { $0 != "See" && $0 != "help" })
        #expect(!commands.isEmpty)
        #expect(commands == Set(Self.sections(doc).keys), "help lists \(commands.sorted())")
    }

    @Test("each command's options are the ones its help lists")
    func optionsMatch() throws {
        let doc = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/cli.md").path, encoding: .utf8)
        for (command, text) in Self.sections(doc) {
            let listed = Self.options(in: try help(["help", command]))
            #expect(!listed.isEmpty || command == "check", "no options found in bgx help \(command)")
            #expect(Self.options(in: text) == listed.subtracting(Self.rootOnly),
                    "docs/cli.md 'bgx \(command)' vs bgx help \(command)")
        }
    }

    @Test("the root command's options are documented")
    func rootOptionsDocumented() throws {
        let doc = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/cli.md").path, encoding: .utf8)
        let top = try help(["--help"])
        let options = top.range(of: "SUBCOMMANDS:").map { Self.options(in: top[..<$0.lowerBound]) } ?? Self.options(in: top)
        for option in options { #expect(doc.contains("`\(option)"), "docs/cli.md does not document bgx \(option)") }
    }

    @Test("an option the docs lack is caught")
    func driftIsCaught() {
        #expect(Self.options(in: "--trace <trace>  --json  -h, --help") == ["--trace", "--json"])
        #expect(Self.options(in: "- `--trace FILE` — …") != Self.options(in: "--trace <t> --report <r>"))
    }
}
