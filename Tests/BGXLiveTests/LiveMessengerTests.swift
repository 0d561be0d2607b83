import BGXLive
import Foundation
import Testing

/// Examples/Messenger's app code, unchanged, as a real process under the
/// daemon (Examples/MessengerLive): it uses GCD as iOS code does — a silent
/// push fetched on a global queue after a second and answered on the main
/// queue, a refresh synced on its own serial queue for two seconds and
/// completed from that queue's thread. Each works in real time, and the
/// process is frozen whenever it has nothing left to do.
@Suite("Examples/Messenger live", .serialized)
struct LiveMessengerTests {
    static let refresh = "com.example.messenger.sync"

    @Test("a silent push completes with newData a second later, through a global queue and the main queue; the refresh completes two seconds after it starts, from its serial queue; frozen between")
    func messengerRunsLive() throws {
        let host = try LiveHost()
        try host.install("com.example.messenger", modes: ["fetch", "remote-notification"], permitted: [Self.refresh],
                         executable: "messenger-live")
        try host.ctl("launch", "com.example.messenger")
        try host.wait(for: ["kind": "task.register", "identifier": Self.refresh])
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "task.submit", "identifier": Self.refresh])
        let frozen = try host.wait(for: ["kind": "process.freeze"])

        try host.ctl("push", "com.example.messenger", "background")
        let thawed = try host.wait(for: ["kind": "process.thaw"], after: host.index(of: frozen))
        let pushed = try host.wait(for: ["kind": "push.complete"], after: host.index(of: thawed))
        #expect(pushed["result"] as? String == "newData", "\(pushed)")
        let fetched = try #require(pushed["t"] as? Double) - #require(thawed["t"] as? Double)
        #expect(fetched >= 1, "the push completed after \(fetched) s, before the server's second")
        let asleep = try host.wait(for: ["kind": "process.freeze"], after: host.index(of: pushed))

        try host.ctl("simulate-launch", "com.example.messenger", Self.refresh)
        let start = try host.wait(for: ["kind": "task.start", "identifier": Self.refresh], after: host.index(of: asleep))
        let complete = try host.wait(for: ["kind": "task.complete", "identifier": Self.refresh], after: host.index(of: start))
        #expect(complete["success"] as? Int == 1, "\(complete)")
        let synced = try #require(complete["t"] as? Double) - #require(start["t"] as? Double)
        #expect(synced >= 2, "the refresh completed after \(synced) s, before its 2 s sync")
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: complete))
        #expect(!host.lines.contains { ["terminate", "process.kill"].contains($0["kind"] as? String) })
    }
}
