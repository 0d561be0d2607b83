import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// An app that tells a refused request apart by the error's code, as apps
/// written for the SDK's bridged `BGTaskScheduler.Error` do.
final class ErrorCodeAppDelegate: UIApplicationDelegate {
    nonisolated static let journal = Journal()

    func applicationDidEnterBackground(_ application: UIApplication) {
        submit("com.example.codes.refresh")
        submit("com.example.codes.unlisted")
    }

    func submit(_ identifier: String) {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        do {
            try BGTaskScheduler.shared.submit(request)
            Self.journal.write("\(identifier): submitted")
        } catch let error as BGTaskScheduler.Error where error.code == .unavailable {
            Self.journal.write("\(identifier): unavailable, skipping")
        } catch let error as BGTaskScheduler.Error {
            switch error.code {
            case .notPermitted: Self.journal.write("\(identifier): not permitted (code \(error.code.rawValue))")
            case .tooManyPendingTaskRequests: Self.journal.write("\(identifier): too many")
            default: Self.journal.write("\(identifier): \(error)")
            }
        } catch {
            Self.journal.write("\(identifier): other \(error)")
        }
    }
}

@Suite("BGTaskScheduler.Error's code, as the SDK's bridged error has it")
struct BGTaskSchedulerErrorCodeTests {
    @Test("error.code == .unavailable with Background App Refresh off; switch error.code finds .notPermitted (3) for an identifier Info.plist does not list")
    func codes() {
        ErrorCodeAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.codes", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: ["com.example.codes.refresh"])) {
            ErrorCodeAppDelegate()
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.change(.backgroundAppRefresh(false))
        device.perform(.launch(app))
        device.perform(.home)
        #expect(ErrorCodeAppDelegate.journal.entries == [
            "com.example.codes.refresh: submitted",
            "com.example.codes.unlisted: not permitted (code 3)",
            "com.example.codes.refresh: unavailable, skipping",
            "com.example.codes.unlisted: unavailable, skipping",
        ])
        #expect(BGTaskScheduler.Error.Code.tooManyPendingTaskRequests.rawValue == 2)
    }
}
