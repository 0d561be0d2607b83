import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx check` over the project's own scenarios: every finding is one the
/// file means to show, acknowledged with a `# check: expects warning "…"`
/// (or `error`) comment that says why; an unacknowledged finding is a false
/// warning or a new mistake, and an acknowledgement nothing matches is stale.
enum CheckAcknowledgements {
    /// The `# check: expects KIND "TEXT"` lines of a scenario file.
    static func parse(_ text: String) -> [(severity: String, text: String)] {
        text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("# check: expects ") else { return nil }
            let rest = line.dropFirst("# check: expects ".count)
            let severity = rest.prefix { $0 != " " }
            guard let open = rest.firstIndex(of: "\""),
                  let close = rest[rest.index(after: open)...].firstIndex(of: "\"") else { return nil }
            return (String(severity), String(rest[rest.index(after: open)..<close]))
        }
    }

    /// Findings (`warning: …` / `error: …` lines of `bgx check`) no
    /// acknowledgement covers, and acknowledgements that cover none.
    static func mismatches(findings: [String], acknowledged: [(severity: String, text: String)])
        -> (unacknowledged: [String], stale: [String]) {
        let unacknowledged = findings.filter { finding in
            !acknowledged.contains { finding.hasPrefix($0.severity + ": ") && finding.contains($0.text) }
        }
        let stale = acknowledged.filter { ack in
            !findings.contains { $0.hasPrefix(ack.severity + ": ") && $0.contains(ack.text) }
        }.map { "\($0.severity) \"\($0.text)\"" }
        return (unacknowledged, stale)
    }
}

@Suite("bgx check on Scenarios/: every finding is intended and says why")
struct ScenarioCheckTests {
    @Test("each finding of bgx check is acknowledged in the file, and each acknowledgement matches one",
          arguments: scenarioFiles + [DocsExampleTests.examplePath])
    func findingsAreAcknowledged(path: String) throws {
        let output = try CommandLineTests().bgx(["check", path])
        let findings = output.stdout.split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("warning: ") || $0.hasPrefix("error: ") }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let (unacknowledged, stale) = CheckAcknowledgements.mismatches(
            findings: findings, acknowledged: CheckAcknowledgements.parse(text))
        #expect(output.stderr.isEmpty, "\(output.stderr)")
        #expect(unacknowledged.isEmpty, "not acknowledged in \(path): \(unacknowledged)")
        #expect(stale.isEmpty, "acknowledged in \(path) but bgx check does not say it: \(stale)")
    }

    @Test("an unacknowledged finding and a stale acknowledgement are both caught")
    func mismatchesAreCaught() {
        let r = CheckAcknowledgements.mismatches(
            findings: ["warning: a: declares 'fetch' but nothing uses it", "error: b: needs 'audio'"],
            acknowledged: CheckAcknowledgements.parse("# check: expects error \"needs 'audio'\" — why\n"
                                                      + "# check: expects warning \"lasts 40s\"\n"))
        #expect(r.unacknowledged == ["warning: a: declares 'fetch' but nothing uses it"])
        #expect(r.stale == ["warning \"lasts 40s\""])
    }

    @Test("a voip app the system relaunches at boot uses its mode (rules §4, §11)")
    func voipRelaunchedAtBootIsAUse() throws {
        let s = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - {bundle: com.example.phone, backgroundModes: [voip]}
        """)
        let findings = ManifestCheck.check(s.apps[0].manifest, usage: InfoPlist.usage(of: s.apps[0]), profile: .modern)
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test("a task registered but never submitted leaves its mode unknown, not unused (rules §5)")
    func registeredTaskKeepsSchedulerModes() throws {
        let s = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - bundle: com.example.late
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.late.refresh]
            on:
              didBecomeActive:
                - register: com.example.late.refresh
        """)
        let findings = ManifestCheck.check(s.apps[0].manifest, usage: InfoPlist.usage(of: s.apps[0]))
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test("a declared mode nothing uses is still reported")
    func unusedModeIsStillReported() throws {
        let s = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - {bundle: com.example.feed, backgroundModes: [fetch, audio]}
        """)
        let messages = ManifestCheck.check(s.apps[0].manifest, usage: InfoPlist.usage(of: s.apps[0])).map(\.message)
        #expect(messages.contains { $0.contains("declares 'fetch' but nothing in the app uses it") })
        #expect(messages.contains { $0.contains("declares 'audio' but nothing in the app uses it") })
    }
}
