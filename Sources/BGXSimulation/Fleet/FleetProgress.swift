/// The progress of a fleet run, as lines for standard error: devices done,
/// device-days a second, the time left. On a terminal one line rewritten in
/// place (`\r`) twice a second; otherwise — a log, a pipe, a batch system —
/// a whole line at the start, every `every` seconds and at the end. It is
/// told the time (seconds since any fixed moment) rather than reading a
/// clock, so it is tested without waiting; it only formats, and what it
/// prints never reaches the result.
public struct FleetProgress: Sendable {
    public let total: Int
    public let days: Int
    public let terminal: Bool
    public let every: Double
    let started: Double
    var shown: Double?

    public init(total: Int, days: Int, terminal: Bool, startedAt: Double, every: Double = 5) {
        self.total = total
        self.days = days
        self.terminal = terminal
        self.started = startedAt
        self.every = terminal ? 0.5 : every
    }

    /// The text to write now that `done` devices are done, or nil when it is not yet time.
    public mutating func line(done: Int, now: Double) -> String? {
        let due = shown.map { now - $0 >= every } ?? true
        guard due || done == total else { return nil }
        shown = now
        let elapsed = now - started
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var text = "fleet: \(done)/\(total) devices"
        if done > 0, elapsed > 0 {
            let left = rate > 0 ? Double(total - done) / rate : 0
            text += ", \(Int((rate * Double(days)).rounded())) device-days/s, about \(Self.duration(left)) left"
        }
        return terminal ? "\r" + text + "   " + (done == total ? "\n" : "") : text + "\n"
    }

    /// `42 s`, `3 min 5 s`, `2 h 10 min`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }
}
