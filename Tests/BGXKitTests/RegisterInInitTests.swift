import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Registers its launch handler and its notification delegate in `init`, as
/// a SwiftUI app does in `App.init()`.
final class RegistersInInitDelegate: NSObject, UIApplicationDelegate, UNUserNotificationCenterDelegate {
    nonisolated static let journal = Journal()
    let createdAt = Date()

    override init() {
        super.init()
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.init.refresh", using: nil) { task in
            Self.journal.write("refresh; process created at \(self.createdAt.timeIntervalSince1970)")
            task.setTaskCompleted(success: true)
        }
        UNUserNotificationCenter.current().delegate = self
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        let request = BGAppRefreshTaskRequest(identifier: "com.example.init.refresh")
        request.earliestBeginDate = Date(timeIntervalSinceNow: 60)
        try? BGTaskScheduler.shared.submit(request)
    }
}

@Suite("BGXKit — registering in the delegate's init")
struct RegisterInInitTests {
    @Test("rules §5: a launch handler registered in the delegate's init (before didFinishLaunching) runs the task; init reads the device's clock")
    func registrationInInitWorks() {
        RegistersInInitDelegate.journal.entries = []
        let device = SimulatedDevice(startDate: Date(timeIntervalSince1970: 1_767_571_200))
        let app = device.install(AppManifest(bundleIdentifier: "com.example.init", backgroundModes: [.fetch],
                                             permittedTaskIdentifiers: ["com.example.init.refresh"])) {
            RegistersInInitDelegate()
        }
        device.advance(seconds: 10)
        device.perform(.launch(app))
        device.perform(.home)
        #expect(device.simulateLaunch(app, identifier: "com.example.init.refresh"))
        #expect(RegistersInInitDelegate.journal.entries == ["refresh; process created at 1767571210.0"])
        #expect(device.process(of: app)?.application.delegate != nil)
    }
}
