import BGXLive
import Foundation
import Testing

/// The system's service callbacks reach a BGXApp app running as a real
/// process (Tests/LiveKitApp): Core Location's region monitoring (with the
/// relaunch iOS gives an app that is no longer running), an external
/// accessory's data, and `ProcessInfo.performExpiringActivity`'s two calls.
@Suite("service callbacks live", .serialized)
struct LiveServiceCallbackTests {
    func answers(_ dir: String) -> String { (try? String(contentsOfFile: dir + "/answers", encoding: .utf8)) ?? "" }

    @Test("region monitoring: an app that exited is relaunched (cause region) for didExitRegion when the device moves 500 m; its suspended process is thawed for didEnterRegion on the way back")
    func regionRelaunch() throws {
        let host = try LiveHost(timeScale: 10)
        let dir = try host.install("com.example.region", behaviour: "region", executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.region")
        try host.wait(for: ["kind": "location.start", "service": "region"])
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let exited = try host.wait(for: ["kind": "terminate", "reason": "exit"])

        try host.ctl("move", "500")
        let left = try host.wait(for: ["kind": "location.deliver", "event": "exit", "region": "home"], after: host.index(of: exited))
        let relaunch = try host.wait(for: ["kind": "launch", "cause": "region"], after: host.index(of: left))
        let asleep = try host.wait(for: ["kind": "process.freeze"], after: host.index(of: relaunch))
        #expect(answers(dir).contains("launched region\nexit home on main"), "\(answers(dir))")

        try host.ctl("move", "-500")
        try host.wait(for: ["kind": "location.deliver", "event": "enter", "region": "home"], after: host.index(of: asleep))
        let thawed = try host.wait(for: ["kind": "process.thaw"], after: host.index(of: asleep))
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: thawed))
        #expect(answers(dir).contains("exit home on main\nenter home on main"), "\(answers(dir))")
    }

    @Test("an external accessory's data thaws the suspended app that holds its session (external-accessory mode), and its delegate hears it")
    func accessoryData() throws {
        let host = try LiveHost(timeScale: 10)
        let dir = try host.install("com.example.sensor", behaviour: "accessory", modes: ["external-accessory"],
                                   executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.sensor")
        try host.wait(for: ["kind": "accessory.connect"])
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let frozen = try host.wait(for: ["kind": "process.freeze"])
        #expect(!answers(dir).contains("accessory data"))
        try host.ctl("accessory", "com.example.sensor")
        try host.wait(for: ["kind": "accessory.deliver"], after: host.index(of: frozen))
        let thawed = try host.wait(for: ["kind": "process.thaw"], after: host.index(of: frozen))
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: thawed))
        #expect(answers(dir).contains("accessory data on main"), "\(answers(dir))")
    }

    @Test("a Bluetooth peripheral's value update thaws the suspended central app (bluetooth-central mode), and its delegate hears it")
    func bluetoothData() throws {
        let host = try LiveHost(timeScale: 10)
        let dir = try host.install("com.example.heartrate", behaviour: "bluetooth", modes: ["bluetooth-central"],
                                   executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.heartrate")
        try host.wait(for: ["kind": "accessory.connect", "transport": "bluetooth"])
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let frozen = try host.wait(for: ["kind": "process.freeze"])
        try host.ctl("accessory", "com.example.heartrate", "bluetooth")
        try host.wait(for: ["kind": "accessory.deliver", "transport": "bluetooth"], after: host.index(of: frozen))
        let thawed = try host.wait(for: ["kind": "process.thaw"], after: host.index(of: frozen))
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: thawed))
        #expect(answers(dir).contains("bluetooth heart-rate on main"), "\(answers(dir))")
    }

    @Test("performExpiringActivity live: a block that returns ends its activity; a block that outlasts the background time is called again, expired, on another thread, and the app is suspended, not killed")
    func expiringActivities() throws {
        // Time ×5: the expired call has a real second to return before the budget's end, even on a busy machine.
        let host = try LiveHost(timeScale: 5)
        let dir = try host.install("com.example.activity", behaviour: "activity", executable: "bgx-live-kitapp")
        try host.ctl("launch", "com.example.activity")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let flush = try host.wait(for: ["kind": "activity.begin", "name": "flush"])
        try host.wait(for: ["kind": "activity.end", "id": "\(flush["id"] ?? "")", "reason": "the block returned"])
        let long = try host.wait(for: ["kind": "activity.begin", "name": "long"])
        try host.wait(for: ["kind": "activity.expire", "id": "\(long["id"] ?? "")"], after: host.index(of: long))
        let end = try host.wait(for: ["kind": "activity.end", "id": "\(long["id"] ?? "")"], after: host.index(of: long))
        try host.wait(for: ["kind": "process.freeze"], after: host.index(of: end))
        let text = answers(dir)
        #expect(text.contains("flush false on another thread"), "\(text)")
        #expect(text.contains("long false on another thread"), "\(text)")
        #expect(text.contains("long true on main"), "\(text)")
        #expect(!host.lines.contains { ["process.kill", "terminate"].contains($0["kind"] as? String) })
    }
}
