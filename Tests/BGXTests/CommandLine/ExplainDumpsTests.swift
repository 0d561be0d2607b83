import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx explain --app` is assembled from the controllers' dumps
/// (`Engine.controllerDumps(of:)`): whatever a controller says of the app
/// reaches the command's output, in words and, with `--json`, as data.
@Suite struct ExplainDumpsTests {
    let cli = CommandLineTests()

    /// The photos app of `ExplainTests.power`, also sent background pushes it may not get.
    static let scenario = ExplainTests.power.replacingOccurrences(
        of: "backgroundModes: [processing]", with: "backgroundModes: [processing, remote-notification]")

    func explained(at moment: String) throws -> ExplainedMoment {
        let scenario = try ScenarioParser(file: "explain.yaml").parse(Self.scenario)
        let run = try ScenarioRun(scenario)
        let at = try #require(Units.moment(moment, startOffset: run.startOffset, start: scenario.start))
        return run.explain(app: try #require(run.device.app("com.example.photos")), identifiers: nil, at: at)
    }

    @Test("Every controller's dump reaches `bgx explain --app` as its section: the launch policy's recent launches among them")
    func dumpsReachTheCommand() throws {
        let moment = try explained(at: "21:00")
        #expect(moment.dumps.map(\.concern) == ["push", "scheduler", "launch policy"])
        let launches = try #require(moment.sections.first { $0.heading.hasPrefix("launches of com.example.photos") })
        #expect(launches.lines.first == "0d 09:00:00 launched for user: a launch by the user is never refused")
        let path = try cli.temporaryFile(Self.scenario)
        let r = try cli.bgx(["explain", path, "--app", "com.example.photos", "--at", "21:00"])
        #expect(r.status == 0)
        for section in moment.sections { #expect(r.stdout.contains(section.text)) }
    }

    @Test("`bgx explain --app --json` carries each controller's dump as data, with its lines")
    func jsonCarriesTheDumps() throws {
        let path = try cli.temporaryFile(Self.scenario)
        let r = try cli.bgx(["explain", path, "--app", "com.example.photos", "--at", "21:00", "--json"])
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["app"] as? String == "com.example.photos")
        #expect((json["tasks"] as? [[String: Any]])?.first?["identifier"] as? String == "com.example.photos.index")
        let controllers = try #require(json["controllers"] as? [[String: Any]])
        #expect(controllers.map { $0["concern"] as? String } == ["push", "scheduler", "launch policy"])
        let launch = try #require(controllers.last)
        let recent = try #require((launch["state"] as? [String: Any])?["recent"] as? [[String: Any]])
        #expect(recent.first?["cause"] as? String == "user")
        #expect((launch["lines"] as? [String])?.first?.hasSuffix("launched for user: a launch by the user is never refused") == true)
        let scheduler = try #require(controllers[1]["state"] as? [String: Any])
        #expect(scheduler["pending"] as? [String] == ["com.example.photos.index"])
    }
}
