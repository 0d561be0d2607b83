import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx run` tells what the system decided and why, as `bgx demo` does (the
/// same `DecisionStory`), for any scenario; `--quiet` leaves it out.
@Suite("bgx run tells the story of any scenario; --quiet prints only the summary")
struct RunStoryTests {
    static let path = repositoryRoot.appendingPathComponent("Scenarios/spec5-task-not-completed.yaml").path

    @Test("bgx run prints the run's DecisionStory before the summary")
    func storyIsTold() throws {
        let r = try CommandLineTests().bgx(["run", Self.path])
        #expect(r.status == 0)
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: Self.path))
        run.run()
        let story = DecisionStory(device: run.device).lines
        #expect(!story.isEmpty)
        let expected = "What the system decided, and why (every decision, with its reason, is in --trace):\n"
            + story.map { "  " + $0 + "\n" }.joined() + "\nSummary ("
        #expect(r.stdout.hasPrefix(expected), "\(r.stdout)")
        #expect(r.stdout.contains("taskNotCompleted"))
    }

    @Test("--quiet prints today's summary alone")
    func quiet() throws {
        let r = try CommandLineTests().bgx(["run", Self.path, "--quiet"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("Summary ("), "\(r.stdout)")
        #expect(!r.stdout.contains("What the system decided"))
    }

    @Test("with --trace -, the story goes to standard error with the summary")
    func storyBesideTrace() throws {
        let r = try CommandLineTests().bgx(["run", Self.path, "--trace", "-"])
        #expect(r.status == 0)
        #expect(r.stderr.hasPrefix("What the system decided"))
        #expect(!r.stdout.contains("What the system decided"))
    }
}
