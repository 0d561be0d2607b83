@testable import BGXCore
import Testing

/// rules §6: the usage predictor learns from past days only, so what it has
/// learned changes only when a day's first use opens (and so resets) a slot
/// of its ring of days — the version its caches are keyed by.
@Suite("rules §6 — the usage predictor's past days and their version")
struct UsageHistoryTests {
    @Test("later uses of a day leave the past days — and the version — as they were; a new day's first use moves it")
    func versionMovesWithTheDays() {
        var history = UsageHistory(days: 14)
        history.noteUse(at: Time.hours(8), wall: Time.hours(8))                           // day 0
        history.noteUse(at: Time.days(1) + Time.hours(8), wall: Time.days(1) + Time.hours(8))   // today, day 1
        let version = history.version
        let before = history.binCounts(beforeDay: 1, firstUseWall: Time.hours(8))
        history.noteUse(at: Time.days(1) + Time.hours(13), wall: Time.days(1) + Time.hours(13)) // today again
        #expect(history.version == version)
        #expect(history.binCounts(beforeDay: 1, firstUseWall: Time.hours(8)) == before)
        history.noteUse(at: Time.days(2) + Time.hours(8), wall: Time.days(2) + Time.hours(8))
        #expect(history.version == version + 1)
    }

    @Test("fourteen days on, a day's first use overwrites the oldest day in the ring: the past days change, and so does the version")
    func ringOverwriteMovesTheVersion() {
        var history = UsageHistory(days: 14)
        for day in 0..<14 { history.noteUse(at: Time.days(day) + Time.hours(8), wall: Time.days(day) + Time.hours(8)) }
        let today = 14
        let before = history.binCounts(beforeDay: Int64(today), firstUseWall: Time.hours(8))
        let version = history.version
        history.noteUse(at: Time.days(today) + Time.hours(20), wall: Time.days(today) + Time.hours(20))
        #expect(history.binCounts(beforeDay: Int64(today), firstUseWall: Time.hours(8)) != before)
        #expect(history.version == version + 1)
    }
}
