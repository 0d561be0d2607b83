import BGXCore
import CBGXClock
import Foundation

/// Dispatch queues in app code (`DispatchQueue.main`, `.global()`, custom
/// queues, `DispatchGroup`, `DispatchSemaphore`, `DispatchWorkItem`, and
/// Foundation's `OperationQueue` built on them). `CBGXClock` hands the device
/// what app code gives libdispatch; the device runs it as the app's jobs in
/// virtual time: main-queue work on the app's main thread, any other queue's
/// on its background thread, one job at a time in submission order. The
/// engine holds the jobs while the app is suspended (iOS freezes all of its
/// threads) and drops them with the process.
struct AppDispatchState {
    /// Work queued and not yet run, by timer token: when it is due (the
    /// device's monotonic nanoseconds) and whether it is main-queue work.
    var queued: [Int32: (deadline: Int64, onMain: Bool)] = [:]
    /// `notify` blocks waiting for a group to empty or a work item to run.
    var notifications: [DispatchNotification] = []
    /// Groups app code entered by hand (`enter()`), by object, and how many times more than it left.
    var enteredGroups: [UnsafeMutableRawPointer: Int] = [:]
    /// Work items seen to have run (libdispatch answers that once per item).
    var finishedBlocks: Set<UnsafeMutableRawPointer> = []
    /// Escapes already said in the trace, so each is said once per process.
    var escapesLogged: Set<String> = []

    /// The process ended: its pending `notify` blocks go with it. A group it
    /// left entered would make libdispatch abort when the group is freed (a
    /// real process would simply be gone), so it is kept alive instead.
    mutating func tearDown() {
        for (group, count) in enteredGroups where count > 0 { bgx_object_retain(group) }
        enteredGroups.removeAll()
        queued.removeAll()
        notifications.removeAll()
        finishedBlocks.removeAll()
    }
}

/// Work handed over by libdispatch's entry points; its block, and its group
/// membership, are released when it has run or when it is dropped.
final class DispatchedWork {
    private var work: bgx_work
    init(_ work: bgx_work) { self.work = work }
    var group: UnsafeMutableRawPointer? { work.group }
    func run() { bgx_work_run(work) }
    /// Releases the block and leaves the group (once).
    func release() {
        bgx_work_release(work)
        work = bgx_work()
    }
    deinit { release() }
}

/// A `notify` block and what it waits for (retained until it is submitted or dropped).
final class DispatchNotification {
    enum Awaited { case group(UnsafeMutableRawPointer), block(UnsafeMutableRawPointer) }
    let awaited: Awaited
    let onMain: Bool
    let work: DispatchedWork
    init(_ awaited: Awaited, onMain: Bool, work: DispatchedWork) {
        self.awaited = awaited
        self.onMain = onMain
        self.work = work
    }
    deinit {
        switch awaited {
        case let .group(group): bgx_object_release(group)
        case let .block(block): bgx_work_release(bgx_work(block: block, function: nil, argument: nil, group: nil))
        }
    }
}

/// The entry point `CBGXClock` calls for app code's dispatch requests.
let dispatchOnDevice: @convention(c) (UnsafeMutableRawPointer?, bgx_dispatch_request, Int32, Int64, bgx_work,
                                      UnsafeMutableRawPointer?) -> Int32 = {
    context, request, onMain, deadline, work, object in
    guard let context else { return 0 }
    let process = Unmanaged<AppRuntime>.fromOpaque(context).takeUnretainedValue()
    return process.dispatch(request, onMain: onMain, deadline: deadline, work: work, object: object) ? 1 : 0
}

extension AppRuntime {
    func dispatch(_ request: bgx_dispatch_request, onMain: Int32, deadline: Int64, work: bgx_work,
                  object: UnsafeMutableRawPointer?) -> Bool {
        switch request {
        case BGX_SUBMIT:
            let serial = onMain & (BGX_ON_MAIN | BGX_CONCURRENT) == 0 ? object : nil
            submit(DispatchedWork(work), onMain: onMain & BGX_ON_MAIN != 0, deadline: deadline, serialQueue: serial)
        case BGX_SLEEP:
            return sleepOnAppThread(until: deadline)
        case BGX_WAIT_UNTIL:
            // A lock or condition: only app threads get here (elsewhere the real one blocks).
            return waitOnAppThread(until: deadline) { bgx_wait_holds(work) != 0 } ?? true
        case BGX_THREAD_START:
            guard let object, let start = work.function else { return false }
            return startThread(start, argument: work.argument, handle: object)
        case BGX_SUBMIT_REFUSED_WALL:
            device.withEngine {
                $0.log(app, "not yet supported: DispatchQueue.asyncAfter(wallDeadline:) in app code; "
                       + "the block was not run (use asyncAfter(deadline:))")
            }
        case BGX_GROUP_ENTERED:
            if let object { dispatchState.enteredGroups[object, default: 0] += 1 }
        case BGX_GROUP_LEFT:
            if let object { dispatchState.enteredGroups[object, default: 0] -= 1 }
            submitReadyNotifications()
        case BGX_NOTIFY_GROUP, BGX_NOTIFY_BLOCK:
            guard let object else { return false }
            let awaited: DispatchNotification.Awaited = request == BGX_NOTIFY_GROUP ? .group(object) : .block(object)
            dispatchState.notifications.append(DispatchNotification(awaited, onMain: onMain != 0, work: DispatchedWork(work)))
            submitReadyNotifications()
        case BGX_WAIT_GROUP, BGX_WAIT_SEMAPHORE, BGX_WAIT_BLOCK:
            guard let object else { return true }
            if deadline != .min, let held = waitOnAppThread(until: deadline, { [unowned self] in
                switch request {
                case BGX_WAIT_GROUP: bgx_real_group_is_empty(object) != 0
                case BGX_WAIT_SEMAPHORE: bgx_real_semaphore_try(object) != 0
                default: hasRun(block: object)
                }
            }) { return held }
            return wait(until: deadline, what: request == BGX_WAIT_GROUP ? "DispatchGroup.wait"
                        : request == BGX_WAIT_SEMAPHORE ? "DispatchSemaphore.wait" : "DispatchWorkItem.wait") {
                switch request {
                case BGX_WAIT_GROUP: bgx_real_group_is_empty(object) != 0
                case BGX_WAIT_SEMAPHORE: bgx_real_semaphore_try(object) != 0
                default: hasRun(block: object)
                }
            }
        case BGX_RUN_LOOP_TIMER_CREATED:
            if let object, let callout = work.function {
                runLoopTimers.callouts[object] = unsafeBitCast(callout, to: UnsafeMutableRawPointer.self)
            }
        case BGX_RUN_LOOP_TIMER_ADDED:
            guard let object else { return false }
            return addRunLoopTimer(object, runLoop: onMain)
        case BGX_ESCAPED_RUN_LOOP_TIMER:
            logEscapeOnce("Timer", "not yet supported: a run-loop timer app code did not make (a Timer created outside "
                          + "app code) never fires on the device; use DispatchQueue.main.asyncAfter")
        case BGX_ESCAPED_THREAD:
            logEscapeOnce("Thread", "not yet supported: a Thread started in app code runs on a real thread and the "
                          + "real clock, beside the device; use a DispatchQueue")
        case BGX_ON_MAIN_QUEUE:
            return currentQueue == .main
        case BGX_ESCAPED_SOURCE:
            logEscapeOnce("DispatchSource", "not yet supported: a DispatchSource (timer or file descriptor) in app code "
                          + "runs on libdispatch's threads and the real clock, beside the device")
        default:
            return false
        }
        return true
    }

    /// `deadline` is on the device's monotonic clock; `Int64.max` (`.distantFuture`) never comes.
    func submit(_ work: DispatchedWork, onMain: Bool, deadline: Int64, serialQueue: UnsafeMutableRawPointer? = nil) {
        guard !isTerminated, deadline != .max else { return }
        let now = DeviceClock.uptimeAtStart &+ device.now
        let due = max(now, deadline)
        let body: () -> Bool = { [unowned self] in
            work.run()
            let group = work.group
            work.release()
            if group != nil || !dispatchState.notifications.isEmpty { submitReadyNotifications() }
            return true
        }
        let queue: ExecutionQueue = onMain ? .main : .background
        let token = due == now ? enqueueNow(on: queue, body) : enqueue(after: due &- now, on: queue, body)
        dispatchState.queued[token] = (due, onMain)
        if let serialQueue { threads.serialQueues[token] = serialQueue }
    }

    /// `notify` blocks whose group has emptied or whose work item has run go on their queue now.
    func submitReadyNotifications() {
        guard !isTerminated else { return }
        var waiting: [DispatchNotification] = []
        let ready = dispatchState.notifications.filter { notification in
            let isReady = switch notification.awaited {
            case let .group(group): bgx_real_group_is_empty(group) != 0
            case let .block(block): hasRun(block: block)
            }
            if !isReady { waiting.append(notification) }
            return isReady
        }
        dispatchState.notifications = waiting
        for notification in ready {
            submit(notification.work, onMain: notification.onMain, deadline: bgx_virtual_clock_monotonic())
        }
    }

    func hasRun(block: UnsafeMutableRawPointer) -> Bool {
        if dispatchState.finishedBlocks.contains(block) { return true }
        guard bgx_real_block_try_wait(block) != 0 else { return false }
        dispatchState.finishedBlocks.insert(block)
        return true
    }

    /// A blocking wait in app code. The thread waits in virtual time: the
    /// app's queued work runs (in deadline order, the clocks moving on to each
    /// one's deadline) until `holds` or the deadline passes. Main-queue work
    /// does not run while the main thread waits — on iOS that deadlocks.
    func wait(until deadline: Int64, what: String, _ holds: () -> Bool) -> Bool {
        if deadline == .min {
            device.withEngine { $0.log(app, "not yet supported: \(what)(wallTimeout:) in app code; it did not wait") }
            return holds()
        }
        while !holds() {
            guard !isTerminated else { return false }
            let onMainThread = currentQueue == .main
            let next = dispatchState.queued.filter { !(onMainThread && $0.value.onMain) }
                .min { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            guard let next, next.value.deadline <= deadline else {
                if deadline == .max {
                    device.withEngine {
                        $0.log(app, "\(what)() in app code would wait forever: nothing the app has queued ends it "
                               + "(on iOS the thread hangs); bgx carries on")
                    }
                } else if deadline > bgx_virtual_clock_monotonic() {
                    bgx_virtual_clock_advance_to(deadline)
                }
                return false
            }
            if next.value.deadline > bgx_virtual_clock_monotonic() { bgx_virtual_clock_advance_to(next.value.deadline) }
            runNow(next.key)
        }
        return true
    }

    /// Runs queued work now, inside the waiting job; its timer still fires later, as a job with nothing to do.
    private func runNow(_ token: Int32) {
        dispatchState.queued[token] = nil
        guard let timer = timers[token] else { return }
        timers[token] = (timer.queue, { true })
        _ = timer.body()
    }

    func logEscapeOnce(_ key: String, _ message: String) {
        guard dispatchState.escapesLogged.insert(key).inserted else { return }
        device.withEngine { $0.log(app, message) }
    }
}
