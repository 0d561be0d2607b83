@testable import BGXCore
import Foundation
import Testing

/// rules §11's launch controller on its own: the policy's verdict, and the
/// verdicts acted on kept so that an app's recent launches can be explained.
@Suite struct LaunchControllerTests {
    let news = AppID(index: 0)
    let mail = AppID(index: 1)
    let policy = LaunchPolicy(relaunchLocationAfterForceQuit: true)

    func record(_ app: AppID, at t: Nanoseconds, _ cause: LaunchCause = .fetch,
                refused refusal: LaunchRefusal? = nil) -> LaunchRecord {
        LaunchRecord(time: t, app: app, cause: cause, outcome: refusal == nil ? .launched : .refused, refusal: refusal)
    }

    @Test("rules §11: the controller's verdict is the policy's — a force-quit app is not launched for a fetch")
    func verdictIsThePolicys() {
        let c = LaunchController(policy: policy)
        let facts = LaunchPolicy.AppFacts(modes: [.fetch], forceQuit: true)
        #expect(c.verdict(for: .fetch, app: facts, device: DeviceState()).refusal == .forceQuit)
        #expect(c.verdict(for: .location, app: facts, device: DeviceState()).allowed)
    }

    @Test("An app's recent verdicts are its own, oldest first, at most the limit asked")
    func recentOfOneApp() {
        var c = LaunchController(policy: policy)
        c.note(record(news, at: 1))
        c.note(record(mail, at: 2))
        c.note(record(news, at: 3, refused: .backgroundAppRefreshOff))
        c.note(record(news, at: 4))
        #expect(c.recent(of: news, limit: 8).map(\.time) == [1, 3, 4])
        #expect(c.recent(of: news, limit: 2).map(\.time) == [3, 4])
        #expect(c.recent(of: mail, limit: 8).map(\.time) == [2])
    }

    @Test("Past its capacity the ring forgets the oldest verdicts, and an app's recent ones stay in order")
    func ringForgetsTheOldest() {
        var c = LaunchController(policy: policy)
        let n = LaunchController.capacity + 3
        for k in 0..<n { c.note(record(news, at: Nanoseconds(k))) }
        #expect(c.ring.count == LaunchController.capacity)
        let recent = c.recent(of: news, limit: LaunchController.capacity)
        #expect(recent.first?.time == 3)
        #expect(recent.last?.time == Nanoseconds(n - 1))
        #expect(recent.map(\.time) == recent.map(\.time).sorted())
    }

    @Test("The dump says why each recent launch was allowed or refused, in the policy's words")
    func dumpGivesTheReasons() throws {
        let dump = LaunchControllerDump(recent: [
            .init(record(news, at: 0, .user)),
            .init(LaunchRecord(time: 60, app: news, cause: .silentPush, outcome: .woken, refusal: nil)),
            .init(record(news, at: 120, .bgTask, refused: .backgroundAppRefreshOffForApp)),
        ])
        let lines = dump.lines { "\($0)s" }
        #expect(lines == [
            "0s launched for user: a launch by the user is never refused",
            "60s woken for silentPush: allowed: multitasking, the background mode, the first unlock, force-quit "
                + "and Background App Refresh all allow it",
            "120s refused for bgTask: Background App Refresh is off for this app in Settings",
        ])
        #expect(dump.explainSection(app: "com.example.news", at: "now") { "\($0)s" }?.heading == "launches of com.example.news at now")
        let json = String(decoding: try JSONEncoder().encode(dump), as: UTF8.self)
        #expect(json.contains("\"outcome\":\"refused\""))
    }
}
