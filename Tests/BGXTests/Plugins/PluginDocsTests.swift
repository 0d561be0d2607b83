import BGXSimulation
import Foundation
import Testing

/// docs/plugins/: every scenario a page shows is its file, verbatim, and
/// every run a page shows is what bgx prints for it — each marked
/// `<!-- file: PATH -->` or `<!-- run: bgx ARGUMENTS -->` before its block,
/// paths relative to docs/plugins/. A shown line must be a line of the real
/// output (`…` stands for lines left out; a `$ ` line shows the command).
@Suite("docs/plugins: the pages' scenarios and runs are real")
struct PluginDocsTests {
    static let folder = repositoryRoot.appendingPathComponent("docs/plugins")
    static let pages = ["react-native-background-fetch.md", "flutter-background-fetch.md", "workmanager.md",
                        "expo-background-task.md"]

    struct Shown { var marker: String; var argument: String; var block: [String]; var line: Int }

    /// Each marker and the fenced block after it.
    static func shown(in text: String) -> [Shown] {
        let lines = text.components(separatedBy: "\n")
        var found: [Shown] = []
        var i = 0
        while i < lines.count {
            let line = lines[i].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("<!-- "), line.hasSuffix(" -->"), let colon = line.firstIndex(of: ":") {
                let marker = String(line[line.index(line.startIndex, offsetBy: 5)..<colon])
                let argument = String(line[line.index(after: colon)...].dropLast(4)).trimmingCharacters(in: .whitespaces)
                if marker == "file" || marker == "run" {
                    var j = i + 1
                    while j < lines.count, !lines[j].hasPrefix("```") { j += 1 }
                    var block: [String] = []
                    var k = j + 1
                    while k < lines.count, !lines[k].hasPrefix("```") { block.append(lines[k]); k += 1 }
                    found.append(Shown(marker: marker, argument: argument, block: block, line: i + 1))
                    i = k
                }
            }
            i += 1
        }
        return found
    }

    @Test("every page exists and shows at least one file and five runs", arguments: pages)
    func pageShowsRuns(page: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(page), encoding: .utf8)
        let shown = Self.shown(in: text)
        #expect(shown.filter { $0.marker == "file" }.count >= 1, "\(page) shows no scenario file")
        #expect(shown.filter { $0.marker == "run" }.count >= 5, "\(page) shows fewer than five runs")
    }

    @Test("a page's scenario blocks are its files, verbatim", arguments: pages)
    func filesVerbatim(page: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(page), encoding: .utf8)
        for s in Self.shown(in: text) where s.marker == "file" {
            let file = try String(contentsOf: Self.folder.appendingPathComponent(s.argument), encoding: .utf8)
            #expect(s.block.joined(separator: "\n") + "\n" == file, "\(page):\(s.line): the block differs from \(s.argument)")
        }
    }

    @Test("a page's runs print what the page shows", arguments: pages)
    func runsMatch(page: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(page), encoding: .utf8)
        for s in Self.shown(in: text) where s.marker == "run" {
            let words = Self.words(s.argument)
            #expect(words.first == "bgx", "\(page):\(s.line): a run starts with bgx")
            let out = try CommandLineTests().bgx(Array(words.dropFirst()), in: Self.folder)
            let real = Set((out.stdout + out.stderr).components(separatedBy: "\n").map { Self.trimmed($0) })
            for line in s.block.map(Self.trimmed) where !line.isEmpty && line != "…" && !line.hasPrefix("$ ") {
                #expect(real.contains(line), "\(page):\(s.line): '\(line)' is not a line bgx printed:\n\(out.stdout)\(out.stderr)")
            }
        }
    }

    @Test("the comparison fails on a line bgx did not print")
    func comparisonCanFail() {
        let shown = Self.shown(in: "<!-- run: bgx run x.yaml -->\n```text\nSummary\n…\n```\n")
        #expect(shown.count == 1 && shown[0].block == ["Summary", "…"] && shown[0].argument == "bgx run x.yaml")
    }

    static func trimmed(_ s: String) -> String {
        var t = Substring(s)
        while t.last == " " { t = t.dropLast() }
        return String(t)
    }

    /// Words of a command line; "double quotes" group words.
    static func words(_ line: String) -> [String] {
        var words: [String] = [], current = "", quoted = false
        for c in line {
            if c == "\"" { quoted.toggle(); continue }
            if c == " ", !quoted { if !current.isEmpty { words.append(current); current = "" }; continue }
            current.append(c)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
