import BGXCore
import BGXSimulation
import Foundation
import Testing

/// rules §13 (newer iOS): the background modes `push-to-talk` and
/// `nearby-interaction`, and `BGHealthResearchTaskRequest`, are recognised
/// and refused with `not yet supported: …` and what bgx would need — never
/// called "unknown", never pretended. Apple's list of modes:
/// https://developer.apple.com/documentation/bundleresources/information-property-list/uibackgroundmodes
/// and the request: https://developer.apple.com/documentation/backgroundtasks/bghealthresearchtaskrequest
@Suite("rules §13 — newer modes and requests, refused by name")
struct NewerModesTests {
    func error(_ yaml: String) -> ScenarioError? { ScenarioErrorTests().error(yaml) }

    @Test("rules §13 [D]: a scenario declaring push-to-talk or nearby-interaction is refused as not yet supported, at the mode")
    func scenarioModesRefused() {
        let ptt = error("apps:\n  - bundle: a\n    backgroundModes: [audio, push-to-talk]\n")
        #expect(ptt?.location == SourceLocation(file: "bad.yaml", line: 3, column: 30))
        #expect(ptt?.message.hasPrefix("not yet supported: the 'push-to-talk' background mode (iOS 16 PushToTalk") == true)
        #expect(ptt?.message.contains("bgx would need") == true)
        let ni = error("apps:\n  - bundle: a\n    backgroundModes: [nearby-interaction]\n")
        #expect(ni?.message.hasPrefix("not yet supported: the 'nearby-interaction' background mode (iOS 16 Nearby Interaction") == true)
        #expect(error("apps:\n  - bundle: a\n    backgroundModes: [pushtotalk]\n")?.message.hasPrefix("unknown background mode") == true)
    }

    @Test("rules §13 [D]: submit type healthResearch (BGHealthResearchTaskRequest) is refused as not yet supported, saying what it needs")
    func healthResearchRefused() {
        let e = error("apps:\n  - bundle: a\n    on:\n      didEnterBackground:\n        - submit: {identifier: a.study, type: healthResearch}\n")
        #expect(e?.location.line == 5)
        #expect(e?.message.hasPrefix("not yet supported: BGHealthResearchTaskRequest (iOS 17") == true)
        #expect(e?.message.contains("protectionTypeOfRequiredData") == true)
    }

    @Test("rules §13 [D]: bgx check reads an Info.plist with the newer modes, notes each as not yet supported at its line, and checks the rest")
    func infoPlistNotes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-newer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("Info.plist").path
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
          <key>CFBundleIdentifier</key>
          <string>com.example.walkie</string>
          <key>UIBackgroundModes</key>
          <array>
            <string>audio</string>
            <string>push-to-talk</string>
            <string>nearby-interaction</string>
          </array>
        </dict>
        </plist>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        var notes: [ScenarioError] = []
        let manifest = try InfoPlist.read(path, notYetSupported: &notes)
        #expect(manifest.backgroundModes == [.audio])
        #expect(notes.map(\.location.line) == [9, 10])
        #expect(notes.allSatisfy { $0.message.hasPrefix("not yet supported: the '") })
        #expect(throws: ScenarioError.self) { try InfoPlist.read(path) }

        let r = try CommandLineTests().bgx(["check", path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("note: \(path):9:5: not yet supported: the 'push-to-talk' background mode"))
        #expect(r.stdout.contains("note: \(path):10:5: not yet supported: the 'nearby-interaction' background mode"))
        #expect(!r.stdout.contains("unknown"))
    }
}
