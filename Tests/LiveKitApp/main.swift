import BGXApp
import BGXLiveApp
import Foundation

// A BGXApp app the live host's tests run as a real process through
// `LiveApplication.main`, as app code is written for the simulated device:
//   launching   plays audio (the `audio` mode), schedules a local notification
//               in 60 s, and makes a background URLSession — each answer
//               (and every refusal) written to `answers`
//   background  stops the audio, begins a background task and ends it 100 ms
//               later (a timer)
//   push        completes a background push with newData 50 ms later (a timer)

let bundle = ProcessInfo.processInfo.environment["BGX_BUNDLE_PATH"] ?? "."

final class KitAppDelegate: ApplicationDelegate {
    var answers: [String] = []
    var task = BackgroundTaskIdentifier.invalid
    var player: AudioPlayer?

    func note(_ line: String) {
        answers.append(line)
        try? answers.joined(separator: "\n").write(toFile: bundle + "/answers", atomically: true, encoding: .utf8)
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let session = AudioSession.sharedInstance()
        try? session.setCategory(.playback)
        player = AudioPlayer(session: session)
        note("audio \(player?.play() ?? false)")
        let content = UNMutableNotificationContent()
        content.title = "Reminder"
        UNUserNotificationCenter.current().add(UNNotificationRequest(
            identifier: "reminder", content: content, trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
        _ = URLSession(configuration: .background(withIdentifier: "com.example.kit.upload"), delegate: nil)
        let connection = application.connection as! LiveSystemConnection
        note("refusals \(connection.refusals.joined(separator: "; "))")
        return true
    }

    func applicationDidEnterBackground(_ application: Application) {
        player?.stop()
        task = application.beginBackgroundTask(withName: "save") { [self] in application.endBackgroundTask(task) }
        Runtime.asyncAfter(seconds: 0.1) { [self] in application.endBackgroundTask(task) }
    }

    func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        Runtime.asyncAfter(seconds: 0.05) { completionHandler(.newData) }
    }
}

LiveApplication.main { KitAppDelegate() }
