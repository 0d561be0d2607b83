// A catalog app that keeps a local copy of a large product catalog in step
// with its server, written as iOS code is written: a BGAppRefreshTask starts
// a sync operation on an OperationQueue; the operation fetches one page at a
// time (each request blocks its thread until the reply comes) and checks
// `isCancelled` between pages; the task's expiration handler cancels the
// queue, and the operation's completion block completes the task — with
// `false` when it was cut short, so the next refresh carries on from the
// saved cursor. The import block is the only thing that differs between the
// iOS build and the bgx one.
#if canImport(UIKit)
import UIKit
import BackgroundTasks
#else
import BGXKit
#endif

/// The server's side, as far as the app sees it: a page of items takes a
/// while to arrive. On iOS this is a URLSession data task; here the reply
/// comes from a global queue after the latency, which the calling thread
/// waits for, as code that wraps a request in a semaphore does.
public final class CatalogServer: Sendable {
    public let pages: Int
    public let latency: TimeInterval
    public init(pages: Int, latency: TimeInterval) {
        self.pages = pages
        self.latency = latency
    }

    /// Blocks the calling thread until the page arrives (nil past the last page).
    func fetch(page: Int) -> [String]? {
        guard page < pages else { return nil }
        let reply = Reply()
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + latency) {
            reply.items = (0..<20).map { "item \(page * 20 + $0)" }
            reply.arrived.signal()
        }
        reply.arrived.wait()
        return reply.items
    }

    /// A reply on its way: the items, and the signal that they are there.
    private final class Reply: @unchecked Sendable {
        var items: [String] = []
        let arrived = DispatchSemaphore(value: 0)
    }
}

/// What the app has synced, and where the next sync starts. Its lock lets
/// the sync's thread and the main thread share it.
public final class CatalogStore: @unchecked Sendable {
    private let lock = NSLock()
    public private(set) var items: [String] = []
    public private(set) var nextPage = 0
    /// Each sync's end: the pages it saved, and whether it finished.
    public private(set) var syncs: [(pages: Int, finished: Bool, at: Date)] = []

    func save(_ page: [String]) {
        lock.lock()
        defer { lock.unlock() }
        items += page
        nextPage += 1
    }

    func recordSync(pages: Int, finished: Bool) {
        lock.lock()
        defer { lock.unlock() }
        syncs.append((pages, finished, Date()))
        if finished { nextPage = 0 }  // the next sync starts over, from the first page
    }
}

/// Fetches pages from the store's cursor until the catalog is done or it is cancelled.
final class CatalogSyncOperation: Operation, @unchecked Sendable {
    let server: CatalogServer
    let store: CatalogStore
    private(set) var pagesSaved = 0
    private(set) var reachedEnd = false

    init(server: CatalogServer, store: CatalogStore) {
        self.server = server
        self.store = store
    }

    override func main() {
        while !isCancelled {
            guard let page = server.fetch(page: store.nextPage) else {
                reachedEnd = true
                return
            }
            // The reply may come after the expiration handler ran: drop it.
            guard !isCancelled else { return }
            store.save(page)
            pagesSaved += 1
        }
    }
}

public final class CatalogAppDelegate: UIResponder, UIApplicationDelegate {
    public nonisolated static let refreshIdentifier = "com.example.catalog.refresh"
    public let store = CatalogStore()
    let server: CatalogServer
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "catalog sync"
        queue.maxConcurrentOperationCount = 1
        return queue
    }()

    public init(server: CatalogServer) {
        self.server = server
    }

    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        // Using nil: the system runs the handler on a background queue of its own. In Swift 6 mode
        // a closure made here would be the delegate's main-actor code, which Swift checks as it
        // starts — off the main thread the app would crash — so the handler is @Sendable, and
        // what it calls is nonisolated.
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refreshIdentifier, using: nil) { @Sendable task in
            self.handleRefresh(task as! BGAppRefreshTask)
        }
        return true
    }

    public func applicationDidEnterBackground(_ application: UIApplication) {
        scheduleRefresh()
    }

    nonisolated func scheduleRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: Self.refreshIdentifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 30 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }

    /// Runs on the launch handler's queue; it touches only what is safe from any thread.
    nonisolated func handleRefresh(_ task: BGAppRefreshTask) {
        scheduleRefresh()
        let operation = CatalogSyncOperation(server: server, store: store)
        task.expirationHandler = {
            self.queue.cancelAllOperations()
        }
        let store = store
        operation.completionBlock = {
            let finished = operation.reachedEnd && !operation.isCancelled
            store.recordSync(pages: operation.pagesSaved, finished: finished)
            task.setTaskCompleted(success: finished)
        }
        queue.addOperation(operation)
    }
}
