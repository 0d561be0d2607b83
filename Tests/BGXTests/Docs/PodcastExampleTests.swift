import BGXCore
import BGXSimulation
import Foundation
import Testing

/// docs/examples/podcasts.yaml, the worked example of docs/scenarios.md: it
/// runs, its expectations hold, and bgx check finds nothing in it.
@Suite("docs/examples/podcasts.yaml: the podcast app's week")
struct PodcastExampleTests {
    static let path = repositoryRoot.appendingPathComponent("docs/examples/podcasts.yaml").path

    @Test("its expectations hold, and the week is written with recurring entries")
    func runs() throws {
        let scenario = try ScenarioParser.parse(contentsOf: Self.path)
        let run = try ScenarioRun(scenario)
        run.run()
        #expect(run.results.count >= 5)
        for r in run.results { #expect(r.passed, "\(r.message)") }
        #expect(try String(contentsOfFile: Self.path, encoding: .utf8).contains("every: sun"))
    }

    @Test("bgx check finds nothing in it")
    func checksClean() throws {
        let r = try CommandLineTests().bgx(["check", Self.path])
        #expect(r.status == 0)
        #expect(r.stdout == "\(Self.path): no problems found\n")
    }

    @Test("docs/scenarios.md walks through it")
    func documented() throws {
        let page = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/scenarios.md").path, encoding: .utf8)
        #expect(page.contains("## Worked example: a podcast app"))
        #expect(page.contains("[examples/podcasts.yaml](examples/podcasts.yaml)"))
    }
}
