import BGXCore
import BGXSimulation

/// `bgx run --json` (docs/cli.md): each app's summary, each expectation's
/// verdict, and whether they all passed.
struct RunJSON: Encodable {
    struct ExpectationVerdict: Encodable {
        let passed: Bool
        let line: Int
        let message: String
    }

    /// Each app's summary as BGXCore encodes it (SummaryJSON.swift).
    let apps: [AppSummary]
    let expectations: [ExpectationVerdict]
    let passed: Bool

    init(_ run: ScenarioRun, _ summaries: [AppSummary]) {
        apps = summaries
        expectations = run.results.map {
            ExpectationVerdict(passed: $0.passed, line: $0.expectation.location.line, message: $0.message)
        }
        passed = run.passed
    }
}
