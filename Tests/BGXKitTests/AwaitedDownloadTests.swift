import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Awaits a background download from an async function, as modern code
/// wraps a download delegate: a continuation kept by task, resumed in
/// `didFinishDownloadingTo`.
final class AwaitingDownloader: UIResponder, UIApplicationDelegate, URLSessionDownloadDelegate {
    nonisolated static let journal = Journal()
    var session: URLSession?
    var finishEvents: (() -> Void)?
    var waiting: [Int: CheckedContinuation<Void, Never>] = [:]

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        session = URLSession(configuration: .background(withIdentifier: "com.example.awaiting"), delegate: self,
                             delegateQueue: nil)
        return true
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        let start = Date()
        Task {
            await self.download(URL(string: "https://example.com/episode.mp3")!)
            Self.journal.write("awaited +\(Int(Date().timeIntervalSince(start)))")
        }
    }

    func download(_ url: URL) async {
        await withCheckedContinuation { continuation in
            let task = session!.downloadTask(with: url)
            task.countOfBytesClientExpectsToReceive = 200 * 1024 * 1024
            waiting[task.taskIdentifier] = continuation
            task.resume()
        }
    }

    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        finishEvents = completionHandler
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        Self.journal.write("finished")
        waiting.removeValue(forKey: downloadTask.taskIdentifier)?.resume()
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        Self.journal.write("events done")
        finishEvents?()
    }
}

@Suite("BGXKit — an async caller awaiting a background download", .serialized)
struct AwaitedDownloadTests {
    @Test("rules §8: woken for the session's events, the app resumes the awaiting task before it is suspended again")
    func resumedWhenWoken() {
        AwaitingDownloader.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.awaiting")) { AwaitingDownloader() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 36_000)
        // Woken at 160 s for the session's events (the download finished at 100 s, while the
        // app was suspended): the task awaiting it goes on then, not at the next foreground.
        // The awaiting task runs on the delegate's main actor (as on iOS): it goes on in the main-thread
        // job after the session's events, which were already queued, and before the app is suspended.
        #expect(AwaitingDownloader.journal.entries == ["finished", "events done", "awaited +160"])
        #expect(device.story(of: app, only: ["transfer.complete"]) == ["100 transfer.complete"])
    }
}
