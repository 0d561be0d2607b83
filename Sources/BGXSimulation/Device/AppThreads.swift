import BGXApp
import BGXCore
import CBGXClock
import Foundation

/// A process's app threads: idle ones ready for the next job, parked ones
/// (a sleep, a wait) and when each wakes, and the serial dispatch queues
/// whose block is parked, with the blocks waiting behind it.
///
/// Blocking in app code, as on iOS: a sleep or a wait parks the thread and
/// the device goes on with everything else due — the app's other threads,
/// its main thread's callbacks (a BGTask's expiration handler), other apps,
/// the system's timers and watchdogs — and wakes the thread at its instant
/// in virtual time. A parked main thread keeps the main thread busy (its
/// callbacks wait, its watchdogs run); a parked background job frees the
/// app's background queue for the next one, as a thread of its own would.
struct AppThreads {
    var idleMain: [AppThread] = []
    var idleBackground: [AppThread] = []
    /// Threads parked in a wait, in the order they began waiting.
    var waiting: [AppThread] = []
    /// Wakes scheduled with the engine, by timer token: the thread and which of its blocks.
    var wakes: [Int32: (thread: AppThread, block: UInt64)] = [:]
    /// The serial dispatch queue of queued work, by timer token.
    var serialQueues: [Int32: UnsafeMutableRawPointer] = [:]
    /// Serial queues running (or parked in) a block, and the blocks submitted behind it.
    var busySerialQueues: Set<UnsafeMutableRawPointer> = []
    var deferred: [UnsafeMutableRawPointer: [() -> Bool]] = [:]
    /// Background threads made for queue work (idle or busy), at most `backgroundLimit`.
    var backgroundThreads = 0
    /// Work that found every background thread parked, in order: it runs as one is free.
    var waitingForThread: [(serialQueue: UnsafeMutableRawPointer?, body: () -> Bool)] = []
    /// As libdispatch: at most 64 threads serve an app's queues; work beyond that waits for one.
    static let backgroundLimit = 64

    /// The process ended: idle threads end with it. A parked thread stays
    /// parked for good — Swift cannot unwind its stack — and keeps what its
    /// frames hold (see docs/bgxkit.md).
    mutating func tearDown() {
        for thread in idleMain + idleBackground { thread.end() }
        idleMain.removeAll()
        idleBackground.removeAll()
        waiting.removeAll()
        wakes.removeAll()
        serialQueues.removeAll()
        busySerialQueues.removeAll()
        deferred.removeAll()
        waitingForThread.removeAll()
    }
}

extension AppRuntime {
    /// An idle thread for a job on `queue`, or a new one (nil where none can be made).
    func takeThread(for queue: ExecutionQueue) -> AppThread? {
        guard AppThread.isAvailable else { return nil }
        if queue == .main, let thread = threads.idleMain.popLast() { return thread }
        if queue == .background, let thread = threads.idleBackground.popLast() { return thread }
        let thread = AppThread(baton: device.baton, queue: queue)
        guard thread.start() else { return nil }
        if queue == .background { threads.backgroundThreads += 1 }
        return thread
    }

    /// Whether background work must wait for a thread: every one the app may have is parked.
    func allBackgroundThreadsParked() -> Bool {
        AppThread.isAvailable && threads.idleBackground.isEmpty && threads.backgroundThreads >= AppThreads.backgroundLimit
    }

    /// Hands the baton to `thread` until its job finishes or parks, and acts on which.
    func step(_ thread: AppThread) {
        currentQueue = thread.queue
        pendingBusy = thread.pendingBusy  // busy work it recorded before it parked
        thread.pendingBusy = 0
        let outcome = device.baton.run(thread)
        currentQueue = thread.queue
        guard !isTerminated else {
            if case .finished = outcome { thread.end() }
            return
        }
        switch outcome {
        case let .finished(done):
            let blockedInBackground = thread.blockedInBackground
            let callback = thread.blockedCallback
            thread.blockedInBackground = false
            thread.blockedCallback = nil
            if thread.endsAfterJob {
                // Its real thread has ended.
            } else if thread.queue == .main {
                threads.idleMain.append(thread)
            } else {
                threads.idleBackground.append(thread)
                if !threads.waitingForThread.isEmpty {
                    let next = threads.waitingForThread.removeFirst()
                    let token = enqueue(after: 0, on: .background, next.body)
                    if let serial = next.serialQueue { threads.serialQueues[token] = serial }
                }
            }
            if let serial = thread.serialQueue {
                thread.serialQueue = nil
                releaseSerialQueue(serial)
            }
            finishJob(done, on: thread.queue)
            if blockedInBackground, !isTerminated {
                device.withEngine { $0.blockedJobReturned(app, callback: callback) }
            }
        case let .sleeping(until):
            park(thread, until: until)
        case let .waiting(until, _):
            threads.waiting.append(thread)
            park(thread, until: until)
        case let .crashed(words):
            // That app's crash: its process ends; the device, other apps and the caller go on.
            device.withEngine { $0.terminate(app, .crash, detail: words) }
            isTerminated = true
            return
        }
        wakeWaitersThatHold()
    }

    private func park(_ thread: AppThread, until deadline: Int64) {
        thread.pendingBusy = pendingBusy
        pendingBusy = 0
        thread.isBlocked = true
        thread.blockNumber &+= 1
        if thread.queue == .background {
            let callback = device.withEngine { $0.backgroundJobBlocked(app) }
            if !thread.blockedInBackground {
                thread.blockedInBackground = true
                thread.blockedCallback = callback
            }
        } else {
            device.withEngine { $0.mainJobParked(app) }
        }
        if deadline != .max { scheduleWake(thread, at: deadline) }
    }

    /// Wakes `thread` at `deadline` (the device's monotonic nanoseconds): on
    /// the main thread as the rest of the job in flight, elsewhere as a job
    /// of the background queue.
    private func scheduleWake(_ thread: AppThread, at deadline: Int64) {
        let now = DeviceClock.uptimeAtStart &+ device.now
        let delay = deadline <= now ? 0 : min(deadline &- now, Self.farthestWake)
        // A background thread runnable now is queued at once: the app is not idle while it is.
        let token = delay == 0 && thread.queue == .background
            ? device.withEngine { $0.queueWorkNow(for: app, on: .background) }
            : device.withEngine {
                $0.scheduleTimer(for: app, after: delay, continuation: thread.queue == .main, on: thread.queue)
            }
        threads.wakes[token] = (thread, thread.blockNumber)
    }

    /// A wake came due: the thread runs on from where it parked, unless the block it was for is over.
    func wakeThread(_ thread: AppThread, block: UInt64) {
        guard thread.isBlocked, thread.blockNumber == block else {
            // Nothing to run; a background wake still took the queue as a job.
            if thread.queue == .background { device.withEngine { $0.returned(app, on: .background) } }
            return
        }
        if let i = threads.waiting.firstIndex(where: { $0 === thread }) {
            threads.waiting.remove(at: i)
            thread.waitHeld = false  // its deadline passed
        }
        thread.isBlocked = false
        thread.wakeAt = DeviceClock.uptimeAtStart &+ device.now
        step(thread)
    }

    /// Waiters whose semaphore, group or work item now lets them go wake now, in the order they began waiting.
    func wakeWaitersThatHold() {
        var i = 0
        while i < threads.waiting.count {
            let thread = threads.waiting[i]
            guard case let .waiting(_, holds) = thread.outcome, holds() else {
                i += 1
                continue
            }
            threads.waiting.remove(at: i)
            thread.waitHeld = true
            thread.blockNumber &+= 1  // its deadline's wake no longer applies
            scheduleWake(thread, at: DeviceClock.uptimeAtStart &+ device.now)
        }
    }

    /// The serial queue's block ended: the blocks that came in behind it go on the queue again, in order.
    func releaseSerialQueue(_ queue: UnsafeMutableRawPointer) {
        threads.busySerialQueues.remove(queue)
        guard let waiting = threads.deferred.removeValue(forKey: queue) else { return }
        for body in waiting {
            let token = enqueue(after: 0, on: .background, body)
            threads.serialQueues[token] = queue
        }
    }

    /// App code starts a thread (`Thread.detachNewThread`, `Thread(block:).start()`,
    /// `pthread_create`): it becomes an app thread of its own, which runs at
    /// this instant once the app's background queue is free, as a job there.
    /// False where no thread can be made (the caller then runs it for real).
    func startThread(_ start: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
                     argument: UnsafeMutableRawPointer?, handle: UnsafeMutableRawPointer) -> Bool {
        guard AppThread.isAvailable, !isTerminated else { return false }
        let thread = AppThread(baton: device.baton, queue: .background, endsAfterJob: true)
        thread.job = { [unowned self] in
            _ = DeviceClock.run(at: device.now, startDate: device.startDate, process: self) {
                ProcessContext.$current.withValue(application) { start(argument) }
            }
            return true
        }
        guard thread.start(handle: handle.assumingMemoryBound(to: pthread_t.self)) else { return false }
        thread.isBlocked = true
        thread.blockNumber = 1
        scheduleWake(thread, at: DeviceClock.uptimeAtStart &+ device.now)
        return true
    }

    /// App code parks its thread until `deadline`; false where it runs on no app thread.
    func sleepOnAppThread(until deadline: Int64) -> Bool {
        guard !isTerminated, let thread = AppThread.current else { return false }
        thread.block(.sleeping(until: deadline))
        return true
    }

    /// A wait in app code on an app thread: parks it until `holds` or the
    /// deadline; nil where it runs on no app thread.
    func waitOnAppThread(until deadline: Int64, _ holds: @escaping () -> Bool) -> Bool? {
        guard !isTerminated, let thread = AppThread.current else { return nil }
        if holds() { return true }
        if deadline <= bgx_virtual_clock_monotonic() { return false }
        thread.block(.waiting(until: deadline, holds: holds))
        return thread.waitHeld
    }

    /// Longer than any wait app code means (a century): keeps the engine's clock arithmetic in range.
    static let farthestWake: Nanoseconds = 100 * 365 * 86_400 * 1_000_000_000
}
