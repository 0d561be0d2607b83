import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

// docs/own-app.md's app delegate, verbatim below its import block.
final class PodsAppDelegate: UIResponder, UIApplicationDelegate {
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.pods.refresh", using: nil) { task in
            task.expirationHandler = { task.setTaskCompleted(success: false) }
            task.setTaskCompleted(success: true)
        }
        return true
    }
    func applicationDidEnterBackground(_ application: UIApplication) {
        // Save the playback position inside a background task.
        var save = UIBackgroundTaskIdentifier.invalid
        save = application.beginBackgroundTask(withName: "savePosition") { application.endBackgroundTask(save) }
        application.endBackgroundTask(save)
        let request = BGAppRefreshTaskRequest(identifier: "com.example.pods.refresh")
        request.earliestBeginDate = Date(timeIntervalSinceNow: 60 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        completionHandler(.newData)
    }
}

/// docs/own-app.md: every Swift snippet on the page is in this file, and runs.
@Suite("docs/own-app.md — testing your own app from Swift")
struct OwnAppPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let page = (try? String(contentsOf: root.appendingPathComponent("docs/own-app.md"), encoding: .utf8)) ?? ""
    static let source = (try? String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)) ?? ""

    @Test("the page shows this file's delegate and test, verbatim")
    func pageShowsThisFile() {
        let delegate = Self.source.components(separatedBy: "final class PodsAppDelegate")[1]
            .components(separatedBy: "\n}\n")[0]
        #expect(Self.page.contains("final class AppDelegate" + delegate + "\n}\n"))
        let body = Self.source.components(separatedBy: "    // The week, as docs/own-app.md shows it.\n")[1]
            .components(separatedBy: "        // End of the week.\n")[0]
        let unindented = body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
            .replacingOccurrences(of: "PodsAppDelegate()", with: "AppDelegate()")
            .replacingOccurrences(of: "Self.plist", with: "\"App/Info.plist\"")
        #expect(Self.page.contains(unindented), "\(unindented)")
    }

    @Test("the Package.swift on the page names this package's real products and language mode")
    func packageManifest() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for product in ["BGXKit", "BGXSimulation"] {
            #expect(Self.page.contains(".product(name: \"\(product)\", package: \"bgx\")"))
            #expect(manifest.contains(".library(name: \"\(product)\""))
        }
        #expect(manifest.contains("name: \"bgx\""))
        #expect(Self.page.contains("swiftSettings: [.swiftLanguageMode(.v5)]"))
        #expect(manifest.contains("[.swiftLanguageMode(.v5)]"))
    }

    static let plist = root.appendingPathComponent("docs/examples/Pods/Info.plist").path

    @Test("the week on the page runs: the refresh runs, every push is delivered, the only kill is the force quit")
    func week() throws {
        // The week, as docs/own-app.md shows it.
        let device = SimulatedDevice(startDate: Date(timeIntervalSince1970: 1_767_571_200))   // Monday 2026-01-05
        let app = try device.install(infoPlist: Self.plist) { PodsAppDelegate() }
        let week = Time.days(7)
        func at(_ h: Int, _ m: Int = 0) -> Nanoseconds { Time.hours(h) + Time.minutes(m) }
        device.schedule(.user(.launch(app)), every: Recurrence(on: Recurrence.weekdays, at: at(7, 30)), until: week)
        device.schedule(.user(.lock), every: Recurrence(on: Recurrence.weekdays, at: at(7, 32)), until: week)
        device.schedule(.push(app, Push(type: .background, priority: 5)),
                        every: Recurrence(on: Recurrence.everyDay, at: at(18)), until: week)
        device.schedule(.device(.charging(true)), every: Recurrence(on: Recurrence.everyDay, at: at(23)), until: week)
        device.schedule(.device(.charging(false)), every: Recurrence(on: Recurrence.everyDay, at: at(7)), until: week)
        device.schedule(.user(.forceQuit(app)), every: Recurrence(on: [0], at: at(21)), until: week)   // Sundays
        device.scheduleDailyUse(of: app, sessions: [(at(12, 30), Time.minutes(3))], until: week)       // a habit
        device.run(until: week)

        let happened = device.happenings(of: app)
        let refresh = happened.taskStarts("com.example.pods.refresh")
        #expect(refresh.days.count == 7, "\(refresh)")                     // a refresh every day of the week
        #expect(refresh.on(weekdays: Recurrence.weekdays).before(12, 30).days.count == 4)  // before lunch, 4 weekdays
        #expect(happened.pushesDelivered.days.count == 7)                  // every evening's push
        #expect(happened.kills.isEmpty, "\(happened.kills)")                // no watchdog, no jetsam, no crash
        #expect(happened.terminations.with("reason", "userForceQuit").on(weekdays: [0]).count == 1)
        // End of the week.
    }
}
