import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// A refresh that logs with os's `Logger`, as modern apps do, once when it
/// starts and once from a global queue after five seconds of work.
final class LoggingAppDelegate: UIApplicationDelegate {
    static let refresh = "com.example.logging.refresh"
    let logger = Logger(subsystem: "com.example.logging", category: "sync")

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refresh, using: nil) { task in
            let account = "ada@example.com", host = "api.example.com"
            self.logger.info("refresh: \(3) items for \(account) from \(host, privacy: .public), wifi \(true)")
            DispatchQueue.global().async {
                Thread.sleep(forTimeInterval: 5)
                self.logger.error("saved, token \(42, privacy: .private)")
                task.setTaskCompleted(success: true)
            }
        }
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        Logger().notice("leaving")
        let request = BGAppRefreshTaskRequest(identifier: Self.refresh)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }
}

@Suite("BGXKit — os's Logger")
struct OSLoggerTests {
    @Test("Each Logger line is in the trace at its thread's instant, stored as a device without a debugger stores it: strings <private> unless .public, numbers and booleans shown unless .private")
    func linesInTheTrace() {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.logging", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: [LoggingAppDelegate.refresh])) {
            LoggingAppDelegate()
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 86_400)
        let logs = device.happenings(of: app).kind("log").filter { "\($0)".contains("Logger") }
        let start = device.happenings(of: app).taskStarts(LoggingAppDelegate.refresh).first
        #expect(logs.count == 3, "\(logs)")
        guard logs.count == 3, let start else { return }
        #expect(logs[0]["message"] == "Logger default: leaving")
        #expect(logs[1]["message"] == "Logger [com.example.logging:sync] info: refresh: 3 items for <private> from api.example.com, wifi true")
        #expect(logs[2]["message"] == "Logger [com.example.logging:sync] error: saved, token <private>")
        #expect(logs[1].time == start.time)
        #expect(logs[2].time == start.time + Time.seconds(5))
    }
}
