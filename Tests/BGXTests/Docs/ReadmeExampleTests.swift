import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// The README's Swift example, verbatim, so the README stays true.
final class ReadmeUploader: ApplicationDelegate {
    var task = BackgroundTaskIdentifier.invalid
    func applicationDidEnterBackground(_ application: Application) {
        task = application.beginBackgroundTask(withName: "upload") {
            application.endBackgroundTask(self.task)       // expiration handler
        }
        Runtime.asyncAfter(seconds: 8) {                   // the network call, in virtual time
            application.endBackgroundTask(self.task)
        }
    }
}

@Test("README: the Swift example runs and ends its task 8 s after home (rules §2)")
func readmeExample() {
    let device = SimulatedDevice(profile: .modern)
    let app = device.install(AppManifest(bundleIdentifier: "com.example.uploader"), delegate: { ReadmeUploader() })
    device.perform(.launch(app))
    device.advance(seconds: 60)
    device.perform(.home)
    device.advance(seconds: 60)
    let lines = device.traceLines
    #expect(lines.contains(#"{"t": 68, "app": "com.example.uploader", "kind": "bgtask.end", "id": 1}"#))
    #expect(lines.contains(#"{"t": 68, "app": "com.example.uploader", "kind": "state", "from": "background", "to": "suspended", "reason": "no assertions"}"#))
}

/// The README's BGTaskScheduler example, verbatim.
final class ReadmeColorFeed: ApplicationDelegate {
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.colorfeed.refresh", using: nil) { task in
            self.scheduleAppRefresh()
            task.expirationHandler = { task.setTaskCompleted(success: false) }
            Runtime.asyncAfter(seconds: 4) { task.setTaskCompleted(success: true) }   // the fetch
        }
        return true
    }
    func applicationDidEnterBackground(_ application: Application) { scheduleAppRefresh() }
    func scheduleAppRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: "com.example.colorfeed.refresh")
        request.earliestBeginDate = Runtime.now.addingTimeInterval(15 * 60)
        do { try BGTaskScheduler.shared.submit(request) } catch { print("Could not schedule app refresh: \(error)") }
    }
}

@Test("README: the ColorFeed example registers, submits on going home, and its task completes (rules §5)")
func readmeColorFeedExample() {
    let device = SimulatedDevice(profile: .modern)
    let app = device.install(AppManifest(bundleIdentifier: "com.example.colorfeed", backgroundModes: [.fetch],
                                         permittedTaskIdentifiers: ["com.example.colorfeed.refresh"]),
                             delegate: { ReadmeColorFeed() })
    device.perform(.launch(app))
    device.advance(seconds: 60)
    device.perform(.home)
    #expect(device.engine.pendingTaskRequests(for: app).first?.earliestBegin == Time.seconds(60 + 15 * 60))
    #expect(device.simulateLaunch(app, identifier: "com.example.colorfeed.refresh"))
    device.advance(seconds: 10)
    let lines = device.traceLines
    #expect(lines.contains(#"{"t": 60, "app": "com.example.colorfeed", "kind": "task.start", "identifier": "com.example.colorfeed.refresh", "reason": "_simulateLaunchForTaskWithIdentifier"}"#))
    #expect(lines.contains(#"{"t": 64, "app": "com.example.colorfeed", "kind": "task.complete", "identifier": "com.example.colorfeed.refresh", "success": true}"#))
    // The launch handler resubmitted: one request pending again, earliest 15 minutes after the task began.
    #expect(device.engine.pendingTaskRequests(for: app).map(\.earliestBegin) == [Time.seconds(60 + 15 * 60)])
}

/// The README's PushKit example, verbatim.
final class Phone: ApplicationDelegate, PKPushRegistryDelegate {
    let provider = CXProvider(configuration: CXProviderConfiguration())
    var registry: PKPushRegistry?
    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        registry = PKPushRegistry(queue: nil)
        registry?.delegate = self
        registry?.desiredPushTypes = [.voIP]
        return true
    }
    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                      for type: PKPushType, completion: @escaping () -> Void) {
        // iOS 13+: report before returning, or the app is killed (0xbaadca11)
        provider.reportNewIncomingCall(with: UUID(), update: CXCallUpdate()) { _ in }
        completion()
    }
}

@Test("README: the PushKit example is launched by a VoIP push, reports its call and is not killed (rules §4)")
func readmePushKitExample() {
    let device = SimulatedDevice(profile: .modern)
    let app = device.install(AppManifest(bundleIdentifier: "com.example.phone", backgroundModes: [.voip]),
                             delegate: { Phone() })
    device.push(Push(type: .voip, priority: 10), to: app)
    device.advance(seconds: 10)
    let lines = device.traceLines
    #expect(lines.contains(#"{"t": 0, "app": "com.example.phone", "kind": "launch", "cause": "voipPush"}"#))
    #expect(lines.contains(#"{"t": 0, "app": "com.example.phone", "kind": "call.report"}"#))
    #expect(!lines.contains { $0.contains("terminate") })
}

@Test("README: the `bgx explain` example is what bgx prints (its '…' lines stand for rows left out) (rules §6)")
func readmeExplainExample() throws {
    let root = repositoryRoot
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let lines = readme.components(separatedBy: "\n")
    let command = try #require(lines.firstIndex { $0.hasPrefix("$ swift run bgx explain Scenarios/spec5-processing-waits-for-power.yaml") })
    let end = try #require(lines[command...].firstIndex { $0 == "```" })
    let shown = lines[(command + 1)..<end].filter { $0.trimmingCharacters(in: .whitespaces) != "…" }
    let path = root.appendingPathComponent("Scenarios/spec5-processing-waits-for-power.yaml").path
    let scenario = try ScenarioParser.parse(contentsOf: path)
    let run = try ScenarioRun(scenario)
    let moment = try #require(Units.moment("21:00", startOffset: run.startOffset, start: scenario.start))
    let app = try #require(run.device.app("com.example.photos"))
    let text = try #require(run.explain(app: app, identifiers: ["com.example.photos.index"], at: moment).tasks.first).text
    let printed = text.components(separatedBy: "\n")
    // Every line shown is printed, in the same order.
    var at = 0
    for line in shown {
        guard let found = printed[at...].firstIndex(of: line) else {
            Issue.record("the README shows a line bgx does not print: \(line)")
            continue
        }
        at = found + 1
    }
    #expect(shown.count >= 10)
}

/// The README's one scenario: the file shown is docs/examples/colorfeed.yaml,
/// verbatim, and every line of the run shown (bar the "…" that stand for lines
/// left out) is what `bgx run` prints, in the same order.
@Test("README: the ColorFeed scenario shown is the example file, and its `bgx run` block is what bgx prints (rules §6)")
func readmeRunExample() throws {
    let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let file = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/examples/colorfeed.yaml"), encoding: .utf8)
    #expect(readme.contains("```yaml\n" + file + "```"))
    let lines = readme.components(separatedBy: "\n")
    let command = try #require(lines.firstIndex(of: "$ swift run bgx run docs/examples/colorfeed.yaml"))
    let end = try #require(lines[command...].firstIndex { $0 == "```" })
    let shown = lines[(command + 1)..<end].filter { $0.trimmingCharacters(in: .whitespaces) != "…" }
    let run = try CommandLineTests().bgx(["run", "docs/examples/colorfeed.yaml"], in: repositoryRoot)
    #expect(run.status == 0, "\(run.stderr)")
    let printed = run.stdout.components(separatedBy: "\n")
    var at = 0
    for line in shown {
        guard let found = printed[at...].firstIndex(of: line) else {
            Issue.record("the README shows a line `bgx run` does not print (in this order): \(line)")
            continue
        }
        at = found + 1
    }
    #expect(shown.count >= 12)
}
