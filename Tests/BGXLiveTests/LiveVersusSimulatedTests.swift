import BGXCore
import BGXSimulation
import Foundation
import Testing

/// One engine, two hosts: the same story played in virtual time and by a
/// real process under the daemon gives the same sequence of decisions, at
/// the same moments within the real clock's tolerance.
@Suite("live and simulated agree", .serialized)
struct LiveVersusSimulatedTests {
    /// The decisions worth comparing: what the system did to the app, not how the host carried it out.
    static let decisionKinds: Set<String> = ["launch", "state", "callback", "bgtask.begin", "bgtask.expire", "terminate"]

    static func decision(_ line: [String: Any]) -> String {
        let kind = line["kind"] as? String ?? ""
        let detail = ["to", "name", "reason", "cause"].compactMap { line[$0].map { "\($0)" } }.joined(separator: " ")
        return detail.isEmpty ? kind : "\(kind) \(detail)"
    }

    @Test("a background task over its budget: launch, home, expiry, kill — simulated and live")
    func overrunAgrees() throws {
        let scenario = try ScenarioParser(file: "overrun.yaml").parse("""
            duration: 2m
            apps:
              - bundle: com.example.upload
                on:
                  didEnterBackground:
                    - beginBackgroundTask: upload
            timeline:
              - {at: 10s, user: launch com.example.upload}
              - {at: 20s, user: home}
            """)
        let run = try ScenarioRun(scenario)
        run.run()
        let simulated = try run.device.traceLines.compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["app"] as? String == "com.example.upload" && Self.decisionKinds.contains($0["kind"] as? String ?? "") }

        let host = try LiveHost(timeScale: 10)
        try host.install("com.example.upload", behaviour: "overrun")
        try host.ctl("launch", "com.example.upload")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "state", "to": "notRunning"])
        let live = host.lines.filter {
            $0["app"] as? String == "com.example.upload" && Self.decisionKinds.contains($0["kind"] as? String ?? "")
        }

        #expect(live.map(Self.decision) == simulated.map(Self.decision))
        // Moments after going home: the expiry warning and the kill, within the clock's tolerance.
        func since(_ lines: [[String: Any]], _ kind: String) -> Double? {
            guard let home = lines.first(where: { $0["to"] as? String == "background" })?["t"] as? Double,
                  let t = lines.first(where: { $0["kind"] as? String == kind })?["t"] as? Double else { return nil }
            return t - home
        }
        for kind in ["bgtask.expire", "terminate"] {
            let s = try #require(since(simulated, kind)), l = try #require(since(live, kind))
            #expect(abs(l - s) < 2, "\(kind): simulated +\(s) s, live +\(l) s")
        }
    }
}
