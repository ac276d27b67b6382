import Exchanges
import Foundation
import PriceCore
import Testing

/// Each venue's one-minute candles, recorded as the venue sends them, read into exact minute
/// bars; and the requests that ask for them.
@Suite("Candle parsers on recorded bodies")
struct CandleParserTests {
    /// 2026-10-31T10:40:00Z, minute 29,890,000 since the epoch.
    static let minute: Int64 = 29_890_000

    static func summary(_ batch: CandleBatch) -> [String] {
        batch.bars.map { "\($0.minute - minute) \($0.open) \($0.high) \($0.low) \($0.close)" }
    }

    static let expected = ["0 114459.8 114470 114455.5 114461.2", "1 114461.2 114461.2 114461.2 114461.2", "2 114461.2 114480.1 114450 114479.99"]

    @Test func everyVenuesCandlesGiveTheSameExactBarsOldestFirst() throws {
        #expect(Self.summary(try BinanceCandles.parse(VenueParserTests.fixture("binance-klines"))) == Self.expected)
        #expect(Self.summary(try CoinbaseCandles.parse(VenueParserTests.fixture("coinbase-candles"))) == Self.expected, "Coinbase sends newest first")
        #expect(Self.summary(try KrakenCandles.parse(VenueParserTests.fixture("kraken-ohlc"))) == Self.expected)
        #expect(Self.summary(try BitstampCandles.parse(VenueParserTests.fixture("bitstamp-ohlc"))) == Self.expected)
    }

    @Test func malformedCandlesAreSkippedAndCountedWhileTheRestFill() throws {
        let batch = try BinanceCandles.parse(VenueParserTests.fixture("binance-klines-partial"))
        #expect(Self.summary(batch) == [Self.expected[0], "4 114479.99 114490 114470 114488"], "\(Self.summary(batch))")
        #expect(batch.skipped == 4, "high below low, a start off the minute, an exponent, a short row: \(batch.skipped)")
    }

    @Test func errorsAndOtherMarketsAreNamed() throws {
        #expect(throws: FetchFailure.wrongSymbol(expected: "XBTEUR", got: "XXBTZUSD")) {
            try KrakenCandles.parse(VenueParserTests.fixture("kraken-ohlc"), currency: "EUR")
        }
        #expect(throws: FetchFailure.wrongSymbol(expected: "BTC/EUR", got: "BTC/USD")) {
            try BitstampCandles.parse(VenueParserTests.fixture("bitstamp-ohlc"), currency: "EUR")
        }
        #expect(throws: FetchFailure.exchangeError("HTTP 400: Invalid symbol.")) {
            try BinanceCandles.parse(ExchangeResponse(status: 400, body: #"{"code":-1121,"msg":"Invalid symbol."}"#))
        }
        #expect(throws: FetchFailure.rateLimited(retryAfter: .seconds(30))) {
            try CoinbaseCandles.parse(ExchangeResponse(status: 429, retryAfter: "30", body: #"{"message":"too many requests"}"#))
        }
        #expect(throws: FetchFailure.missingField("candles")) { try CoinbaseCandles.parse(ExchangeResponse(status: 200, body: "{}")) }
    }

    @Test func eachRequestAsksForItsMinutesInTheVenuesTerms() throws {
        let minutes = Self.minute...(Self.minute + 999)
        #expect(BinanceCandles.path(symbol: "BTCUSDT", interval: .minute, slots: minutes)
                == "/api/v3/klines?symbol=BTCUSDT&interval=1m&startTime=1793400000000&endTime=1793459999999&limit=1000")
        #expect(CoinbaseCandles.path(currency: "EUR", interval: .minute, slots: Self.minute...(Self.minute + 349))
                == "/api/v3/brokerage/market/products/BTC-EUR/candles?start=1793400000&end=\((Self.minute + 349) * 60 + 59)&granularity=ONE_MINUTE&limit=350")
        #expect(KrakenCandles.path(currency: "USD", interval: .minute, slots: minutes) == "/0/public/OHLC?pair=XBTUSD&interval=1&since=1793399940")
        #expect(BitstampCandles.path(currency: "GBP", interval: .minute, slots: minutes) == "/api/v2/ohlc/btcgbp/?step=60&limit=1000&start=1793400000")
        // Days: 2017-08-17 (day 17395) on, in each venue's own interval name and units.
        let days: ClosedRange<Int64> = 17395...18394
        #expect(BinanceCandles.path(symbol: "BTCUSDT", interval: .day, slots: days)
                == "/api/v3/klines?symbol=BTCUSDT&interval=1d&startTime=1502928000000&endTime=1589327999999&limit=1000")
        #expect(CoinbaseCandles.path(currency: "USD", interval: .day, slots: 17395...17744)
                == "/api/v3/brokerage/market/products/BTC-USD/candles?start=1502928000&end=1533167999&granularity=ONE_DAY&limit=350")
        #expect(KrakenCandles.path(currency: "EUR", interval: .day, slots: days) == "/0/public/OHLC?pair=XBTEUR&interval=1440&since=1502841600")
        #expect(BitstampCandles.path(currency: "USD", interval: .day, slots: days) == "/api/v2/ohlc/btcusd/?step=86400&limit=1000&start=1502928000")
        let venues = Venue.catalog.filter { $0.candles != nil }.map(\.name.rawValue)
        #expect(venues == ["binance", "coinbase", "kraken", "bitstamp"], "every venue in the default keyless chain has candles: \(venues)")
    }
}
