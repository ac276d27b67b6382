import Exchanges
import Foundation
import PriceCore
import Testing

/// The pure parsers against bodies shaped exactly as each venue sends them (Fixtures/).
@Suite("Venue parsers on recorded bodies")
struct VenueParserTests {
    static func fixture(_ name: String, status: Int = 200, usedWeight: String? = nil) throws -> ExchangeResponse {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name).json")
        return ExchangeResponse(status: status, usedWeight: usedWeight, body: Array(try Data(contentsOf: url)))
    }

    func outcome(_ parse: () throws(FetchFailure) -> SourceQuote) -> Result<SourceQuote, FetchFailure> {
        do throws(FetchFailure) { return .success(try parse()) } catch { return .failure(error) }
    }

    @Test func eachVenueGivesItsExactPriceSymbolAndQuoteAsset() throws {
        let binance = try BinanceAPI.parse(Self.fixture("binance-ticker-price"), expectedSymbol: "BTCUSDT")
        #expect(binance.price.description == "85866.18" && binance.symbol == "BTCUSDT" && binance.quoteAsset == "USDT")
        let coinbase = try CoinbaseAPI.parse(Self.fixture("coinbase-spot"))
        #expect(coinbase.price.description == "85866.185" && coinbase.symbol == "BTC-USD" && coinbase.quoteAsset == "USD")
        let kraken = try KrakenAPI.parse(Self.fixture("kraken-ticker"))
        #expect(kraken.price.description == "85866.1" && kraken.symbol == "XXBTZUSD" && kraken.quoteAsset == "USD")
        let bitstamp = try BitstampAPI.parse(Self.fixture("bitstamp-ticker"))
        #expect(bitstamp.price.description == "85866" && bitstamp.symbol == "btcusd" && bitstamp.quoteAsset == "USD")
        let cryptoCompare = try CryptoCompareAPI.parse(Self.fixture("cryptocompare-price"))
        #expect(cryptoCompare.price.description == "85866.19" && cryptoCompare.quoteAsset == "USD")
    }

    @Test func venuesThatStateTheDaysFiguresGiveThemExactly() throws {
        let binance = try BinanceAPI.parseDay(Self.fixture("binance-ticker-24hr-mini", usedWeight: "4"), expectedSymbol: "BTCUSDT")
        #expect(binance.price.description == "85866.18" && binance.quoteAsset == "USDT")
        #expect(binance.day.map { "\($0.open!) \($0.high) \($0.low)" } == "84712.01 86420 83820.1")
        #expect(try BinanceAPI.parse(Self.fixture("binance-ticker-price"), expectedSymbol: "BTCUSDT").day == nil)
        let bitstamp = try BitstampAPI.parse(Self.fixture("bitstamp-ticker"))
        #expect(bitstamp.day.map { "\($0.open!) \($0.high) \($0.low)" } == "84712 86420 83820", "open_24, not the day's open")
        let kraken = try KrakenAPI.parse(Self.fixture("kraken-ticker"))
        #expect(kraken.day.map { "\($0.open == nil) \($0.high) \($0.low)" } == "true 86420 83820.1", "h[1] and l[1]; o is today's UTC open")
        #expect(try CoinbaseAPI.parse(Self.fixture("coinbase-spot")).day == nil)
    }

    @Test func brokenDayFiguresNeverCostThePrice() throws {
        let body = #"{"symbol":"BTCUSDT","openPrice":"x","highPrice":"1","lowPrice":"2","lastPrice":"85866.18"}"#
        let quote = try BinanceAPI.parseDay(ExchangeResponse(status: 200, body: body), expectedSymbol: "BTCUSDT")
        #expect(quote.price.description == "85866.18" && quote.day == nil, "a low above the high is no range")
        #expect(throws: FetchFailure.wrongSymbol(expected: "BTCUSDT", got: "ETHUSDT")) {
            try BinanceAPI.parseDay(ExchangeResponse(status: 200, body: #"{"symbol":"ETHUSDT","lastPrice":"1"}"#), expectedSymbol: "BTCUSDT")
        }
    }

    @Test func errorShapes() throws {
        #expect(outcome { () throws(FetchFailure) in try CoinbaseAPI.parse(try! Self.fixture("coinbase-error", status: 404)) }
                == .failure(.exchangeError("HTTP 404: Invalid base currency")))
        #expect(outcome { () throws(FetchFailure) in try KrakenAPI.parse(try! Self.fixture("kraken-error")) }
                == .failure(.exchangeError("EQuery:Unknown asset pair")))
        #expect(outcome { () throws(FetchFailure) in try KrakenAPI.parse(try! Self.fixture("kraken-rate-limit")) }
                == .failure(.rateLimited(retryAfter: nil)))
        #expect(outcome { () throws(FetchFailure) in try BitstampAPI.parse(try! Self.fixture("bitstamp-rate-limit", status: 400)) }
                == .failure(.rateLimited(retryAfter: nil)))
        #expect(outcome { () throws(FetchFailure) in try CryptoCompareAPI.parse(try! Self.fixture("cryptocompare-401", status: 401)) }
                == .failure(.unauthorized("API key required, please refer to the documentation at https://developers.coindesk.com/")))
        #expect(outcome { () throws(FetchFailure) in try CryptoCompareAPI.parse(try! Self.fixture("cryptocompare-auth-200")) }
                == .failure(.unauthorized("You need a valid auth key or api key to access this endpoint")))
        #expect(outcome { () throws(FetchFailure) in try CryptoCompareAPI.parse(try! Self.fixture("cryptocompare-rate-limit")) }
                == .failure(.rateLimited(retryAfter: nil)))
    }

    /// Coinbase's reference table, with tokens among the currencies: the one asked, exactly as
    /// written, labelled as a rate; a currency it lacks or another base is refused by name.
    @Test func theReferenceTableGivesTheCurrencyAskedAsARate() throws {
        let koruna = try CoinbaseRatesAPI.parse(Self.fixture("coinbase-exchange-rates-btc"), currency: "CZK")
        #expect("\(koruna.price) \(koruna.symbol) \(koruna.quoteAsset)" == "1792816.36 BTC-CZK rate CZK")
        let yen = try CoinbaseRatesAPI.parse(Self.fixture("coinbase-exchange-rates-btc"), currency: "JPY")
        #expect(yen.price.description == "13346711")
        #expect(outcome { () throws(FetchFailure) in try CoinbaseRatesAPI.parse(try! Self.fixture("coinbase-exchange-rates-btc"), currency: "KPW") }
                == .failure(.missingField("data.rates.KPW")))
        let otherBase = ExchangeResponse(status: 200, body: Array(#"{"data":{"currency":"ETH","rates":{"CZK":"71234.5"}}}"#.utf8))
        #expect(outcome { () throws(FetchFailure) in try CoinbaseRatesAPI.parse(otherBase, currency: "CZK") }
                == .failure(.wrongSymbol(expected: "BTC", got: "ETH")))
        let refused = ExchangeResponse(status: 400, body: Array(#"{"errors":[{"id":"invalid_request","message":"Invalid currency (BTCX)"}]}"#.utf8))
        #expect(outcome { () throws(FetchFailure) in try CoinbaseRatesAPI.parse(refused, currency: "CZK") }
                == .failure(.exchangeError("HTTP 400: Invalid currency (BTCX)")))
        let limited = ExchangeResponse(status: 429, body: Array(#"{"errors":[{"id":"rate_limit_exceeded","message":"Too many requests"}]}"#.utf8))
        #expect(outcome { () throws(FetchFailure) in try CoinbaseRatesAPI.parse(limited, currency: "CZK") } == .failure(.rateLimited(retryAfter: nil)))
    }

    /// The spot prices and the table share one published limit on one host: all instances
    /// together stay under it with both asked at their host-wide pace.
    @Test func theSpotPricesAndTheReferenceTableShareCoinbasesHourlyLimit() {
        let perHour = { (limits: SourceLimits) in Duration.seconds(3600) / limits.hostPace }
        let together = perHour(CoinbaseAPI.limits) + perHour(CoinbaseRatesAPI.limits)
        #expect(together <= Double(CoinbaseRatesAPI.hourlyLimitSharedWithSpot) * 0.97,
                "spot \(perHour(CoinbaseAPI.limits)) + table \(perHour(CoinbaseRatesAPI.limits)) an hour against \(CoinbaseRatesAPI.hourlyLimitSharedWithSpot)")
    }

    @Test func aRefusedKeyAndARateLimitRestTheSource() {
        #expect(FetchFailure.unauthorized("x").cooldown == .seconds(600))
        #expect(FetchFailure.rateLimited(retryAfter: nil).cooldown == FetchFailure.defaultRateLimitPause)
    }

    @Test("Binance's quote asset comes from the configured symbol", arguments: [
        ("BTCUSDT", "USDT"), ("BTCUSDC", "USDC"), ("BTCFDUSD", "FDUSD"), ("BTCUSD", "USD"),
    ])
    func binanceQuoteAsset(symbol: String, asset: String) {
        #expect(BinanceAPI.quoteAsset(symbol: symbol) == asset)
    }

    @Test func binanceIsRestedBeforeItsWeightLimitNotAfter() throws {
        let calm = try BinanceAPI.parse(Self.fixture("binance-ticker-price", usedWeight: "4798"), expectedSymbol: "BTCUSDT")
        #expect(calm.pauseRequested == nil)
        let busy = try BinanceAPI.parse(Self.fixture("binance-ticker-price", usedWeight: "4800"), expectedSymbol: "BTCUSDT")
        #expect(busy.pauseRequested == BinanceAPI.weightPause)
        #expect(BinanceAPI.weightPauseThreshold < BinanceAPI.weightLimitPerMinute)
    }
}
