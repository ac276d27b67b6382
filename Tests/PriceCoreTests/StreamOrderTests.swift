import PriceCore
import Testing

/// The venues' own order fields decide what may replace the served price, and the venue's time
/// is where a streamed quote's age starts.
@Suite("Stream order and the exchange's time")
struct StreamOrderTests {
    func quote(_ price: String) -> SourceQuote { SourceQuote(price: try! Price(parsing: price), symbol: "BTCUSDT", quoteAsset: "USDT") }
    func stamp(_ milliseconds: Int64, id: Int64? = nil) -> TradeStamp { TradeStamp(milliseconds: milliseconds, tradeID: id)! }

    /// Which of `events`, in arrival order, one venue's order rule applies.
    func applied(_ events: [StreamEvent]) -> [Bool] {
        var order = StreamOrder()
        return events.map { order.admits($0) }
    }

    @Test func aTradeOlderThanTheNewestAppliedNeverReplacesIt() {
        #expect(applied([
            .trade(quote("70702.5"), stamp(2_000, id: 11)),
            .trade(quote("70690.5"), stamp(1_000, id: 10)),  // older time and id, arriving late
            .trade(quote("70690.5"), stamp(2_000, id: 11)),  // the same trade again
            .trade(quote("70690.5"), stamp(2_000, id: 10)),  // same millisecond, an earlier trade
            .trade(quote("70710"), stamp(2_000, id: 12)),    // same millisecond, the next trade
            .trade(quote("70711"), stamp(2_500, id: 13)),
        ]) == [true, false, false, false, true, true])
    }

    @Test func aTickerCloseNeverOverridesANewerTrade() {
        #expect(applied([
            .trade(quote("70702.5"), stamp(5_000, id: 1)),
            .tickerClose(quote("70690.5"), stamp(4_000)),    // the miniTicker lags the last trade
            .tickerClose(quote("70690.5"), stamp(5_000)),    // at the trade's own time: that trade or older
            .tickerClose(quote("70705"), stamp(6_000)),      // newer than every trade applied
            .trade(quote("70690.5"), stamp(5_500, id: 2)),   // and then an older trade does not move it back
        ]) == [true, false, false, true, false])
    }

    @Test func unstampedMessagesApplyInArrivalOrderButAnUnstampedCloseNeverFollowsATrade() {
        #expect(applied([
            .tickerClose(quote("1"), nil),                   // before any trade, a close is the best there is
            .trade(quote("2"), nil),
            .trade(quote("3"), nil),
            .tickerClose(quote("1"), nil),
            .alive, .closingSoon,
        ]) == [true, true, true, false, true, true])
    }

    @Test func aStreamedQuoteIsAgedFromTheVenuesTime() {
        let now = Timestamp(millisecondsSinceEpoch: 1_763_797_203_511)
        let (hourAgo, age) = ExchangeTime.stamp(stamp(now.millisecondsSinceEpoch - 3_600_000), receivedAt: now)
        #expect(hourAgo.millisecondsSinceEpoch == now.millisecondsSinceEpoch - 3_600_000 && age == .seconds(3600),
                "a trade stamped an hour ago is an hour old: \(hourAgo), \(age)")
        let (recent, lag) = ExchangeTime.stamp(stamp(now.millisecondsSinceEpoch - 40), receivedAt: now)
        #expect(recent.millisecondsSinceEpoch == now.millisecondsSinceEpoch - 40 && lag == .milliseconds(40))
        let (ahead, none) = ExchangeTime.stamp(stamp(now.millisecondsSinceEpoch + 1_500), receivedAt: now)
        #expect(ahead.millisecondsSinceEpoch == now.millisecondsSinceEpoch + 1_500 && none == .zero, "within the clock tolerance")
        let (skewed, zero) = ExchangeTime.stamp(stamp(now.millisecondsSinceEpoch + 60_000), receivedAt: now)
        #expect(skewed == now && zero == .zero, "a local clock a minute behind: stamped now, never in the future")
        #expect(ExchangeTime.stamp(nil, receivedAt: now) == (now, .zero))
    }
}
