/// Busy main-thread intervals of the recent past, for the CPU monitor.
struct CPUUsage: Sendable {
    var intervals: [(start: Nanoseconds, end: Nanoseconds)] = []
    var checkNumber: UInt32 = 0
}
