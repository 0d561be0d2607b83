@testable import BGXCore
import Testing

/// One type counts every per-day budget; a rolling day is 24 h from its first
/// spending, a calendar day ends at midnight on the wall clock.
@Suite struct DailyCounterTests {
    @Test func aRollingDayLastsTwentyFourHoursFromItsFirstSpending() {
        var c = DailyCounter<Int>()
        #expect(c.spent(at: 0) == 0)
        #expect(c.dayEnds(after: 0) == nil)
        c.add(1, at: Time.hours(3), day: .rolling)
        c.add(1, at: Time.hours(20), day: .rolling)
        #expect(c.spent(at: Time.hours(26)) == 2)
        #expect(c.dayEnds(after: Time.hours(26)) == Time.hours(27))
        #expect(c.spent(at: Time.hours(27)) == 0)
        #expect(c.dayEnds(after: Time.hours(27)) == nil)
        c.add(1, at: Time.hours(28), day: .rolling)
        #expect(c.spent(at: Time.hours(28)) == 1)
        #expect(c.dayEnds(after: Time.hours(28)) == Time.hours(52))
    }

    @Test func aCalendarDayEndsAtMidnightOnTheWallClock() {
        // t = 0 is 22:00 on the wall clock: midnight comes at t = 2 h.
        let day = DailyCounter<Nanoseconds>.Day.calendar(wallClockOffset: Time.hours(22))
        var c = DailyCounter<Nanoseconds>()
        c.add(Time.minutes(5), at: Time.hours(1), day: day)
        c.add(Time.minutes(5), at: Time.minutes(90), day: day)
        #expect(c.spent(at: Time.minutes(119)) == Time.minutes(10))
        #expect(c.dayEnds(after: Time.hours(1)) == Time.hours(2))
        #expect(c.spent(at: Time.hours(2)) == 0)
        c.add(Time.minutes(1), at: Time.hours(3), day: day)
        #expect(c.spent(at: Time.hours(3)) == Time.minutes(1))
        #expect(c.dayEnds(after: Time.hours(3)) == Time.hours(26))
    }
}
