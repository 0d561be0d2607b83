/// The scheduler's pending BGTaskScheduler requests (SPEC §5, §6): judged
/// and traced in the order they were first submitted (a replacement keeps
/// its place), and found by app without a pass over every request — with
/// thousands of apps, every user action asks for one app's requests.
struct PendingRequests: Sendable {
    /// By serial: the order of first submission.
    private var tasks: [UInt64: PendingTask] = [:]
    /// Each app's serials, oldest first (an app has a handful at most).
    private var byApp: [Int32: [UInt64]] = [:]
    private var nextSerial: UInt64 = 0

    var isEmpty: Bool { tasks.isEmpty }
    var count: Int { tasks.count }

    /// Every serial, in submission order.
    var serials: [UInt64] { tasks.keys.sorted() }
    /// Every request, in submission order.
    var all: [PendingTask] { serials.map { tasks[$0]! } }

    /// The app's serials, in submission order.
    @inline(__always) func serials(of app: AppID) -> [UInt64] { byApp[app.index] ?? [] }
    @inline(__always) func has(_ app: AppID) -> Bool { byApp[app.index] != nil }

    /// The app's first request (with `identifier`, when given).
    func serial(of app: AppID, _ identifier: TextID? = nil) -> UInt64? {
        guard let mine = byApp[app.index] else { return nil }
        guard let identifier else { return mine.first }
        return mine.first { tasks[$0]!.identifier == identifier }
    }

    subscript(serial: UInt64) -> PendingTask {
        get { tasks[serial]! }
        _modify { yield &tasks[serial]! }
    }

    /// Reads a request in place, with one lookup and no copy of it.
    @inline(__always) func withTask<R>(_ serial: UInt64, _ body: (borrowing PendingTask) -> R) -> R {
        let index = tasks.index(forKey: serial)!
        return body(tasks.values[index])
    }

    mutating func append(_ task: PendingTask) {
        let serial = nextSerial
        nextSerial += 1
        tasks[serial] = task
        byApp[task.app.index, default: []].append(serial)
    }

    /// A resubmission: the new request in the old one's place.
    mutating func replace(_ serial: UInt64, with task: PendingTask) { tasks[serial] = task }

    @discardableResult
    mutating func remove(_ serial: UInt64) -> PendingTask {
        let task = tasks.removeValue(forKey: serial)!
        let app = task.app.index
        byApp[app]!.removeAll { $0 == serial }
        if byApp[app]!.isEmpty { byApp[app] = nil }
        return task
    }

    mutating func removeAll(of app: AppID) -> [PendingTask] {
        serials(of: app).map { remove($0) }
    }
}
