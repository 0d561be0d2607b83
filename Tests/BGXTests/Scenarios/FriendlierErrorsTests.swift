import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The smaller mistakes a new user makes, each with words that say the fix.
@Suite("Friendlier errors: tabs, explain's typos, minutes written min")
struct FriendlierErrorsTests {
    @Test("a tab in the indentation: 'indent with spaces', at the tab")
    func tabIndentation() {
        let yaml = "apps:\n  - bundle: com.example.pods\n\ton:\n"
        #expect(throws: ScenarioError(SourceLocation(file: "tab.yaml", line: 3, column: 1),
                                      "a tab in the indentation; indent with spaces (YAML does not allow tabs there)")) {
            try ScenarioParser(file: "tab.yaml").parse(yaml)
        }
        // A tab inside a value is no indentation: the file still reads.
        #expect(throws: Never.self) { try ScenarioParser(file: "t.yaml").parse("apps:\n  - bundle: a  # a\tcomment\n") }
    }

    @Test("explain --task with a typo says did you mean, with or without --app")
    func explainTypo() throws {
        let path = repositoryRoot.appendingPathComponent("docs/examples/colorfeed.yaml").path
        let alone = try CommandLineTests().bgx(["explain", path, "--task", "com.example.colorfeed.refrsh"])
        #expect(alone.status == 2)
        #expect(alone.stderr == "error: no app permits 'com.example.colorfeed.refrsh'; did you mean 'com.example.colorfeed.refresh'?\n")
        let withApp = try CommandLineTests().bgx(["explain", path, "--app", "com.example.colorfeed",
                                                  "--task", "com.example.colorfeed.db_claening"])
        #expect(withApp.status == 2)
        #expect(withApp.stderr == "error: com.example.colorfeed does not permit 'com.example.colorfeed.db_claening'; "
                + "did you mean 'com.example.colorfeed.db_cleaning'?\n")
        let app = try CommandLineTests().bgx(["explain", path, "--app", "com.example.colorfed"])
        #expect(app.stderr == "error: no app 'com.example.colorfed'; did you mean 'com.example.colorfeed'?\n")
    }

    @Test("30min is 30 minutes, as docs/scenarios.md says")
    func minutesWrittenMin() throws {
        #expect(Units.duration("30min") == Time.seconds(1800))
        #expect(Units.duration("1h30min") == Time.seconds(5400))
        let docs = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/scenarios.md").path, encoding: .utf8)
        #expect(docs.contains("`15m` (also written `15min`)"))
    }
}
