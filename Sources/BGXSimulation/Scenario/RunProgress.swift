import BGXCore

/// Progress of a long `bgx run` or `check`, for stderr: nothing for a run
/// that ends within `quietFor` seconds (most do), then, on a terminal, one
/// line that updates twice a second, otherwise a line every `every` seconds.
/// Wall time is the caller's to read: the simulation never does.
public struct RunProgress: Sendable {
    public let duration: Nanoseconds
    public let terminal: Bool
    let every: Double
    let quietFor: Double
    let started: Double
    var shown: Double?

    public init(duration: Nanoseconds, terminal: Bool, startedAt: Double, every: Double = 5, quietFor: Double = 2) {
        self.duration = duration
        self.terminal = terminal
        self.every = terminal ? 0.5 : every
        self.quietFor = quietFor
        self.started = startedAt
    }

    /// The text to write now that the run has reached `simulated`, or nil when it is not yet time.
    public mutating func line(simulated: Nanoseconds, now: Double) -> String? {
        let elapsed = now - started
        let finished = simulated >= duration
        guard elapsed >= quietFor || (finished && shown != nil) else { return nil }
        guard shown.map({ now - $0 >= every }) ?? true || (finished && shown != nil) else { return nil }
        shown = now
        let days = Double(simulated) / Double(Time.days(1)), total = Double(duration) / Double(Time.days(1))
        let rate = elapsed > 0 ? days / elapsed : 0
        var text = "run: day \(Int(days)) of \(Int(total.rounded(.up))) simulated"
        if rate > 0 {
            text += ", \(Self.oneDecimal(rate)) days/s, about \(FleetProgress.duration((total - days) / rate)) left"
        }
        return terminal ? "\r" + text + "   " + (finished ? "\n" : "") : text + "\n"
    }

    static func oneDecimal(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
