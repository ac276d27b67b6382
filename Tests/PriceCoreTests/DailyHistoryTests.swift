import FoundationEssentials
import PriceCore
import Testing

/// Ten years of days, each made from the minute history once it has ended and is covered whole.
@Suite("Daily bars: made from the minutes, kept ten years")
struct DailyHistoryTests {
    /// 2026-11-28T00:00:00Z.
    static let midnight: Int64 = 1_795_824_000_000
    static let today = DailyBar.day(of: Timestamp(millisecondsSinceEpoch: midnight))

    func bar(_ minute: Int64, _ price: Decimal) -> MinuteBar { MinuteBar(minute: minute, open: price, high: price, low: price, close: price) }

    @Test func datesAndDaysConvertBothWays() {
        #expect(DailyBar.date(of: Self.today) == "2026-11-28")
        #expect(DailyBar.day(of: "2026-11-28") == Self.today && DailyBar.day(of: "2026-02-30") == nil && DailyBar.day(of: "2026-11-28T") == nil)
    }

    @Test func eachEndedDayTheMinutesCoverWholeIsMadeAndACutOneIsNot() {
        let firstMinute = (Self.today - 3) * 1440 + 600  // 10:00 three days ago: that day is cut
        var minutes: [MinuteBar] = []
        for minute in stride(from: firstMinute, to: Self.today * 1440 + 30, by: 1) {
            // The price is the day's number times 1000 plus the minute of the day.
            minutes.append(bar(minute, Decimal(minute / 1440 - Self.today + 10) * 1000 + Decimal(minute % 1440)))
        }
        var daily = DailyHistory()
        let now = Timestamp(millisecondsSinceEpoch: Self.midnight + 30 * 60_000)
        let made = daily.complete(from: PriceHistory(bars: minutes), now: now)
        #expect(made)
        #expect(daily.bars.map(\.date) == ["2026-11-26", "2026-11-27"], "the cut day and today are not made: \(daily.bars.map(\.date))")
        let yesterday = daily.bars.last
        #expect(yesterday?.open == 9000 && yesterday?.high == 10_439 && yesterday?.low == 9000 && yesterday?.close == 10_439, "\(String(describing: yesterday))")
        let again = daily.complete(from: PriceHistory(bars: minutes), now: now)
        #expect(!again, "nothing changed, nothing to save")
    }

    @Test func daysOlderThanTheMinutesAreKeptAndTenYearsAtMost() {
        let old = (0..<4000).map { DailyBar(day: Self.today - 4000 + Int64($0), open: 1, high: 2, low: 1, close: 2) }
        var daily = DailyHistory(bars: old)
        #expect(daily.bars.count == 3653 && daily.bars.first?.day == Self.today - 3653, "\(daily.bars.count)")
        let minutes = (0..<1440).map { bar((Self.today - 1) * 1440 + Int64($0), 5) }
        daily.complete(from: PriceHistory(bars: minutes), now: Timestamp(millisecondsSinceEpoch: Self.midnight))
        #expect(daily.bar(on: Self.today - 1)?.close == 5 && daily.bar(on: Self.today - 2)?.close == 2, "kept days stay, the day the minutes cover is made from them")
        #expect(daily.since(Self.today - 2).map(\.day) == [Self.today - 2, Self.today - 1])
    }
}
