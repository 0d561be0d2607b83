import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Two callbacks misspelled as they are in real apps, and a real UIKit method bgx does not model.
final class MisspelledDelegate: UIResponder, UIApplicationDelegate {
    func application(_ application: UIApplication,
                     performFetchWithCompletion completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        completionHandler(.newData)
    }
    func applicationDidEnterBackgound(_ application: UIApplication) {}
    func application(_ app: UIApplication, open url: URL, options: [String: Any] = [:]) -> Bool { true }
    func applicationWillEnterForeground(_ application: UIApplication) {}
}

@Suite("BGXKit — a delegate method spelled like no UIKit callback is named in the trace")
struct DelegateSpellingTests {
    @Test("performFetchWithCompletion: and applicationDidEnterBackgound are reported once, with the callback they most likely meant; real UIKit methods are not")
    func misspelledCallbacksAreReported() {
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.typo", backgroundModes: [.fetch])) {
            MisspelledDelegate()
        }
        device.perform(.launch(app))
        device.perform(.forceQuit(app))
        device.perform(.launch(app))
        let logs = device.events(of: app).filter { $0.kindName == "log" }.map { device.renderer.jsonLine($0) }
        #expect(logs.count == 2, "\(logs)")
        #expect(logs.contains { $0.contains("MisspelledDelegate.application(_:performFetchWithCompletion:) is not a UIApplicationDelegate method: iOS never calls it (did you mean application(_:performFetchWithCompletionHandler:)?)") }, "\(logs)")
        #expect(logs.contains { $0.contains("MisspelledDelegate.applicationDidEnterBackgound(_:) is not a UIApplicationDelegate method: iOS never calls it (did you mean applicationDidEnterBackground(_:)?)") }, "\(logs)")
    }
}
