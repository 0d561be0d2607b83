/// Busy main-thread intervals of the recent past, for the CPU monitor.
struct CPUUsage: Sendable, Codable {
    var intervals: [BusyInterval] = []
    var checkNumber: UInt32 = 0
}

/// One stretch of main-thread work.
struct BusyInterval: Sendable, Codable {
    var start: Nanoseconds
    var end: Nanoseconds
}
