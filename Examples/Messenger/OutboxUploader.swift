// Sends the outbox in a background URLSession when the app leaves the
// screen: the system carries the upload on while the app is suspended, or
// after it has been ended, and launches it again to say how it went.
#if canImport(UIKit)
import UIKit
#else
import BGXKit
#endif

public final class OutboxUploader: NSObject, URLSessionTaskDelegate {
    public static let sessionIdentifier = "com.example.messenger.outbox"
    static let endpoint = URL(string: "https://messages.example.com/v1/outbox")!

    public let outbox: Outbox
    /// The request body: a snapshot of the outbox, next to it.
    let uploadFile: URL
    /// The system's handler from `handleEventsForBackgroundURLSession`, called
    /// once every event of the session has been delivered.
    public var backgroundEventsCompletionHandler: (() -> Void)?
    private let fileQueue = DispatchQueue(label: "com.example.messenger.outbox-file")

    /// Made on first use; in a relaunched process that reconnects it, by its
    /// identifier, to the uploads an earlier process started.
    public private(set) lazy var session: URLSession = {
        let configuration = URLSessionConfiguration.background(withIdentifier: Self.sessionIdentifier)
        configuration.sessionSendsLaunchEvents = true
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()

    public init(outbox: Outbox) {
        self.outbox = outbox
        uploadFile = outbox.fileURL.deletingLastPathComponent().appendingPathComponent("outbox-upload.json")
        super.init()
    }

    /// Hands the outbox to the system, unless an upload is already on its way.
    /// Background time covers writing the file while the app is leaving.
    public func uploadPending() {
        let messages = outbox.messages
        guard !messages.isEmpty, backgroundTask == .invalid else { return }
        backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "Upload outbox") {
            self.endBackgroundTask()
        }
        session.getAllTasks { tasks in
            guard tasks.isEmpty else { return DispatchQueue.main.async { self.endBackgroundTask() } }
            self.fileQueue.async {
                defer { DispatchQueue.main.async { self.endBackgroundTask() } }
                guard (try? JSONEncoder().encode(messages).write(to: self.uploadFile, options: .atomic)) != nil else { return }
                var request = URLRequest(url: Self.endpoint)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                let task = self.session.uploadTask(with: request, fromFile: self.uploadFile)
                // Whichever process hears back learns from it how many messages went.
                task.taskDescription = String(messages.count)
                task.resume()
            }
        }
    }

    private var backgroundTask = UIBackgroundTaskIdentifier.invalid

    /// On the main thread (the expiration handler must end the task before it returns).
    private func endBackgroundTask() {
        guard backgroundTask != .invalid else { return }
        UIApplication.shared.endBackgroundTask(backgroundTask)
        backgroundTask = .invalid
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        // A failed upload (cancelled by a force-quit, timed out) leaves the
        // messages in the outbox, to go the next time the app leaves.
        guard error == nil, let sent = task.taskDescription.flatMap({ Int($0) }) else { return }
        DispatchQueue.main.async {
            self.outbox.removeDelivered(sent)
            try? FileManager.default.removeItem(at: self.uploadFile)
        }
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        DispatchQueue.main.async {
            self.backgroundEventsCompletionHandler?()
            self.backgroundEventsCompletionHandler = nil
        }
    }
}
