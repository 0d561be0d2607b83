/// The background-time budget, counted from entering the background [S][A].
struct BackgroundWindow: Sendable, Codable {
    var start: Nanoseconds
    var deadline: Nanoseconds
    var timersScheduled = false
}
