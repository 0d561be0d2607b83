import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A notes app that keeps its database with complete protection and its
/// cache with complete-until-first-authentication, and reads both in its
/// refresh task — as apps do that forget tasks usually run while locked.
final class NotesApp: ApplicationDelegate {
    static let refresh = "com.example.notes.refresh"
    let journal: Journal
    init(journal: Journal) { self.journal = journal }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refresh, using: nil) { task in
            for name in ["notes.db", "cache.json", "settings.plist"] {
                do {
                    let data = try Data(contentsOfDevice: URL(fileURLWithPath: "/Documents/" + name))
                    self.journal.write("\(name): read \(String(decoding: data, as: UTF8.self))")
                } catch let error as CocoaError {
                    self.journal.write("\(name): \(error.code == .fileReadNoPermission ? "no permission (257)" : "\(error.code)")")
                } catch {
                    self.journal.write("\(name): \(error)")
                }
            }
            self.journal.write("protected data available: \(application.isProtectedDataAvailable)")
            try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.refresh))
            task.setTaskCompleted(success: true)
        }
        return true
    }

    func applicationDidBecomeActive(_ application: Application) {
        do {
            try Data("notes".utf8).write(toDevice: URL(fileURLWithPath: "/Documents/notes.db"), options: .completeFileProtection)
            try Data("cache".utf8).write(toDevice: URL(fileURLWithPath: "/Documents/cache.json"),
                                         options: [.atomic, .completeFileProtectionUntilFirstUserAuthentication])
            try Data("settings".utf8).write(toDevice: URL(fileURLWithPath: "/Documents/settings.plist"),
                                            options: .noFileProtection)
        } catch {
            journal.write("write failed: \(error)")
        }
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.refresh))
    }
}

/// rules §13 and the seed (WWDC19 707: tasks usually run while the device is
/// locked); Apple Platform Security, "Data Protection classes" [D]: class A
/// keys are discarded 10 s after the lock; class C keys stay once the
/// person has unlocked since boot; class D files are always readable.
@Suite("Data protection while locked (rules §13)")
struct DataProtectionTests {
    func notesDevice(_ journal: Journal) -> (SimulatedDevice, AppID) {
        let device = SimulatedDevice(profile: .modern)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.notes", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [NotesApp.refresh]),
                                 delegate: { NotesApp(journal: journal) })
        device.perform(.launch(app))
        device.advance(seconds: 60)
        device.perform(.lock)
        return (device, app)
    }

    @Test("rules §13: a complete file cannot be read while locked (after the 10 s grace); completeUntilFirstUserAuthentication and none can")
    func completeFileUnreadableWhileLocked() {
        let journal = Journal()
        let (device, app) = notesDevice(journal)
        device.advance(seconds: 5)
        #expect(device.simulateLaunch(app, identifier: NotesApp.refresh))
        device.advance(seconds: 1)
        #expect(journal.entries.suffix(4) == ["notes.db: read notes", "cache.json: read cache",
                                              "settings.plist: read settings", "protected data available: true"])
        device.advance(seconds: 600)
        #expect(device.simulateLaunch(app, identifier: NotesApp.refresh))
        device.advance(seconds: 1)
        #expect(journal.entries.suffix(4) == ["notes.db: no permission (257)", "cache.json: read cache",
                                              "settings.plist: read settings", "protected data available: false"])
        #expect(device.story(of: app, only: ["file.read"]).contains { $0.contains("notes.db") && $0.contains("false") })
    }

    @Test("rules §13: before the first unlock since boot only unprotected files can be read")
    func beforeFirstUnlockOnlyUnprotectedFiles() {
        let journal = Journal()
        let (device, app) = notesDevice(journal)
        device.advance(seconds: 60)
        device.change(.reboot)
        device.advance(seconds: 60)
        #expect(device.simulateLaunch(app, identifier: NotesApp.refresh))
        device.advance(seconds: 1)
        #expect(journal.entries.suffix(4) == ["notes.db: no permission (257)", "cache.json: no permission (257)",
                                              "settings.plist: read settings", "protected data available: false"])
        device.perform(.unlock)
        device.perform(.lock)
        device.advance(seconds: 600)
        #expect(device.simulateLaunch(app, identifier: NotesApp.refresh))
        device.advance(seconds: 1)
        #expect(journal.entries.suffix(4) == ["notes.db: no permission (257)", "cache.json: read cache",
                                              "settings.plist: read settings", "protected data available: false"])
    }

    @Test("rules §13: without a passcode nothing is protected by one: a complete file reads while locked")
    func noPasscodeNoProtection() {
        var state = DeviceState()
        state.passcode = false
        var engine = Engine(device: state)
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.notes"))
        engine.writeFile(for: app, path: "notes.db", protection: .complete)
        engine.schedule(.user(.lock), at: 0)
        engine.schedule(.user(.unlock), at: Time.hours(1))
        while let t = engine.nextEventTime, t < Time.minutes(30) { engine.step() }
        engine.advanceClock(to: Time.minutes(30))
        #expect(engine.device.locked && engine.isProtectedDataAvailable)
        #expect(engine.readFile(for: app, path: "notes.db") == .ok)
    }

    @Test("rules §13: isProtectedDataAvailable is true unlocked and for 10 s after the lock, then false until unlock")
    func protectedDataAvailability() {
        var engine = Engine()
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.notes"))
        engine.writeFile(for: app, path: "notes.db", protection: .complete)
        engine.schedule(.user(.lock), at: Time.seconds(100))
        engine.schedule(.user(.unlock), at: Time.seconds(200))
        func run(until t: Nanoseconds) { while let n = engine.nextEventTime, n <= t { engine.step() } }
        run(until: Time.seconds(100))
        #expect(engine.device.locked && engine.isProtectedDataAvailable)
        engine.advanceClock(to: Time.seconds(110) - 1)
        #expect(engine.isProtectedDataAvailable)
        engine.advanceClock(to: Time.seconds(110))
        #expect(!engine.isProtectedDataAvailable)
        if case .notPermitted = engine.readFile(for: app, path: "notes.db") {} else { Issue.record("read a class A file while locked") }
        #expect(engine.writeFile(for: app, path: "new.db", protection: .complete) != .ok)
        run(until: Time.seconds(200))
        #expect(engine.isProtectedDataAvailable)
        #expect(engine.readFile(for: app, path: "notes.db") == .ok)
        #expect(engine.readFile(for: app, path: "missing") == .noSuchFile)
    }

    @Test("rules §13: bgx check warns when a BGTask handler reads a file the app writes with complete protection")
    func checkWarnsAboutCompleteFileInTask() throws {
        let path = repositoryRoot.appendingPathComponent("Scenarios/spec13-data-protection-while-locked.yaml").path
        let findings = DataProtectionCheck.findings(try ScenarioParser.parse(contentsOf: path))
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("reads notes.db") == true)
        #expect(findings.first?.severity == .warning)
    }

    @Test("rules §13: scenario actions writeFile/readFile parse; an unknown or unsupported protection is an error")
    func scenarioErrors() {
        func parse(_ protection: String) throws {
            _ = try ScenarioParser(file: "p.yaml").parse("""
            duration: 1h
            apps:
              - bundle: com.example.a
                on:
                  didBecomeActive:
                    - writeFile: {path: a.db, protection: \(protection)}
                    - readFile: a.db
            """)
        }
        #expect(throws: Never.self) { try parse("complete") }
        #expect { try parse("completeUnlessOpen") } throws: { "\($0)".contains("not yet supported") }
        #expect { try parse("secret") } throws: { "\($0)".contains("protection class") }
    }
}
