import FoundationEssentials
import PriceCore
import Testing

/// Which minutes a backfill asks for, and how filled candles join the history: never over a
/// minute the daemon saw itself.
@Suite("Backfill: the plan and the fill")
struct BackfillPlanTests {
    /// 2026-11-01T00:00:00Z, a whole minute.
    static let now = Timestamp(millisecondsSinceEpoch: 1_793_491_200_000)
    static let nowMinute = MinuteBar.minute(of: now)

    func bar(_ minute: Int64, _ price: String) -> MinuteBar {
        let value = Decimal(string: price)!
        return MinuteBar(minute: minute, open: value, high: value, low: value, close: value)
    }

    @Test func anEmptyHistoryAsksForTheWholeWeekNewestFirstInVenueSizedRequests() {
        let plan = BackfillPlan(history: PriceHistory(), now: Self.now, perRequest: 1000)
        #expect(plan.requests.count == 11, "10,080 minutes in requests of 1,000: \(plan.requests.count)")
        #expect(plan.requests.first == (Self.nowMinute - 1000)...(Self.nowMinute - 1), "the newest minutes first, not now's own")
        #expect(plan.requests.last == (Self.nowMinute - 10_080)...(Self.nowMinute - 10_001), "the last request is the week's oldest 80")
        #expect(plan.requests.reduce(0) { $0 + $1.count } == 10_080)
        #expect(BackfillPlan.missing(in: PriceHistory(), now: Self.now) == 10_080)
    }

    @Test func onlyTheGapsAreAskedForAndAFullWeekAsksNothing() {
        // The daemon ran for the last hour, and for an hour two days ago.
        let seen = (1...60).map { bar(Self.nowMinute - $0, "114000") } + (2880..<2940).map { bar(Self.nowMinute - Int64($0), "113000") }
        let history = PriceHistory(bars: seen)
        let plan = BackfillPlan(history: history, now: Self.now, perRequest: 1000)
        #expect(plan.requests.first == (Self.nowMinute - 1060)...(Self.nowMinute - 61), "the gap right before the last hour: \(plan.requests)")
        #expect(plan.requests.allSatisfy { request in !seen.contains { request.contains($0.minute) } || request.count == 1000 },
                "a request spans seen minutes only when it runs on past them: \(plan.requests)")
        #expect(BackfillPlan.missing(in: history, now: Self.now) == 10_080 - 120)
        let tenMissing = PriceHistory(bars: (1...10_080).filter { !(30..<40).contains($0) }.map { bar(Self.nowMinute - Int64($0), "114000") })
        #expect(BackfillPlan(history: tenMissing, now: Self.now, perRequest: 1000).requests == [(Self.nowMinute - 39)...(Self.nowMinute - 30)],
                "ten minutes missing are ten minutes asked")
        let full = PriceHistory(bars: (1...10_080).map { bar(Self.nowMinute - Int64($0), "114000") })
        #expect(BackfillPlan(history: full, now: Self.now, perRequest: 1000).requests.isEmpty)
    }

    @Test func aFillNeverOverwritesASeenMinuteAndSaysWhatItFilled() {
        var history = PriceHistory(bars: [bar(Self.nowMinute - 2, "114000")])
        let candles = [bar(Self.nowMinute - 3, "113900"), bar(Self.nowMinute - 2, "1"), bar(Self.nowMinute - 1, "114100"), bar(Self.nowMinute + 5, "2")]
        let filled = history.fill(candles, within: (Self.nowMinute - 3)...(Self.nowMinute - 1), from: "binance")
        #expect(filled == [Self.nowMinute - 3, Self.nowMinute - 1], "\(filled)")
        #expect(history.bars.map(\.close) == [Decimal(string: "113900")!, Decimal(string: "114000")!, Decimal(string: "114100")!],
                "the seen minute keeps its own price, and nothing outside the range joins: \(history.bars)")
        #expect(history.fill(candles, within: (Self.nowMinute - 3)...(Self.nowMinute - 1), from: "coinbase").isEmpty, "a second fill adds nothing")
        #expect(history.filled == [FilledSpan(minutes: (Self.nowMinute - 3)...(Self.nowMinute - 3), source: "binance"),
                                   FilledSpan(minutes: (Self.nowMinute - 1)...(Self.nowMinute - 1), source: "binance")],
                "the seen minute between them is not marked filled: \(history.filled)")
    }

    @Test func filledSpansMergeAcrossRequestsAndAreCutAsTheWeekMovesOn() {
        var history = PriceHistory()
        let first = (Self.nowMinute - 2000)...(Self.nowMinute - 1001), second = (Self.nowMinute - 1000)...(Self.nowMinute - 1)
        history.fill(second.map { bar($0, "114000") }, within: second, from: "binance")
        history.fill(first.map { bar($0, "113000") }, within: first, from: "binance")
        #expect(history.filled == [FilledSpan(minutes: (Self.nowMinute - 2000)...(Self.nowMinute - 1), source: "binance")], "\(history.filled)")
        #expect(history.filled(from: Self.nowMinute - 60, through: Self.nowMinute) == [FilledSpan(minutes: (Self.nowMinute - 60)...(Self.nowMinute - 1), source: "binance")])
        // A week and more later, recording prunes the filled minutes with their bars.
        let later = Timestamp(millisecondsSinceEpoch: (Self.nowMinute + PriceHistory.retainedMinutes - 1500 + 61) * 60_000)
        history.record(Decimal(string: "115000")!, at: later)
        #expect(history.filled.first?.minutes.lowerBound == history.bars.first?.minute, "cut where the bars are: \(history.filled), first bar \(String(describing: history.bars.first?.minute))")
        #expect(history.filled.count == 1 && history.filled.first?.minutes.upperBound == Self.nowMinute - 1)
    }

    @Test func aBatchKeepsConsistentCandlesOncePerMinuteOldestFirstAndCountsTheRest() {
        let inconsistent = MinuteBar(minute: 7, open: 5, high: 4, low: 6, close: 5)
        let batch = CandleBatch(reading: [bar(9, "3"), nil, bar(8, "2"), inconsistent, bar(9, "4")])
        #expect(batch.bars.map(\.minute) == [8, 9] && batch.bars.last?.close == 4, "\(batch.bars)")
        #expect(batch.skipped == 2)
    }
}
