import BGXCore
import BGXKit
import BGXSimulation

/// What app code saw, in order. App code writes it from its threads, one
/// at a time (the device runs one app thread at a time), and the test reads
/// it between runs: so it may be shared with any isolation.
final class Journal: @unchecked Sendable {
    var entries: [String] = []
    func write(_ entry: String) { entries.append(entry) }
}

extension SimulatedDevice {
    /// One app's trace as `"time kind"` lines, for the kinds asked for.
    func story(of app: AppID, only kinds: Set<String>) -> [String] {
        events(of: app).filter { kinds.contains($0.kindName) }.map { "\(Time.format($0.time)) \($0.kindName)" }
    }
}
