/// rules §5: what the scheduler keeps of each request's life for `explain`
/// (BGTaskScheduler's calls are `Engine`'s, in Engine/SchedulerCalls.swift;
/// the tasks' run and expiry are `TaskSchedulerController`'s).
struct TaskHistoryEntry: Sendable, Codable {
    var time: Nanoseconds
    var app: AppID
    var identifier: TextID
    var event: String
    var detail: TextID?
    /// A submission's earliest begin date, said after the event.
    var earliest: Nanoseconds?
}

extension TaskHistoryEntry {
    /// The entry in words: `text` puts trace text into words, `clock` a moment.
    func words(text: (TextID) -> String, clock: (Nanoseconds) -> String) -> String {
        let said = detail.map { "\(event): \(text($0))" } ?? event
        return earliest.map { said + " earliest \(clock($0))" } ?? said
    }
}
