import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The briefing's files are not in the repository; a reader can follow
/// only what is. These are the words that point at them.
let outsidePointers = ["SPEC §", "SPEC.md", "DESIGN.md", "USER-CASES", "FINDINGS.md", "../shared", "/work/", "seeds/"]

func outsidePointers(in text: String) -> [String] {
    outsidePointers.filter { text.contains($0) }
}

/// README.md, docs/*.md, the scenario files and the report: what a user reads.
let userFacingDocs: [String] = {
    let docs = repositoryRoot.appendingPathComponent("docs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
    return [repositoryRoot.appendingPathComponent("README.md").path]
        + names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0).path }
}()

@Suite("The docs point only inside the repository")
struct DocsTests {
    @Test("README.md and docs/*.md cite no file outside the repository", arguments: userFacingDocs)
    func noOutsidePointers(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(outsidePointers(in: text).isEmpty, "\(path) points outside: \(outsidePointers(in: text))")
    }

    @Test("the check finds a pointer outside (so it can fail)")
    func checkCanFail() {
        #expect(outsidePointers(in: "see SPEC §5 and DESIGN.md") == ["SPEC §", "DESIGN.md"])
    }

    @Test("the docs index lists every page under docs/")
    func indexListsEveryPage() throws {
        let index = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/README.md").path,
                               encoding: .utf8)
        for page in userFacingDocs where page.contains("/docs/") && !page.hasSuffix("/docs/README.md") {
            let name = URL(fileURLWithPath: page).lastPathComponent
            #expect(index.contains("(\(name))"), "docs/README.md does not link \(name)")
        }
    }

    @Test("every relative link in README.md and docs/*.md names a file that exists", arguments: userFacingDocs)
    func linksResolve(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var rest = Substring(text)
        while let open = rest.range(of: "](") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            // A link to an anchor of the same page (`(#the-soak)`) names no file.
            let target = String(rest[..<close]).split(separator: "#", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            rest = rest[close...]
            if target.isEmpty || target.contains("://") { continue }
            let file = folder.appendingPathComponent(target).path
            #expect(FileManager.default.fileExists(atPath: file), "\(path) links \(target), which does not exist")
        }
    }

    @Test("the demo's timeline report points only inside the repository")
    func reportHasNoOutsidePointers() throws {
        let scenario = try ScenarioParser(file: Demo.file).parse(Demo.scenario)
        let run = try ScenarioRun(scenario)
        run.run()
        let html = TimelineReport(run: run, seed: nil).html
        #expect(outsidePointers(in: html).isEmpty, "the report points outside: \(outsidePointers(in: html))")
    }

    @Test("the demo's scenario (bgx demo --print-scenario) points only inside the repository")
    func demoScenarioHasNoOutsidePointers() {
        #expect(outsidePointers(in: Demo.scenario).isEmpty)
    }

    @Test("every 'rules §N' a scenario file cites is a section of docs/rules.md", arguments: scenarioFiles)
    func citedRulesExist(path: String) throws {
        let rules = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/rules.md").path, encoding: .utf8)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var rest = Substring(text)
        while let r = rest.range(of: "rules §") {
            let number = rest[r.upperBound...].prefix { $0.isNumber }
            #expect(!number.isEmpty && rules.contains("\n## \(number). "), "\(path) cites rules §\(number)")
            rest = rest[r.upperBound...]
        }
    }

    @Test("the scenario files' comments point only inside the repository", arguments: scenarioFiles)
    func scenarioCommentsHaveNoOutsidePointers(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(outsidePointers(in: text).isEmpty, "\(path) points outside: \(outsidePointers(in: text))")
    }
}

/// The worked example of docs/scenarios.md, run as a user would run it:
/// the file in docs/examples, and the copy shown on the page, are the same
/// text, and every expectation in it holds.
@Suite("The docs' worked example runs")
struct DocsExampleTests {
    static let examplePath = repositoryRoot.appendingPathComponent("docs/examples/colorfeed.yaml").path

    @Test("docs/examples/colorfeed.yaml is the example shown in docs/scenarios.md, verbatim")
    func exampleIsShownVerbatim() throws {
        let page = try String(contentsOfFile: ScenarioReference.path, encoding: .utf8)
        let file = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        #expect(page.contains("```yaml\n" + file + "```"))
    }

    @Test("the ColorFeed example refreshes before use and cleans on the charger, with no refusal or kill (rules §5, §6)")
    func exampleRuns() throws {
        let scenario = try ScenarioParser.parse(contentsOf: Self.examplePath)
        let run = try ScenarioRun(scenario)
        run.run()
        #expect(!run.results.isEmpty)
        for r in run.results { #expect(r.passed, "\(r.expectation.text): \(r.message)") }
    }
}
