import BGXCore
import CBGXClock
import Foundation

/// `Timer`s in app code. Nothing runs the device thread's run loop, so the
/// device fires a timer app code adds to a run loop itself, as a job of the
/// app at its fire date in virtual time: on the main thread for the main run
/// loop (and for the current one while app code runs on the main thread).
/// CoreFoundation keeps the timer's fire date, interval and validity, so
/// `fireDate`, `invalidate()` and repeating timers behave as on iOS. Like all
/// of the app's jobs, a timer waits while the app is suspended (one that came
/// due fires once when it runs again, a repeating one then skips the fires it
/// missed, as a run loop does) and goes with the process.
struct AppRunLoopTimers {
    /// Callouts of the run-loop timers app code made, by timer.
    var callouts: [UnsafeMutableRawPointer: UnsafeMutableRawPointer] = [:]
    /// Timers the device fires (retained until invalid or the process ends).
    var scheduled: Set<UnsafeMutableRawPointer> = []

    mutating func tearDown() {
        for timer in scheduled { bgx_cf_release(timer) }
        scheduled.removeAll()
        callouts.removeAll()
    }
}

extension AppRuntime {
    /// Where a timer app code adds goes: 1 the main run loop, 2 the calling thread's, 0 another thread's.
    func addRunLoopTimer(_ timer: UnsafeMutableRawPointer, runLoop: Int32) -> Bool {
        guard let callout = runLoopTimers.callouts[timer] else { return false }
        if runLoopTimers.scheduled.contains(timer) { return true }  // already on a run loop: CF adds it once
        let onMain = runLoop == 1 || (runLoop == 2 && currentQueue == .main)
        guard onMain else {
            // On iOS nobody runs the run loop of a dispatch queue's (or a task's) thread: such a timer never fires.
            logEscapeOnce("backgroundTimer", "a Timer scheduled on the run loop of a thread other than the main one "
                          + "never fires, as on iOS (nothing runs that thread's run loop); add it to RunLoop.main")
            return true
        }
        bgx_cf_retain(timer)
        runLoopTimers.scheduled.insert(timer)
        scheduleRunLoopTimer(timer, callout: callout)
        return true
    }

    /// A job at the timer's fire date (seconds since 2001 on the device's wall
    /// clock, which app code — and so this — reads, sleeps included).
    private func scheduleRunLoopTimer(_ timer: UnsafeMutableRawPointer, callout: UnsafeMutableRawPointer) {
        guard !isTerminated else { return }
        let wait = bgx_run_loop_timer_next_fire_date(timer) - Date().timeIntervalSinceReferenceDate
        let now = DeviceClock.uptimeAtStart &+ device.now
        let due = max(now, bgx_virtual_clock_monotonic() &+ Time.seconds(clamping: max(0, wait)))
        let token = enqueue(after: due &- now, on: .main) { [unowned self] in
            fireRunLoopTimer(timer, callout: callout)
            return true
        }
        dispatchState.queued[token] = (due, true)
    }

    /// What a run loop does when a timer comes due.
    private func fireRunLoopTimer(_ timer: UnsafeMutableRawPointer, callout: UnsafeMutableRawPointer) {
        guard runLoopTimers.scheduled.contains(timer) else { return }
        guard bgx_run_loop_timer_is_valid(timer) != 0 else { return forget(timer) }
        let fireDate = bgx_run_loop_timer_next_fire_date(timer)
        // `fireDate` set later since this job was scheduled: wait for it.
        guard fireDate <= Date().timeIntervalSinceReferenceDate else { return scheduleRunLoopTimer(timer, callout: callout) }
        bgx_run_loop_timer_fire(timer, callout)
        guard !isTerminated, bgx_run_loop_timer_is_valid(timer) != 0 else { return forget(timer) }
        let interval = bgx_run_loop_timer_interval(timer)
        guard interval > 0 else {
            bgx_run_loop_timer_invalidate(timer)  // a one-shot timer is invalid once it has fired
            return forget(timer)
        }
        // The callout may have moved the fire date itself; otherwise the next
        // one is a whole number of intervals on, past now (missed fires are skipped).
        if bgx_run_loop_timer_next_fire_date(timer) == fireDate {
            let now = Date().timeIntervalSinceReferenceDate
            var next = fireDate + interval
            if next <= now { next = fireDate + interval * ((now - fireDate) / interval).rounded(.down) + interval }
            bgx_run_loop_timer_set_next_fire_date(timer, next)
        }
        scheduleRunLoopTimer(timer, callout: callout)
    }

    private func forget(_ timer: UnsafeMutableRawPointer) {
        guard runLoopTimers.scheduled.remove(timer) != nil else { return }
        runLoopTimers.callouts[timer] = nil
        bgx_cf_release(timer)
    }
}
