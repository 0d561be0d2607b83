import BGXCore
import CBGXClock
import Foundation

/// The clocks app code reads on a simulated device. While the device runs
/// app code, that thread's `clock_gettime`, `gettimeofday` and `time` (which
/// `Date()`, `Date(timeIntervalSinceNow:)`, `CFAbsoluteTimeGetCurrent`,
/// `ProcessInfo.systemUptime` and `DispatchTime.now()` end in) answer with the
/// device's virtual time; everywhere else they are the real clocks.
public enum DeviceClock {
    /// The simulated device booted this long before the scenario starts: its
    /// monotonic clock (uptime) reads this at t = 0.
    public static let uptimeAtStart: Nanoseconds = 60_000_000_000

    /// Runs `body` with this thread's clocks set to `now` (nanoseconds since
    /// `startDate`), and says how long it slept (`Thread.sleep`, `usleep` …:
    /// the clocks moved on by that much). Nests: the previous setting comes
    /// back afterwards.
    /// `process`, when given, receives what app code puts on dispatch queues.
    static func run<R>(at now: Nanoseconds, startDate: Date, process: AppRuntime?,
                       _ body: () -> R) -> (result: R, slept: Nanoseconds) {
        // Clamped: a scenario may start at a date whose nanoseconds do not fit (before 1678, after 2262).
        let epoch = Int64(max(-9.2e18, min(9.2e18, (startDate.timeIntervalSince1970 * 1e9).rounded())))
        let start = uptimeAtStart &+ now
        let previous = bgx_virtual_clock_swap(bgx_virtual_clock(
            enabled: 1, realtime: epoch &+ now, monotonic: start,
            dispatch: process == nil ? nil : dispatchOnDevice,
            context: process.map { Unmanaged.passUnretained($0).toOpaque() },
            random: process?.randomState))
        let result = body()
        let after = bgx_virtual_clock_swap(previous)
        return (result, after.monotonic &- start)
    }

    /// The real wall clock, wherever it is read (even inside app code).
    public static var realNow: Date { Date(timeIntervalSince1970: Double(bgx_real_realtime_ns()) / 1e9) }

    /// Whether this thread reads the device's clocks now (inside app code).
    public static var isVirtual: Bool {
        let current = bgx_virtual_clock_swap(bgx_virtual_clock())
        _ = bgx_virtual_clock_swap(current)
        return current.enabled != 0
    }
}

extension SimulatedDevice {
    /// Runs app code on the device's clocks; what it slept is busy time for `app`.
    func runningAppCode<R>(_ app: AppID, _ body: () -> R) -> R {
        let (result, slept) = DeviceClock.run(at: engine.now, startDate: startDate,
                                              process: processes[Int(app.index)], body)
        if slept > 0, let process = processes[Int(app.index)], !process.isTerminated {
            process.work(seconds: Time.toSeconds(slept))
        }
        return result
    }
}

extension AppRuntime {
    /// An `earliestBeginDate` months past the device's now was most likely
    /// computed from the real clock (`Date()` off the app's threads, or a date
    /// saved by another run), not the device's: said so in the trace.
    func noteWallClockEscape(_ identifier: String, _ delay: Nanoseconds) {
        guard delay > DeviceClock.implausibleDelay else { return }
        device.withEngine {
            $0.log(app, "earliestBeginDate of '\(identifier)' is \(Time.describe(delay)) after the device's now: "
                   + "this date was computed from the wall clock, not the device's")
        }
    }
}

extension DeviceClock {
    /// Longer than any delay apps ask for (BGTaskScheduler's own are minutes to days).
    static let implausibleDelay: Nanoseconds = 30 * 86_400 * 1_000_000_000
}
