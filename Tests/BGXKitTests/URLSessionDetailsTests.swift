import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Downloads two episodes in a background session, written as iOS code is:
/// `URLSession(configuration:delegate:delegateQueue:)`, labelled tasks,
/// progress, and the file moved out of `didFinishDownloadingTo`'s location.
final class EpisodeDownloader: UIResponder, UIApplicationDelegate, URLSessionDownloadDelegate {
    nonisolated static let journal = Journal()
    static let megabyte: Int64 = 1024 * 1024
    var session: URLSession?
    var finishEvents: (() -> Void)?

    func makeSession() {
        let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.episodes")
        configuration.waitsForConnectivity = true
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        makeSession()
        return true
    }

    /// In front, so that the transfers start at once (begun in the background they would be discretionary).
    func applicationDidBecomeActive(_ application: UIApplication) {
        guard let session else { return }
        let first = session.downloadTask(with: URL(string: "https://example.com/episode/1")!)
        let second = session.downloadTask(with: URL(string: "https://example.com/episode/2")!)
        Self.journal.write("created \(first.taskIdentifier) \(second.taskIdentifier) before resume")
        first.taskDescription = "episode 1"
        second.taskDescription = "episode 2"
        first.countOfBytesClientExpectsToReceive = 2 * Self.megabyte
        second.countOfBytesClientExpectsToReceive = 4 * Self.megabyte
        first.resume()
        second.resume()
    }

    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        finishEvents = completionHandler
        makeSession()
        Self.journal.write("relaunched; a new task gets \(session!.downloadTask(with: URL(string: "https://example.com")!).taskIdentifier)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        Self.journal.write("progress \(downloadTask.taskDescription ?? "?") \(totalBytesWritten)/\(totalBytesExpectedToWrite)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("kept-\(UUID().uuidString)")
        do {
            try FileManager.default.moveItem(at: location, to: destination)
            let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int64 ?? -1
            Self.journal.write("moved \(downloadTask.taskDescription ?? "?"): \(size) bytes")
            try FileManager.default.removeItem(at: destination)
        } catch {
            Self.journal.write("no file at \(location.path): \(error)")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        Self.journal.write("complete \(task.taskIdentifier) \(task.taskDescription ?? "?") \(error == nil ? "ok" : "failed")")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        finishEvents?()
    }
}

@Suite("BGXKit — URLSession details real code relies on", .serialized)
struct URLSessionDetailsTests {
    @Test("rules §8: taskIdentifier is set when a task is created; after a kill the relaunched process gets each task with its identifier and taskDescription, one progress call with the whole size, a real file of that size to move, and new tasks go on counting")
    func identifiersDescriptionsProgressAndFiles() {
        EpisodeDownloader.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.episodes")) { EpisodeDownloader() }
        device.perform(.launch(app))
        device.perform(.home)
        device.change(.memory(1))   // below any process's limit: jetsam ends the suspended app
        device.change(.memory(DeviceState().memory))
        #expect(device.state(of: app) == .notRunning)
        device.advance(seconds: 3_600)

        let mb = EpisodeDownloader.megabyte
        let journal = EpisodeDownloader.journal.entries
        #expect(journal.first == "created 1 2 before resume")
        #expect(journal.contains("relaunched; a new task gets 3"), "\(journal)")
        #expect(journal.filter { $0.hasPrefix("progress") }.sorted()
                == ["progress episode 1 \(2 * mb)/\(2 * mb)", "progress episode 2 \(4 * mb)/\(4 * mb)"])
        #expect(journal.filter { $0.hasPrefix("moved") || $0.hasPrefix("no file") }.sorted()
                == ["moved episode 1: \(2 * mb) bytes", "moved episode 2: \(4 * mb) bytes"])
        #expect(journal.filter { $0.hasPrefix("complete") }.sorted() == ["complete 1 episode 1 ok", "complete 2 episode 2 ok"])
    }
}

/// Uploads an outgoing message from a file, as iOS code does: a `URLRequest`
/// with its method and headers, `uploadTask(with:fromFile:)`, a background session.
final class MessageUploader: UIResponder, UIApplicationDelegate, URLSessionTaskDelegate {
    nonisolated static let journal = Journal()
    var session: URLSession?

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        session = URLSession(configuration: .background(withIdentifier: "com.example.outbox"), delegate: self, delegateQueue: nil)
        return true
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString).json")
        try? Data(repeating: 0x7b, count: 3_000).write(to: file)
        var request = URLRequest(url: URL(string: "https://example.com/messages")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.addValue("gzip", forHTTPHeaderField: "accept-encoding")
        request.addValue("br", forHTTPHeaderField: "Accept-Encoding")
        let task = session!.uploadTask(with: request, fromFile: file)
        Self.journal.write("upload \(task.originalRequest?.httpMethod ?? "?") \(task.currentRequest?.url?.path ?? "?") "
                           + "\(task.originalRequest?.value(forHTTPHeaderField: "content-type") ?? "?") "
                           + "\(task.originalRequest?.value(forHTTPHeaderField: "ACCEPT-ENCODING") ?? "?") "
                           + "\(task.countOfBytesClientExpectsToSend)")
        task.resume()
        try? FileManager.default.removeItem(at: file)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        Self.journal.write("sent \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        Self.journal.write("complete \(error == nil ? "ok" : "failed")")
    }
}

@Suite("BGXKit — URLRequest, as iOS code builds one", .serialized)
struct URLRequestTests {
    @Test("rules §8: an upload from a file takes iOS's URLRequest (method, headers matched without regard to case) and sends the file's size")
    func uploadFromFileWithARequest() {
        MessageUploader.journal.entries = []
        let device = SimulatedDevice()
        _ = device.install(AppManifest(bundleIdentifier: "com.example.outbox")) { MessageUploader() }
        device.perform(.launch(AppID(index: 0)))
        device.advance(seconds: 600)
        #expect(MessageUploader.journal.entries == [
            "upload POST /messages application/json gzip,br 3000",
            "sent 3000/3000",
            "complete ok",
        ])
    }

    @Test("setValue replaces a header whatever its case, and nil removes it")
    func headerFields() {
        var request = URLRequest(url: URL(string: "https://example.com")!)
        #expect(request.httpMethod == "GET")
        request.setValue("a", forHTTPHeaderField: "X-Token")
        request.setValue("b", forHTTPHeaderField: "x-token")
        #expect(request.allHTTPHeaderFields == ["X-Token": "b"])
        request.setValue(nil, forHTTPHeaderField: "X-TOKEN")
        #expect(request.allHTTPHeaderFields == [:])
    }
}
