/// The scheduler's pending BGTaskScheduler requests (rules §5, §6): judged
/// and traced in the order they were first submitted (a replacement keeps
/// its place), and found by app without a pass over every request — with
/// thousands of apps, every user action asks for one app's requests.
///
/// Arrays, not dictionaries: a request's serial carries its slot in the
/// low bits (the order of submission above them, so serials still sort in
/// submission order), and each app's serials sit in a table indexed by the
/// app. Hashing the serial on every access was a tenth of a simulated week.
struct PendingRequests: Sendable, Codable {
    /// The requests by slot; a freed slot keeps its last request until reused.
    private var slots: [PendingTask] = []
    /// Each slot's serial, `free` when the slot holds no pending request.
    private var slotSerials: [UInt64] = []
    private var freeSlots: [Int] = []
    /// Each app's serials, oldest first (an app has a handful at most), by app index.
    private var byApp: [[UInt64]] = []
    private var nextOrder: UInt64 = 0
    private(set) var count = 0

    private static let slotBits: UInt64 = 24
    private static let free = UInt64.max

    var isEmpty: Bool { count == 0 }

    /// Every serial, in submission order.
    var serials: [UInt64] { slotSerials.filter { $0 != Self.free }.sorted() }
    /// Every request, in submission order.
    var all: [PendingTask] { serials.map { self[$0] } }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Scheduler/ (7 of them in this file) cost the engine 23 instructions per event.
    /// The app's serials, in submission order.
    @inline(__always) func serials(of app: AppID) -> [UInt64] {
        let i = Int(app.index)
        return i < byApp.count ? byApp[i] : []
    }
    @inline(__always) func has(_ app: AppID) -> Bool {
        let i = Int(app.index)
        return i < byApp.count && !byApp[i].isEmpty
    }

    /// The app's first request (with `identifier`, when given).
    func serial(of app: AppID, _ identifier: TextID? = nil) -> UInt64? {
        let mine = serials(of: app)
        guard let identifier else { return mine.first }
        return mine.first { slots[Self.slot($0)].identifier == identifier }
    }

    @inline(__always) private static func slot(_ serial: UInt64) -> Int { Int(serial & ((1 << slotBits) - 1)) }

    subscript(serial: UInt64) -> PendingTask {
        // Borrowed, not copied: a copy retains the request's strings and arrays.
        _read { yield slots[Self.slot(serial)] }
        _modify { yield &slots[Self.slot(serial)] }
    }

    /// A request's fields, read in place: a copy of the request retains its strings and arrays.
    @inline(__always) func app(_ serial: UInt64) -> AppID { slots[Self.slot(serial)].app }
    @inline(__always) func identifier(_ serial: UInt64) -> TextID { slots[Self.slot(serial)].identifier }
    @inline(__always) func kind(_ serial: UInt64) -> BGTaskKind { slots[Self.slot(serial)].request.kind }

    /// What the scheduler judges for a request (`PendingTask.candidate`), field by field.
    @inline(__always) func candidate(_ serial: UInt64) -> Candidate {
        let k = Self.slot(serial)
        return Candidate(app: slots[k].app, kind: slots[k].request.kind == .processing ? .processing : .appRefresh,
                         earliest: slots[k].request.earliestBegin ?? slots[k].submittedAt,
                         submittedAt: slots[k].submittedAt,
                         requiresNetwork: slots[k].request.requiresNetworkConnectivity,
                         requiresPower: slots[k].request.requiresExternalPower)
    }

    mutating func append(_ task: PendingTask) {
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            slots[slot] = task
        } else {
            slot = slots.count
            precondition(slot < 1 << Self.slotBits, "more than \(1 << Self.slotBits) pending requests")
            slots.append(task)
            slotSerials.append(Self.free)
        }
        let serial = nextOrder << Self.slotBits | UInt64(slot)
        nextOrder += 1
        slotSerials[slot] = serial
        count += 1
        let i = Int(task.app.index)
        if i >= byApp.count { byApp.append(contentsOf: repeatElement([], count: i + 1 - byApp.count)) }
        byApp[i].append(serial)
    }

    /// A resubmission: the new request in the old one's place.
    mutating func replace(_ serial: UInt64, with task: PendingTask) { slots[Self.slot(serial)] = task }

    @discardableResult
    mutating func remove(_ serial: UInt64) -> PendingTask {
        let slot = Self.slot(serial)
        precondition(slotSerials[slot] == serial, "no pending request \(serial)")
        slotSerials[slot] = Self.free
        freeSlots.append(slot)
        count -= 1
        let task = slots[slot]
        byApp[Int(task.app.index)].removeAll { $0 == serial }
        return task
    }

    mutating func removeAll(of app: AppID) -> [PendingTask] {
        serials(of: app).map { remove($0) }
    }
}
