#if canImport(SwiftUI)
import Foundation
import BackgroundTasks
#else
import BGXKit
#endif

/// The episodes the app knows and has downloaded, and its background
/// session, made with the process so that the session's events always find
/// it. What it did is in `log` (the tests read it).
public final class Library: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    /// How long checking the feed takes.
    let feedLatency: Double
    private let lock = NSLock()
    private var events: [String] = []
    private var episodes = 0
    /// The `.urlSession` action waiting for the session to deliver its events, or whether it has.
    private var waitingForEvents: CheckedContinuation<Void, Never>?
    private var eventsDelivered = false
    private var session: URLSession?

    public init(feedLatency: Double) {
        self.feedLatency = feedLatency
        super.init()
        session = URLSession(configuration: .background(withIdentifier: PodcastsApp.downloadsIdentifier),
                             delegate: self, delegateQueue: nil)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    public var log: [String] { locked { events } }
    func record(_ event: String) { locked { events.append(event) } }

    func scheduleRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: PodcastsApp.refreshIdentifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 4 * 60 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }

    /// The app refresh: check the feed, queue the new episode's download.
    /// A refresh cut short by the system (the Swift task cancelled) queues nothing.
    func refresh() async {
        scheduleRefresh()
        record("refresh")
        do {
            try await Task.sleep(nanoseconds: UInt64(feedLatency * 1_000_000_000))
        } catch {
            record("refresh cancelled")
            return
        }
        let number = locked { () -> Int in
            episodes += 1
            return episodes
        }
        guard let task = session?.downloadTask(with: URL(string: "https://example.com/episodes/\(number).mp3")!) else { return }
        task.taskDescription = "episode \(number)"
        let episode = "episode \(number)"
        task.countOfBytesClientExpectsToReceive = 40 * 1024 * 1024
        task.resume()
        record("queued \(episode)")
    }

    /// The `.urlSession` action: done once the session has delivered its events.
    func downloadsFinished() async {
        record("session events")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let delivered = locked { () -> Bool in
                if eventsDelivered { return true }
                waitingForEvents = continuation
                return false
            }
            if delivered { continuation.resume() }
        }
        locked { eventsDelivered = false }
        record("session events done")
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                           didFinishDownloadingTo location: URL) {
        record("downloaded \(downloadTask.taskDescription ?? "?")")
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let waiting = locked { () -> CheckedContinuation<Void, Never>? in
            let waiting = waitingForEvents
            waitingForEvents = nil
            eventsDelivered = waiting == nil
            return waiting
        }
        waiting?.resume()
    }
}
