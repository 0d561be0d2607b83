import BGXCore
import CBGXClock
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why an app thread handed the baton back to the device.
enum AppThreadOutcome {
    /// The job's body returned (what it returned).
    case finished(Bool)
    /// App code sleeps until `until` (the device's monotonic nanoseconds).
    case sleeping(until: Int64)
    /// App code waits (a semaphore, a group, a work item) until `holds` or `until`.
    case waiting(until: Int64, holds: () -> Bool)
    /// App code crashed (the words say how and where); the thread is parked for good.
    case crashed(String)
}

/// The baton: whoever holds it runs, everyone else waits. The device holds
/// it between app jobs; it hands it to one app thread at a time and waits
/// until that thread finishes its job or blocks. So app code runs on real
/// threads (each with its own stack, so a sleep can park one in the middle
/// of a job) yet one at a time, in an order only the device decides: runs
/// repeat exactly.
final class Baton {
    /// Posted by the thread that gives the baton back (also from a crashed thread's signal handler).
    let returned = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    init() { sem_init(returned, 0, 0) }
    deinit {
        sem_destroy(returned)
        returned.deallocate()
    }

    /// Device side: lets `thread` run until it gives the baton back.
    func run(_ thread: AppThread) -> AppThreadOutcome {
        thread.signal()
        while sem_wait(returned) != 0 {}
        if thread.crash.pointee.signal != 0 { return .crashed(AppCrash.describe(thread.crash.pointee)) }
        return thread.outcome
    }

    /// App side: the baton goes back to the device.
    func giveBack() { sem_post(returned) }
}

/// A real thread that runs an app's jobs when the device hands it the
/// baton. A job that sleeps or waits parks its thread where it is; the
/// device wakes it at its instant in virtual time.
final class AppThread {
    /// Whether app threads can be made here (Linux: the sleeps that park them are interposed).
    static let isAvailable: Bool = {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }()

    /// The app thread the calling thread is, if any.
    static var current: AppThread? {
        bgx_app_thread().map { Unmanaged<AppThread>.fromOpaque($0).takeUnretainedValue() }
    }

    private let resumed = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    /// Filled in by the signal handler when app code on this thread crashes.
    let crash = UnsafeMutablePointer<bgx_crash>.allocate(capacity: 1)
    private let baton: Baton
    /// The job to run next; nil tells an idle thread to end.
    var job: (() -> Bool)?
    var outcome = AppThreadOutcome.finished(true)
    /// The queue of the job it runs (its jobs' queue: a thread serves one).
    let queue: ExecutionQueue
    /// Set by the device before waking a parked thread: the clock it reads on, and a wait's answer.
    var wakeAt: Int64 = 0
    var waitHeld = false
    /// Counts the thread's blocks, so that a wake meant for an earlier one is told apart.
    var blockNumber: UInt64 = 0
    /// Busy work (`Runtime.work(seconds:)`) its job recorded before it parked.
    var pendingBusy: Nanoseconds = 0
    var isBlocked = false
    /// A background job that blocked: the callback it was running (the engine's queue was freed).
    var blockedCallback: Callback?
    var blockedInBackground = false
    /// The serial dispatch queue whose block it runs, if any (nil: main, concurrent, or not dispatch work).
    var serialQueue: UnsafeMutableRawPointer?

    /// A thread app code started (`Thread`, `pthread_create`): it runs one job, its body, and ends.
    let endsAfterJob: Bool

    init(baton: Baton, queue: ExecutionQueue, endsAfterJob: Bool = false) {
        self.baton = baton
        self.queue = queue
        self.endsAfterJob = endsAfterJob
        sem_init(resumed, 0, 0)
        crash.initialize(to: bgx_crash())
    }

    /// Starts the real thread; it waits for its first job. The thread holds
    /// this object while it lives.
    func start(handle: UnsafeMutablePointer<pthread_t>? = nil) -> Bool {
        var thread = pthread_t()
        defer { handle?.pointee = thread }
        let me = Unmanaged.passRetained(self).toOpaque()
        let result = bgx_real_pthread_create(&thread, { argument in
            let thread = Unmanaged<AppThread>.fromOpaque(argument!).takeRetainedValue()
            thread.main()
            return nil
        }, me, 8 << 20)
        if result != 0 { Unmanaged<AppThread>.fromOpaque(me).release() }
        return result == 0
    }

    private func main() {
        bgx_set_app_thread(Unmanaged.passUnretained(self).toOpaque())
        bgx_app_thread_catch_crashes(baton.returned, crash)
        while true {
            while sem_wait(resumed) != 0 {}
            guard let job else { return }
            self.job = nil
            let result = job()
            outcome = .finished(result)
            if endsAfterJob { return baton.giveBack() }
            baton.giveBack()
        }
    }

    func signal() { sem_post(resumed) }

    /// An idle thread ends (its process is gone).
    func end() {
        job = nil
        signal()
    }

    /// App side: parks this thread (`outcome` says why) until the device
    /// wakes it; its clocks then read the instant it woke at.
    func block(_ why: AppThreadOutcome) {
        outcome = why
        bgx_app_thread_parked(1)
        baton.giveBack()
        while sem_wait(resumed) != 0 {}
        bgx_app_thread_parked(0)
        bgx_virtual_clock_advance_to(max(wakeAt, bgx_virtual_clock_monotonic()))
    }

    deinit {
        sem_destroy(resumed)
        resumed.deallocate()
        crash.deallocate()
    }
}
