import BGXCore
import CBGXClock
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Swift concurrency in app code (`Task {}`, `Task.sleep`, `async` functions,
/// continuations, `@MainActor`). The Swift runtime lets a program take over
/// where jobs go (its `swift_task_enqueue…_hook`s); while a device runs app
/// code, the jobs app code makes go to the device, as dispatch work does:
/// main-actor jobs on the app's main thread, every other on its background
/// thread, at their deadline in virtual time (`Task.sleep`), one at a time.
/// Jobs made anywhere else go where the runtime would have sent them.
enum AppConcurrency {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void
    typealias DelayOriginal = @convention(thin) (UInt64, UnownedJob) -> Void
    typealias DelayHook = @convention(thin) (UInt64, UnownedJob, DelayOriginal) -> Void
    typealias DeadlineOriginal = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
    typealias DeadlineHook = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob, DeadlineOriginal) -> Void

    /// Installs the hooks once per process (the first device does it).
    static let installed: Bool = {
        #if os(Linux)
        guard let runtime = dlopen(nil, RTLD_NOW) else { return false }
        func hook<T>(_ name: String, _ type: T.Type) -> UnsafeMutablePointer<T?>? {
            dlsym(runtime, name).map { $0.assumingMemoryBound(to: T?.self) }
        }
        hook("swift_task_enqueueGlobal_hook", Hook.self)?.pointee = { job, original in
            guard let process = AppRuntime.runningAppCode else { return original(job) }
            process.enqueue(job, onMain: false, deadline: 0)
        }
        hook("swift_task_enqueueMainExecutor_hook", Hook.self)?.pointee = { job, original in
            guard let process = AppRuntime.runningAppCode else { return original(job) }
            process.enqueue(job, onMain: true, deadline: 0)
        }
        hook("swift_task_enqueueGlobalWithDelay_hook", DelayHook.self)?.pointee = { delay, job, original in
            guard let process = AppRuntime.runningAppCode else { return original(delay, job) }
            process.enqueue(job, onMain: false,
                            deadline: bgx_virtual_clock_monotonic() &+ Int64(clamping: delay))
        }
        // `Task.sleep(for:)` / `until:` on ContinuousClock or SuspendingClock: an
        // absolute deadline on the clocks app code reads, the device's uptime.
        hook("swift_task_enqueueGlobalWithDeadline_hook", DeadlineHook.self)?.pointee = {
            seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clock, job, original in
            guard let process = AppRuntime.runningAppCode else {
                return original(seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clock, job)
            }
            let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            process.enqueue(job, onMain: false, deadline: overflow ? .max : whole &+ nanoseconds)
        }
        return true
        #else
        return false
        #endif
    }()

    /// The runtime's generic executor (no particular actor): how a global job is run.
    static let genericExecutor = unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)
}

extension AppRuntime {
    /// The process whose app code this thread is running, if any.
    static var runningAppCode: AppRuntime? {
        bgx_app_code_context().map { Unmanaged<AppRuntime>.fromOpaque($0).takeUnretainedValue() }
    }

    /// A job of Swift concurrency, due at `deadline` on the device's monotonic
    /// clock (0: now); held while suspended, dropped with the process (its task never resumes).
    func enqueue(_ job: UnownedJob, onMain: Bool, deadline: Int64) {
        guard !isTerminated, deadline != .max else { return }
        let now = DeviceClock.uptimeAtStart &+ device.now
        let due = max(now, deadline)
        let body: () -> Bool = {
            job.runSynchronously(on: onMain ? MainActor.sharedUnownedExecutor : AppConcurrency.genericExecutor)
            return true
        }
        let queue: ExecutionQueue = onMain ? .main : .background
        let token = due == now ? enqueueNow(on: queue, body) : enqueue(after: due &- now, on: queue, body)
        dispatchState.queued[token] = (due, onMain)
    }
}
