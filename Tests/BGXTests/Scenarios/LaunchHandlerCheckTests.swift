import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx check` finds what makes iOS kill the app before its work runs
/// (rules §2, §5), each finding at its FILE:LINE:COLUMN with the fix.
@Suite("bgx check: the mistakes that kill an app, located, with the fix")
struct LaunchHandlerCheckTests {
    func findings(_ yaml: String) throws -> [String] {
        ScenarioCheck.findings(try ScenarioParser(file: "pods.yaml").parse(yaml)).findings.map(\.description)
    }

    /// A podcast app's refresh, written right; each test breaks one thing.
    static let app = """
    apps:
      - bundle: com.example.pods
        backgroundModes: [fetch]
        permittedTaskIdentifiers: [com.example.pods.refresh]
        on:
          didFinishLaunching:
            - register: com.example.pods.refresh
          didEnterBackground:
            - submit: {identifier: com.example.pods.refresh, type: appRefresh}
          task com.example.pods.refresh:
            - wait: 5s
            - complete: true
          expire com.example.pods.refresh:
            - complete: false

    """

    @Test("the app written right has no findings")
    func clean() throws {
        #expect(try findings(Self.app).isEmpty)
    }

    @Test("submitted but never registered: noLaunchHandler, at the submit, with the register to add")
    func submittedNeverRegistered() throws {
        let f = try findings(Self.app.replacingOccurrences(of: "        - register: com.example.pods.refresh\n", with: "        - work: 1s\n"))
        let kill = try #require(f.first { $0.contains("noLaunchHandler") }, "\(f)")
        #expect(kill.hasPrefix("error: pods.yaml:9:11: com.example.pods: 'submit' of 'com.example.pods.refresh'"), "\(kill)")
        #expect(kill.contains("add '- register: com.example.pods.refresh' to com.example.pods's didFinishLaunching"))
    }

    @Test("a handler for an identifier nothing registers: located at its key, with did you mean")
    func typoInHandler() throws {
        let f = try findings(Self.app.replacingOccurrences(of: "task com.example.pods.refresh:", with: "task com.example.pods.refrsh:"))
        let typo = try #require(f.first { $0.contains("'task com.example.pods.refrsh'") }, "\(f)")
        #expect(typo.hasPrefix("error: pods.yaml:10:7: "), "\(typo)")
        #expect(typo.contains("did you mean 'com.example.pods.refresh'?"))
        // The real identifier now has no launch handler: its expiration handler ends each launch unsuccessfully.
        #expect(!f.contains { $0.contains("taskNotCompleted") }, "\(f)")
    }

    @Test("a second app submitting an identifier the first owns: noLaunchHandler, naming the owner")
    func identifierAnotherAppOwns() throws {
        let f = try findings(Self.app + """
          - bundle: com.example.widget
            backgroundModes: [fetch]
            permittedTaskIdentifiers: [com.example.pods.refresh]
            on:
              didEnterBackground:
                - submit: {identifier: com.example.pods.refresh, type: appRefresh}
        """)
        #expect(f.contains { $0.hasPrefix("error: pods.yaml:20:11: com.example.widget: 'submit' of 'com.example.pods.refresh'")
            && $0.contains("com.example.pods registers it") && $0.contains("noLaunchHandler") }, "\(f)")
        #expect(f.contains { $0.hasPrefix("warning: pods.yaml:15:5: com.example.widget: permits 'com.example.pods.refresh', "
            + "an identifier named for com.example.pods") }, "\(f)")
    }

    @Test("registration outside launch, and twice")
    func registrationOutsideLaunch() throws {
        let late = try findings(Self.app.replacingOccurrences(of: "didFinishLaunching:", with: "didBecomeActive:"))
        #expect(late.contains { $0.hasPrefix("error: pods.yaml:7:11: ") && $0.contains("registrationAfterLaunch")
            && $0.contains("move it to didFinishLaunching") }, "\(late)")
        let twice = try findings(Self.app.replacingOccurrences(of: "        - register: com.example.pods.refresh\n",
                                                               with: "        - register: com.example.pods.refresh\n" +
                                                                     "        - register: com.example.pods.refresh\n"))
        #expect(twice.contains { $0.hasPrefix("error: pods.yaml:8:11: ") && $0.contains("launchHandlerRegisteredTwice") }, "\(twice)")
    }

    @Test("a launch handler that never completes, or completes past its time with no expiration handler completing")
    func neverCompletes() throws {
        let never = try findings(Self.app.replacingOccurrences(of: "        - complete: true\n", with: "")
            .replacingOccurrences(of: "        - complete: false\n", with: "        - work: 1s\n"))
        #expect(never.contains { $0.hasPrefix("error: pods.yaml:10:7: ") && $0.contains("never calls 'complete'")
            && $0.contains("taskNotCompleted") }, "\(never)")
        // With no expiration handler the system ends the task unsuccessfully: a warning, no kill.
        let noExpire = try findings(Self.app.replacingOccurrences(of: "        - complete: true\n", with: "")
            .replacingOccurrences(of: "      expire com.example.pods.refresh:\n        - complete: false\n", with: ""))
        #expect(noExpire.count == 1 && noExpire[0].hasPrefix("warning: pods.yaml:10:7: ") && !noExpire[0].contains("kills"), "\(noExpire)")
        let late = try findings(Self.app.replacingOccurrences(of: "wait: 5s", with: "wait: 5m")
            .replacingOccurrences(of: "        - complete: false\n", with: "        - work: 1s\n"))
        #expect(late.contains { $0.contains("calls 'complete' only after 5m") }, "\(late)")
        // An expiration handler that completes saves it.
        #expect(try findings(Self.app.replacingOccurrences(of: "wait: 5s", with: "wait: 5m")).isEmpty)
    }

    @Test("a background task never ended, or ended past its time with no expiration handler ending it")
    func backgroundTaskNeverEnded() throws {
        let yaml = """
        apps:
          - bundle: com.example.pods
            on:
              didEnterBackground:
                - beginBackgroundTask: save
                - wait: 10m
                - endBackgroundTask: save
              willResignActive:
                - beginBackgroundTask: position
        """
        let f = try findings(yaml)
        #expect(f.contains { $0.hasPrefix("error: pods.yaml:5:11: ") && $0.contains("'save'") && $0.contains("ended only after 10m")
            && $0.contains("backgroundTaskTimeout") }, "\(f)")
        #expect(f.contains { $0.hasPrefix("error: pods.yaml:9:11: ") && $0.contains("'position'") && $0.contains("never ended") }, "\(f)")
        let handled = yaml + "\n      backgroundTaskExpired save:\n        - endBackgroundTask: save\n"
        #expect(try findings(handled).count == 1)
    }

    @Test("a background task begun again under its name before it is ended, and a fetch completed too late")
    func staleAndLate() throws {
        let f = try findings("""
        apps:
          - bundle: com.example.pods
            backgroundModes: [fetch]
            on:
              didEnterBackground:
                - beginBackgroundTask: upload
                - beginBackgroundTask: upload
                - endBackgroundTask: upload
              backgroundTaskExpired upload:
                - endBackgroundTask: upload
              performFetch:
                - wait: 45s
                - complete: newData
        """)
        #expect(f.contains { $0.hasPrefix("error: pods.yaml:6:11: ") && $0.contains("begun again (line 7)") }, "\(f)")
        #expect(f.contains { $0.hasPrefix("error: pods.yaml:11:7: ") && $0.contains("calls 'complete' only after 45s")
            && $0.contains("completionHandlerTimeout") }, "\(f)")
    }

    @Test("missing modes for what the handlers do are errors")
    func missingModes() throws {
        let f = try findings("""
        apps:
          - bundle: com.example.pods
            on:
              silentPush:
                - complete: newData
              didEnterBackground:
                - playAudio
        """)
        #expect(f.contains { $0.contains("needs UIBackgroundModes 'remote-notification'") }, "\(f)")
        #expect(f.contains { $0.contains("needs UIBackgroundModes 'audio'") }, "\(f)")
    }

    @Test("bgx check prints the findings located and exits 1")
    func commandLine() throws {
        let path = try CommandLineTests().temporaryFile(Self.app.replacingOccurrences(of: "task com.example.pods.refresh:",
                                                                                       with: "task com.example.pods.refrsh:"))
        let r = try CommandLineTests().bgx(["check", path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("error: \(path):10:7: com.example.pods: the 'task com.example.pods.refrsh' handler"), "\(r.stdout)")
    }
}
