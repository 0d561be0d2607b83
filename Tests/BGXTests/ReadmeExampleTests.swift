import BGXApp
import BGXCore
import BGXSimulation
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

@Test("README: the Swift example runs and ends its task 8 s after home (SPEC §2)")
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
