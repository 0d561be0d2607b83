import BGXCore
import BGXSimulation
import Foundation
import Testing

@Suite("Scenario units")
struct UnitsTests {
    @Test("durations: 500ms 30s 15m 2h 7d 1h30m")
    func durations() {
        #expect(Units.duration("500ms") == Time.seconds(0.5))
        #expect(Units.duration("30s") == Time.seconds(30))
        #expect(Units.duration("15m") == Time.minutes(15))
        #expect(Units.duration("2h") == Time.hours(2))
        #expect(Units.duration("7d") == Time.days(7))
        #expect(Units.duration("1h30m") == Time.minutes(90))
        #expect(Units.duration("5 parsecs") == nil)
        #expect(Units.duration("") == nil)
        #expect(Units.duration("h") == nil)
    }

    @Test("sizes and rates are binary units")
    func sizes() {
        #expect(Units.size("150MB") == Int64(150 * 1024 * 1024))
        #expect(Units.size("2GB") == Int64(2 * 1024 * 1024 * 1024))
        #expect(Units.bandwidth("2MB/s") == Int64(2 * 1024 * 1024))
        #expect(Units.size("2XB") == nil)
        #expect(Units.bandwidth("2MB") == nil)
    }

    @Test("moments: HH:MM on day 0, Nd HH:MM, or a duration from the start")
    func moments() {
        #expect(Units.moment("22:30", startOffset: 0) == Time.minutes(22 * 60 + 30))
        #expect(Units.moment("1d 07:00", startOffset: 0) == Time.days(1) + Time.hours(7))
        #expect(Units.moment("90s", startOffset: 0) == Time.seconds(90))
        #expect(Units.moment("08:00", startOffset: Time.hours(6)) == Time.hours(2))
        #expect(Units.moment("24:00", startOffset: 0) == nil)
    }

    @Test("time is formatted exactly")
    func formatting() {
        #expect(Time.format(Time.seconds(312.5)) == "312.5")
        #expect(Time.format(0) == "0")
        #expect(Time.format(1_000_000_001) == "1.000000001")
        #expect(Time.describe(Time.seconds(30)) == "30s")
        #expect(Time.describe(Time.minutes(90)) == "1h30m")
        #expect(Time.describe(Time.seconds(0.5)) == "500ms")
    }
}

@Suite("rules §3: the manifest checker")
struct ManifestCheckTests {
    @Test("processing without permitted identifiers is an error")
    func processingNeedsIdentifiers() {
        let m = AppManifest(bundleIdentifier: "a", backgroundModes: [.processing])
        let findings = ManifestCheck.check(m, usage: ManifestUsage(known: false))
        #expect(findings.map(\.severity) == [.error])
        #expect(findings[0].message.contains("BGTaskSchedulerPermittedIdentifiers is missing"))
    }

    @Test("modes used but not declared, identifiers not permitted, modes declared but unused")
    func scenarioUsage() throws {
        let yaml = """
        apps:
          - bundle: com.example.feed
            backgroundModes: [processing, audio]
            permittedTaskIdentifiers: [com.example.feed.db]
            on:
              didEnterBackground:
                - submit: {identifier: com.example.feed.refresh, type: appRefresh}
                - submit: {identifier: com.example.feed.db, type: processing}
        """
        let scenario = try ScenarioParser(file: "t.yaml").parse(yaml)
        let findings = ManifestCheck.check(scenario.apps[0].manifest, usage: InfoPlist.usage(of: scenario.apps[0]))
        let messages = findings.map(\.description)
        #expect(messages.contains { $0.hasPrefix("error:") && $0.contains("needs UIBackgroundModes 'fetch'") })
        #expect(messages.contains { $0.contains("'com.example.feed.refresh' is not in BGTaskSchedulerPermittedIdentifiers") })
        #expect(messages.contains { $0.hasPrefix("warning:") && $0.contains("declares 'audio' but nothing") })
        #expect(!messages.contains { $0.contains("'processing' but") })
        #expect(findings.count == 3)
    }

    @Test("an Info.plist is read and an unknown mode is an error with a suggestion")
    func infoPlist() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ modes: [String]) throws -> String {
            let plist: [String: Any] = ["CFBundleIdentifier": "com.example.x", "UIBackgroundModes": modes,
                                        "BGTaskSchedulerPermittedIdentifiers": ["com.example.x.db"]]
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            let path = dir.appendingPathComponent("Info-\(modes.count).plist").path
            #expect(FileManager.default.createFile(atPath: path, contents: data))
            return path
        }
        let good = try InfoPlist.read(try write(["processing", "fetch"]))
        #expect(good.backgroundModes == [.processing, .fetch])
        #expect(good.permittedTaskIdentifiers == ["com.example.x.db"])
        #expect(throws: ScenarioError.self) { try InfoPlist.read(try write(["procesing"])) }
    }

    @Test("an Info.plist's errors point at the line of the key or the string they are about (error: FILE:LINE:COLUMN)")
    func infoPlistErrorLocations() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func error(_ body: String) -> ScenarioError? {
            let path = dir.appendingPathComponent("Info.plist").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
              <key>CFBundleIdentifier</key>
              <string>com.example.x</string>
            \(body)
            </dict>
            </plist>
            """.utf8)))
            do { _ = try InfoPlist.read(path); return nil } catch { return error as? ScenarioError }
        }
        let unknown = error("  <key>UIBackgroundModes</key>\n  <array>\n    <string>audio</string>\n    <string>fetchh</string>\n  </array>")
        #expect(unknown?.location.line == 9)
        #expect(unknown?.location.column == 5)
        #expect(unknown?.message == "unknown background mode 'fetchh' in UIBackgroundModes; did you mean 'fetch'?")
        let notArray = error("  <key>BGTaskSchedulerPermittedIdentifiers</key>\n  <string>com.example.x.db</string>")
        #expect(notArray?.location.line == 6)
        #expect(notArray?.message == "BGTaskSchedulerPermittedIdentifiers must be an array of strings; found a string")
        let notBool = error("  <key>UIApplicationExitsOnSuspend</key>\n  <string>YES</string>")
        #expect(notBool?.location.line == 6)
        #expect(notBool?.location.column == 3)
        #expect(notBool?.message.hasSuffix("must be a boolean (<true/> or <false/>); found a string") == true)
        let mixed = error("  <key>UIBackgroundModes</key>\n  <array><string>audio</string><integer>3</integer></array>")
        #expect(mixed?.location.line == 6)
        #expect(mixed?.message.hasSuffix("found an array holding something other than strings") == true)
    }
}

@Test("the summary's counters have a slot for every launch cause and termination reason")
func countersFitTheEnums() {
    #expect(LaunchCause.allCases.count <= AppStats().launches.scalarCount)
    #expect(TerminationReason.allCases.count <= AppStats().terminations.scalarCount)
}

@Test("rules §5 lint: submitting in didFinishLaunching is flagged, because submit blocks its caller")
func submitDuringLaunchLint() throws {
    let yaml = """
    apps:
      - bundle: com.example.feed
        backgroundModes: [processing]
        permittedTaskIdentifiers: [com.example.feed.db]
        on:
          didFinishLaunching:
            - register: com.example.feed.db
            - submit: {identifier: com.example.feed.db, type: processing}
          didEnterBackground:
            - submit: {identifier: com.example.feed.db, type: processing}
    """
    let scenario = try ScenarioParser(file: "t.yaml").parse(yaml)
    let findings = ManifestCheck.check(scenario.apps[0].manifest, usage: InfoPlist.usage(of: scenario.apps[0]))
    #expect(findings.map(\.description) == [
        "warning: com.example.feed: BGTaskScheduler.submit is synchronous and blocks its caller; submitting in "
            + "didFinishLaunching (line 8) slows the launch — submit from a background queue or later",
    ])
}
