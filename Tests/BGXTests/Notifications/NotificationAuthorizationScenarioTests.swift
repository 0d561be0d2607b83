import BGXCore
import BGXSimulation
import Foundation
import Testing

/// rules §9 in the scenario language: the person's answer to an app's
/// notification authorization request (`notifications:`), the request
/// (`requestAuthorization`), and changing their mind (`allowNotifications`,
/// `denyNotifications`).
@Suite("rules §9 — notification authorization in scenarios")
struct NotificationAuthorizationScenarioTests {
    static let denied = "the person has not allowed this app's notifications (authorization denied)"

    func run(_ yaml: String) throws -> ScenarioRun {
        let run = try ScenarioRun(try ScenarioParser(file: "auth.yaml").parse(yaml))
        run.run()
        return run
    }

    func lines(_ run: ScenarioRun, _ kind: String) -> [String] {
        run.device.traceLines.filter { $0.contains("\"kind\": \"\(kind)\"") }
    }

    /// The app asks as it launches and posts a notification each time it leaves.
    func app(_ notifications: String, request: String = "requestAuthorization") -> String {
        """
        apps:
          - bundle: com.example.news
        \(notifications.isEmpty ? "" : "    notifications: \(notifications)\n")    on:
              didFinishLaunching: [\(request)]
              didEnterBackground: [{notify: {id: digest, after: 1h, body: Your digest, sound: default, badge: 1}}]
        timeline:
          - {at: "08:00", user: launch com.example.news}
          - {at: "08:05", user: home}

        """
    }

    @Test("docs/scenarios.md's example: the person answers 'Don't Allow', and the digest is dropped with why")
    func docsExample() throws {
        let text = try String(contentsOfFile: repositoryRoot.appendingPathComponent("docs/scenarios.md").path, encoding: .utf8)
        let start = try #require(text.range(of: "```yaml\napps:\n  - bundle: com.example.news\n    notifications:"))
        let body = text[start.lowerBound...].dropFirst("```yaml\n".count)
        let yaml = String(body[..<(try #require(body.range(of: "```"))).lowerBound])
        let run = try run(yaml)
        #expect(run.passed, "\(run.results.map(\.message))")
        #expect(lines(run, "notification.drop").count == 1)
        #expect(lines(run, "notification.deliver").isEmpty)
        #expect(lines(run, "log").contains { $0.contains("the person did not allow notifications when the app asked (alert, sound)") })
    }

    @Test("answer: deny — the first request is refused, each notification is dropped with the reason, nothing is shown")
    func answerDeny() throws {
        let run = try run(app("{answer: deny}"))
        let drops = lines(run, "notification.drop")
        #expect(drops.count == 1 && drops[0].contains(Self.denied), "\(drops)")
        #expect(lines(run, "notification.deliver").isEmpty)
        // Without it the person allows: delivered, alert, sound and badge.
        let allowed = try self.run(app(""))
        #expect(lines(allowed, "notification.drop").isEmpty)
        #expect(lines(allowed, "notification.deliver").count == 1)
    }

    @Test("authorization: denied — the app asked in an earlier run: dropped even though it never asks in this one; the trace says what was preset")
    func presetDenied() throws {
        let run = try run(app("{authorization: denied}", request: ""))
        #expect(lines(run, "notification.drop").first?.contains(Self.denied) == true)
        #expect(lines(run, "log").first?.contains("the app asked before the run began and the person did not allow them") == true)
    }

    @Test("authorization: authorized with allowed: [alert] — shown without sound or badge, the delivery saying why")
    func presetAuthorizedAlertOnly() throws {
        let run = try run(app("{authorization: authorized, allowed: [alert]}"))
        let delivered = lines(run, "notification.deliver")
        #expect(delivered.count == 1)
        #expect(delivered.first?.contains("not authorized for sound, badge") == true, "\(delivered)")
        #expect(delivered.first?.contains("\"sound\"") == false, "\(delivered)")
    }

    @Test("denyNotifications and allowNotifications: the Settings switch once the app has asked — off drops, on shows again")
    func personChangesTheirMind() throws {
        let yaml = app("") + """
          - {at: "09:30", user: denyNotifications com.example.news}
          - {at: "10:00", user: launch com.example.news}
          - {at: "10:05", user: home}
          - {at: "12:00", user: allowNotifications com.example.news}
          - {at: "12:30", user: launch com.example.news}
          - {at: "12:35", user: home}

        """
        let run = try run(yaml)
        #expect(lines(run, "notification.deliver").count == 2)   // 09:05 and 13:35
        #expect(lines(run, "notification.drop").count == 1)      // 11:05
        #expect(lines(run, "user").contains { $0.contains("\"action\": \"denyNotifications\"") })
        #expect(lines(run, "log").contains { $0.contains("turned this app's notifications off in Settings") })
    }

    @Test("Bad input is located, with the nearest word where there is one")
    func errors() {
        let errors = ScenarioErrorTests()
        func error(_ notifications: String) -> ScenarioError? { errors.error(app(notifications)) }
        let e = error("{authorization: deniedd}")
        #expect(e?.message == "unknown authorization 'deniedd'; did you mean 'denied'?")
        #expect(e?.location == SourceLocation(file: "bad.yaml", line: 3, column: 36))
        #expect(error("{authorisation: denied}")?.message.contains("did you mean 'authorization'?") == true)
        #expect(error("{answer: no}")?.message.hasPrefix("unknown answer 'no'") == true)
        #expect(error("{authorization: denied, answer: allow}")?.message
                == "'answer' is what the person says when the app first asks; with 'authorization: denied' it has asked already")
        #expect(error("{allowed: [alert]}")?.message.hasSuffix("it needs 'authorization: authorized'") == true)
        #expect(error("{authorization: authorized, allowed: [alret]}")?.message
                == "unknown notification option 'alret'; did you mean 'alert'?")
        #expect(errors.error(app("", request: "requestAuthorization: [sond]"))?.message
                == "unknown notification option 'sond'; did you mean 'sound'?")
        let user = errors.error(app("") + "  - {at: \"09:00\", user: denyNotifications com.example.newz}\n")
        #expect(user?.message == "unknown app 'com.example.newz'; did you mean 'com.example.news'?")
        #expect(user?.location.line == 9)
        #expect(errors.error(app("") + "  - {at: \"09:00\", user: denyNotification com.example.news}\n")?.message
                .contains("did you mean 'denyNotifications'?") == true)
    }
}
