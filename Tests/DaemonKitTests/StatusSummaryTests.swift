import DaemonKit
import DaemonKitTesting
import PriceCore
import Testing
import WireProtocol

@Suite("STATUS= summary line")
struct StatusSummaryTests {
    let quote = Quote(price: try! Price(parsing: "114459.8"), currency: "USDT", symbol: "BTCUSDT", source: .binance, timestamp: Timestamp(millisecondsSinceEpoch: 0))

    @Test func fresh() {
        let freshness = Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 412), staleAfter: .seconds(10))
        #expect(StatusSummary.status(quote: quote, freshness: freshness, failures: nil)
            == DaemonStatus(kind: .fresh, text: "BTC/USDT 114459.80 via binance (BTCUSDT), 0.4s old"))
    }

    @Test func waitingThenFailing() {
        let freshness = Freshness(of: nil, at: Timestamp(millisecondsSinceEpoch: 0), staleAfter: .seconds(10))
        #expect(StatusSummary.status(quote: nil, freshness: freshness, failures: nil) == DaemonStatus(kind: .waiting, text: "waiting for first quote"))
        #expect(StatusSummary.status(quote: nil, freshness: freshness, failures: "binance: timeout after 800ms")
            == DaemonStatus(kind: .failing, text: "waiting for first quote; binance: timeout after 800ms"))
    }

    @Test func stale() {
        let freshness = Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 42_000), staleAfter: .seconds(10))
        #expect(StatusSummary.status(quote: quote, freshness: freshness, failures: "binance: HTTP 451 (geo-restricted)")
            == DaemonStatus(kind: .stale, text: "STALE 42s: binance: HTTP 451 (geo-restricted); last BTC/USDT 114459.80 via binance"))
    }

    @Test func compactAges() {
        #expect(AgeText.compact(milliseconds: 192_000) == "3m12s")
        #expect(AgeText.compact(milliseconds: 7_500_000) == "2h05m")
    }
}
