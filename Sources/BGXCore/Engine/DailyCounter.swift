/// An amount spent per day that starts again from zero when the day is
/// over: the per-day budgets (background pushes, background energy, launches
/// over cellular). Reading it needs no clean-up: a day that has ended simply
/// counts as nothing spent.
struct DailyCounter<Amount: AdditiveArithmetic & Sendable>: Sendable {
    /// When a new day begins, at the first spending after the last one ended.
    enum Day: Sendable {
        /// 24 h from that spending (the push budget: "resets every 24 h").
        case rolling
        /// At the last midnight on the wall clock (dasd's budgets are per calendar day).
        case calendar(wallClockOffset: Nanoseconds)
    }

    /// When the day being counted began (virtual time), if any spending has happened.
    private(set) var dayStart: Nanoseconds?
    private var spentInDay: Amount = .zero

    init() {}

    /// What has been spent in the day running at `now` (zero once it has ended).
    func spent(at now: Nanoseconds) -> Amount {
        guard let start = dayStart, now < start + Time.days(1) else { return .zero }
        return spentInDay
    }

    /// When the day running at `now` ends; nil when none is running.
    func dayEnds(after now: Nanoseconds) -> Nanoseconds? {
        guard let start = dayStart, now < start + Time.days(1) else { return nil }
        return start + Time.days(1)
    }

    mutating func add(_ amount: Amount, at now: Nanoseconds, day: Day) {
        if let start = dayStart, now < start + Time.days(1) {
            spentInDay += amount
            return
        }
        switch day {
        case .rolling:
            dayStart = now
        case let .calendar(offset):
            dayStart = (now + offset) / Time.days(1) * Time.days(1) - offset
        }
        spentInDay = amount
    }
}

extension DailyCounter: Codable where Amount: Codable {}
