import FoundationEssentials
import PriceCore
import Testing

@Suite("Price history: minute bars, change over windows, downsampling")
struct PriceHistoryTests {
    /// 2025-11-21T16:00:00Z, a whole minute.
    static let start = Timestamp(millisecondsSinceEpoch: 1_763_740_800_000)

    func at(minutes: Int64, seconds: Int64 = 0) -> Timestamp {
        Self.start.adding(milliseconds: minutes * 60_000 + seconds * 1000)
    }

    func decimal(_ text: String) -> Decimal { Decimal(string: text)! }

    func history(_ closes: [(minute: Int64, price: String)]) -> PriceHistory {
        var history = PriceHistory()
        for (minute, price) in closes { history.record(decimal(price), at: at(minutes: minute)) }
        return history
    }

    /// The summary takes every bar in the window, its lows and highs included, whatever the
    /// chart samples; a bar before the window is no part of it.
    @Test func theSummaryCoversEveryBarOfTheWindow() throws {
        var history = history([(0, "99000"), (10, "100000"), (11, "100500")])
        history.record(decimal("95000"), at: at(minutes: 11, seconds: 30))  // a dip within minute 11
        history.record(decimal("100400"), at: at(minutes: 11, seconds: 50))
        history.record(decimal("100200"), at: at(minutes: 12))
        let summary = try #require(history.summary(over: .hour, now: at(minutes: 65)))
        let base = PriceHistoryTests.start.millisecondsSinceEpoch / 60_000
        #expect(summary.sinceMinute == base + 10 && summary.open == decimal("100000") && summary.close == decimal("100200"),
                "minute 0 is more than an hour before: \(summary)")
        #expect(summary.low == decimal("95000") && summary.lowMinute == base + 11)
        #expect(summary.high == decimal("100500") && summary.highMinute == base + 11)
        #expect(history.summary(over: .hour, now: at(minutes: 200)) == nil, "no bar in the window")
    }

    @Test func pricesWithinAMinuteMakeOneBar() {
        var history = PriceHistory()
        for (second, price) in [(0, "100"), (10, "105.5"), (20, "99.25"), (59, "101")] {
            let kept = history.record(decimal(price), at: at(minutes: 0, seconds: Int64(second)))
            #expect(kept)
        }
        history.record(decimal("102"), at: at(minutes: 1))
        #expect(history.bars == [
            MinuteBar(minute: MinuteBar.minute(of: Self.start), open: decimal("100"), high: decimal("105.5"), low: decimal("99.25"), close: decimal("101")),
            MinuteBar(minute: MinuteBar.minute(of: Self.start) + 1, open: decimal("102"), high: decimal("102"), low: decimal("102"), close: decimal("102")),
        ])
    }

    @Test func aClockSteppedBackDoesNotRewriteThePast() {
        var history = self.history([(5, "100")])
        let kept = history.record(decimal("1"), at: at(minutes: 4))
        #expect(!kept)
        #expect(history.bars.count == 1 && history.bars[0].low == decimal("100"))
    }

    @Test func changeIsMeasuredFromTheCloseAtTheWindowsStart() throws {
        let history = self.history([(0, "100"), (30, "90"), (60, "110")])
        let now = at(minutes: 60, seconds: 30)
        #expect(history.reference(for: .hour, now: now) == decimal("100"), "the bar exactly one hour back")
        #expect(history.change(over: .hour, to: decimal("110"), now: now) == decimal("10"))
        // One minute later the reference is still the last close at or before the start (3 min tolerance).
        #expect(history.change(over: .hour, to: decimal("95"), now: at(minutes: 61)) == decimal("-5"))
        #expect(history.change(over: .hour, to: decimal("95"), now: at(minutes: 63)) == decimal("-5"))
        #expect(history.change(over: .hour, to: decimal("95"), now: at(minutes: 64)) == nil, "4 minutes back is a gap, not a reference")
    }

    @Test func aHistoryShorterThanTheWindowHasNoChange() {
        let history = self.history([(0, "100"), (59, "110")])
        #expect(history.change(over: .hour, to: decimal("110"), now: at(minutes: 59)) == nil)
        #expect(history.day(now: at(minutes: 59)) == nil)
    }

    @Test func theDayIsOpenHighAndLowOfTheLast24Hours() throws {
        let history = self.history([(0, "100"), (600, "130"), (700, "80"), (1439, "105"), (1440, "106")])
        let day = try #require(history.day(now: at(minutes: 1440)))
        #expect(day.open == decimal("100") && day.high == decimal("130") && day.low == decimal("80"))
        let later = try #require(history.day(now: at(minutes: 1441)))
        #expect(later.open == decimal("100"), "within the day's 72-minute tolerance")
    }

    @Test func theDayFromTheMinutesKeptCompletedEqualsTheFullScanAsTradesMoveTheCurrentMinute() throws {
        var history = self.history([(0, "100"), (600, "130"), (700, "80"), (1439, "105")])
        let now = at(minutes: 1440, seconds: 5)
        let completed = history.completedDay(now: now)
        for (second, price) in [(10, "131"), (20, "79.5"), (30, "104")] {
            history.record(decimal(price), at: at(minutes: 1440, seconds: Int64(second)))
            let kept = try #require(history.day(now: now, completed: completed))
            let scanned = try #require(history.day(now: now))
            #expect(kept.open == scanned.open && kept.high == scanned.high && kept.low == scanned.low)
        }
        let day = try #require(history.day(now: now, completed: completed))
        #expect(day.high == decimal("131") && day.low == decimal("79.5"), "the current minute's trades count")
        let quiet = self.history([(0, "100"), (600, "130"), (700, "80"), (1439, "105"), (1440, "101")])
        let stale = quiet.completedDay(now: at(minutes: 601))
        #expect(quiet.day(now: now, completed: stale)?.low == decimal("80"), "kept figures of another minute are not used")
    }

    @Test func pointsAreEvenlySpacedWithGapsAsNil() {
        // Minutes 0–9 known, 10–19 missing, 20–59 known; the hour ends at minute 59.
        var closes: [(Int64, String)] = (0..<10).map { ($0, "\(100 + $0)") }
        closes += (20..<60).map { ($0, "\(200 + $0)") }
        let history = self.history(closes)
        let points = history.points(over: .hour, count: 6, now: at(minutes: 59, seconds: 59))
        #expect(points.count == 6)
        #expect(points.map(\.close) == [decimal("109"), nil, decimal("229"), decimal("239"), decimal("249"), decimal("259")])
        #expect(points.last?.time == at(minutes: 59, seconds: 59))
        #expect(points[1].time.milliseconds(since: points[0].time) == 600_000)
    }

    @Test func morePointsThanMinutesRepeatNoBarAndLeaveGaps() {
        let history = self.history([(0, "100"), (2, "102")])
        let points = history.points(over: .hour, count: 1000, now: at(minutes: 2, seconds: 30))
        #expect(points.count == 1000)
        #expect(points.last?.close == decimal("102"))
        #expect(points.compactMap(\.close).count < 60, "a 3.6 s step sees a bar only during its own minute")
        #expect(points.contains { $0.close == nil })
    }

    @Test func onlyAWeekAndTheToleranceAreKept() {
        var history = PriceHistory()
        for minute in stride(from: Int64(0), through: 12_000, by: 1) { history.record(decimal("100"), at: at(minutes: minute)) }
        #expect(Int64(history.bars.count) <= PriceHistory.retainedMinutes + 60)
        #expect(history.bars.first!.minute >= MinuteBar.minute(of: at(minutes: 12_000)) - PriceHistory.retainedMinutes - 60)
        #expect(history.reference(for: .week, now: at(minutes: 12_000)) != nil)
    }

    @Test func restoredBarsAreSortedAndDeduplicated() {
        let bar = { (minute: Int64, price: String) in MinuteBar(minute: minute, open: self.decimal(price), high: self.decimal(price), low: self.decimal(price), close: self.decimal(price)) }
        let history = PriceHistory(bars: [bar(3, "3"), bar(1, "1"), bar(3, "4")])
        #expect(history.bars.map(\.minute) == [1, 3] && history.bars.last?.close == decimal("4"))
    }

    @Test func percentChangeIsExact() {
        #expect(PercentChange.between(decimal("3"), decimal("4")).description.hasPrefix("33.33333333"))
        #expect(PercentChange.between(decimal("100000"), decimal("99999.996")) == decimal("-0.000004"))
    }
}
