import AsyncHTTPClient
import Foundation
import ExchangeHTTP
import Exchanges
import FakeExchange
import PriceCore
import Testing

/// Each real-world failure shape, served over real HTTP by the fake exchange.
@Suite("Exchanges against the fake exchange over HTTP", .serialized)
struct ExchangeTests {
    static let client = HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup)

    static func source(_ market: Market, baseURL: String, symbol: String = "BTCUSDT", apiKey: String? = nil,
                       timeout: Duration = .seconds(2)) -> HTTPPriceSource {
        var options = VenueOptions(values: [Venue.binanceSymbolSetting.key: symbol])
        options.values[Venue.cryptoCompareAPIKey.key] = apiKey
        return Venue.named(SourceName(market.rawValue))!.source(baseURL: baseURL, options, client: client, timeout: timeout, userAgent: "test")
    }

    func fetch(_ market: Market, _ behavior: Behavior, symbol: String = "BTCUSDT") async throws -> Result<SourceQuote, FetchFailure> {
        let exchange = try await FakeExchange.start()
        defer { Task { await exchange.shutdown() } }
        exchange.set(market, behavior)
        let source = Self.source(market, baseURL: exchange.baseURL + "/", symbol: symbol, apiKey: "k")
        do {
            return .success(try await source.fetchQuote())
        } catch let failure as FetchFailure {
            return .failure(failure)
        }
    }

    @Test func binancePriceIsExact() async throws {
        let quote = try await fetch(.binance, .price("68901.23000000")).get()
        #expect(quote.price.description == "68901.23")
        #expect(quote.symbol == "BTCUSDT")
    }

    @Test("CryptoCompare's JSON number reaches Decimal without Double", arguments: ["68901.23", "0.00000001", "999999999999.99999999"])
    func cryptoCompareNumberIsExact(literal: String) async throws {
        let quote = try await fetch(.cryptocompare, .price(literal)).get()
        #expect(quote.price.description == literal)
        #expect(quote.symbol == "BTCUSD")
    }

    @Test("failures map to specific errors", arguments: [
        (Market.binance, Behavior.status(503), FetchFailure.httpStatus(503)),
        (.binance, .status(403), .htmlPage(status: 403)),
        (.binance, .status(429, retryAfter: 7), .rateLimited(retryAfter: .seconds(7))),
        (.binance, .status(418, retryAfter: 120), .rateLimited(retryAfter: .seconds(120))),
        (.binance, .status(429), .rateLimited(retryAfter: nil)),
        (.binance, .status(451), .geoRestricted),
        (.binance, .html, .htmlPage(status: 200)),
        (.binance, .challenge, .htmlPage(status: 403)),
        (.coinbase, .challenge, .htmlPage(status: 403)),
        (.bitstamp, .challenge, .htmlPage(status: 403)),
        (.cryptocompare, .challenge, .htmlPage(status: 403)),
        (.binance, .oversized, .bodyTooLarge(limit: 65536)),
        (.binance, .apiError, .exchangeError("HTTP 400: Invalid symbol.")),
        (.binance, .wrongSymbol, .wrongSymbol(expected: "BTCUSDT", got: "ETHUSDT")),
        (.binance, .body(#"{"symbol":"BTCUSDT"}"#), .missingField("price")),
        (.binance, .price("0"), .invalidPrice(.notPositive("0"))),
        (.binance, .price("-5"), .invalidPrice(.notPositive("-5"))),
        (.binance, .price("1e15"), .invalidPrice(.absurd("1e15"))),
        (.cryptocompare, .rateLimitError, .rateLimited(retryAfter: nil)),
        (.cryptocompare, .authError, .unauthorized("API key required, please refer to the documentation at https://developers.coindesk.com/")),
        (.cryptocompare, .authError200, .unauthorized("You need a valid auth key or api key to access this endpoint")),
        (.cryptocompare, .body(#"{"Response":"Error","Message":"fsym param is invalid","Type":2}"#), .exchangeError("fsym param is invalid")),
        (.coinbase, .apiError, .exchangeError("HTTP 404: Invalid base currency")),
        (.coinbase, .rateLimitError, .rateLimited(retryAfter: nil)),
        (.coinbase, .wrongSymbol, .wrongSymbol(expected: "BTC-USD", got: "BTC-EUR")),
        (.coinbase, .status(503), .httpStatus(503)),
        (.coinbase, .body(#"{"data":{"base":"BTC","currency":"USD"}}"#), .missingField("data.amount")),
        (.kraken, .apiError, .exchangeError("EQuery:Unknown asset pair")),
        (.kraken, .rateLimitError, .rateLimited(retryAfter: nil)),
        (.kraken, .wrongSymbol, .wrongSymbol(expected: "XBTUSD", got: "XXBTZEUR")),
        (.kraken, .body(#"{"error":[],"result":{}}"#), .exchangeError("expected one pair in result, got 0")),
        (.kraken, .status(429), .rateLimited(retryAfter: nil)),
        (.kraken, .html, .htmlPage(status: 200)),
        (.kraken, .challenge, .htmlPage(status: 403)),
        (.bitstamp, .apiError, .exchangeError("HTTP 404: Invalid currency pair.")),
        (.bitstamp, .rateLimitError, .rateLimited(retryAfter: nil)),
        (.bitstamp, .wrongSymbol, .missingField("last")),
        (.bitstamp, .status(429, retryAfter: 9), .rateLimited(retryAfter: .seconds(9))),
        (.bitstamp, .body(""), .notJSON("empty body")),
        (.cryptocompare, .wrongSymbol, .missingField("USD")),
        (.cryptocompare, .body(#"{"USD":"abc"}"#), .invalidPrice(.notANumber("abc"))),
        (.cryptocompare, .status(500), .httpStatus(500)),
        (.mempool, .apiError, .exchangeError("no BTC/USD price yet (USD: -1); its price updater has not reached any exchange")),
        (.mempool, .rateLimitError, .rateLimited(retryAfter: nil)),
        (.mempool, .wrongSymbol, .missingField("USD")),
        (.mempool, .challenge, .htmlPage(status: 403)),
        (.mempool, .status(502), .httpStatus(502)),
    ])
    func failureShapes(market: Market, behavior: Behavior, expected: FetchFailure) async throws {
        #expect(try await fetch(market, behavior) == .failure(expected))
    }

    @Test func invalidJSONNamesTheProblem() async throws {
        guard case .failure(.notJSON(let reason)) = try await fetch(.binance, .invalidJSON) else {
            Issue.record("invalid JSON was not reported as such")
            return
        }
        #expect(reason.contains("invalid JSON"))
    }

    @Test func anUnknownHostIsAShortDNSFailure() async throws {
        let source = Self.source(.binance, baseURL: "https://no-such-host.invalid")
        await #expect { try await source.fetchQuote() } throws: { ($0 as? FetchFailure) == .transport("DNS lookup failed") }
    }

    @Test func connectionRefusedIsATransportFailure() async throws {
        let source = Self.source(.binance, baseURL: "http://127.0.0.1:1")
        await #expect(throws: FetchFailure.self) { try await source.fetchQuote() }
    }

    /// A venue that never answers would hold the fetch forever; the time limit catches that.
    @Test(.timeLimit(.minutes(1))) func hungExchangeIsCutOffByTheFetcherTimeout() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .hang)
        exchange.set(.cryptocompare, .price("68000.5"))
        let sources: [any PriceSource] = [
            Self.source(.binance, baseURL: exchange.baseURL, timeout: .milliseconds(300)),
            Self.source(.cryptocompare, baseURL: exchange.baseURL, apiKey: "k", timeout: .milliseconds(300)),
        ]
        let attempts = await FallbackFetcher(sources: sources, timeout: .milliseconds(300), clock: ContinuousClock()).fetch { _ in nil }.attempts
        #expect(attempts.first == .failed(.binance, .timeout(after: .milliseconds(300))))
        guard case .succeeded(let source, let quote)? = attempts.last else { Issue.record("the fallback did not answer: \(attempts)"); return }
        let expected = try Price(parsing: "68000.5")
        #expect(source == .cryptoCompare && quote.price == expected && quote.symbol == "BTCUSD" && quote.quoteAsset == "USD")
        await exchange.shutdown()
    }
}

@Suite("Venues over HTTP: requests as the venues expect them", .serialized)
struct VenueRequestTests {
    @Test("every venue's real path, exact price and quote asset", arguments: [
        (Market.binance, "85866.18000000", "85866.18", "USDT"),
        (.coinbase, "85866.185", "85866.185", "USD"),
        (.kraken, "85866.10000", "85866.1", "USD"),
        (.bitstamp, "85866", "85866", "USD"),
        (.cryptocompare, "85866.19", "85866.19", "USD"),
        (.mempool, "85866", "85866", "USD"),
    ])
    func everyVenue(market: Market, literal: String, exact: String, asset: String) async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(market, .price(literal))
        let quote = try await ExchangeTests.source(market, baseURL: exchange.baseURL, apiKey: "k").fetchQuote()
        #expect(quote.price.description == exact)
        #expect(quote.quoteAsset == asset)
        #expect(exchange.requestCount(market) == 1)
        await exchange.shutdown()
    }

    /// A cache keeps the origin's `Date` and says how long it held the answer in `Age`: the
    /// answer is dated when the origin made it, never when it reached the daemon.
    @Test func aCachedAnswerIsDatedAtItsOrigin() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.coinbase, .cached(ageSeconds: 30, price: "85866.185"))
        let quote = try await ExchangeTests.source(.coinbase, baseURL: exchange.baseURL).fetchQuote()
        // Dated on the fake's own record of the second it answered in, not on this host's clock
        // read around the request: the answer's Date is that second less the 30 s held.
        let answered = try #require(exchange.requests(.coinbase).last?.dated)
        #expect(quote.cacheAge == .seconds(30), "Age: \(quote.cacheAge)")
        #expect(quote.originTime == Timestamp(millisecondsSinceEpoch: (answered - 30) * 1000), "Date: \(String(describing: quote.originTime)), answered in second \(answered)")
        let stamp = ExchangeTime.stamp(origin: quote.originTime, cacheAge: quote.cacheAge, receivedAt: Timestamp(millisecondsSinceEpoch: answered * 1000))
        #expect(stamp.ageOnArrival == .seconds(30), "the origin's Date and Age 30 make \(stamp.ageOnArrival), not 30 s")
        exchange.set(.coinbase, .price("85866.185"))
        let fresh = try await ExchangeTests.source(.coinbase, baseURL: exchange.baseURL).fetchQuote()
        let direct = try #require(exchange.requests(.coinbase).last?.dated)
        #expect(fresh.originTime == Timestamp(millisecondsSinceEpoch: direct * 1000), "a direct answer is dated by its Date: \(String(describing: fresh.originTime)), answered in second \(direct)")
        #expect(fresh.cacheAge == .zero)
        await exchange.shutdown()
    }

    /// A venue's own time field wins over `Date`: mempool's `time` is when its prices last changed.
    @Test func aVenuesOwnTimeFieldDatesTheAnswer() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.mempool, .body(#"{"time":1763740800,"USD":85866,"EUR":74118}"#))
        let quote = try await ExchangeTests.source(.mempool, baseURL: exchange.baseURL).fetchQuote()
        #expect(quote.originTime == Timestamp(millisecondsSinceEpoch: 1_763_740_800_000), "got \(String(describing: quote.originTime))")
        #expect(exchange.requests(.mempool).first?.uri == "/api/v1/prices")
        await exchange.shutdown()
    }

    @Test func cryptoCompareKeyTravelsInTheHeaderNeverInTheURL() async throws {
        let exchange = try await FakeExchange.start()
        _ = try await ExchangeTests.source(.cryptocompare, baseURL: exchange.baseURL, apiKey: "s3cr3t-key").fetchQuote()
        let request = try #require(exchange.requests(.cryptocompare).first)
        #expect(request.headers["authorization"] == "Apikey s3cr3t-key")
        #expect(!request.uri.contains("s3cr3t"))
        #expect(request.uri == "/data/price?fsym=BTC&tsyms=USD")
        _ = try await ExchangeTests.source(.coinbase, baseURL: exchange.baseURL, apiKey: "s3cr3t-key").fetchQuote()
        #expect(exchange.requests(.coinbase).first?.headers["authorization"] == nil, "the key goes to CryptoCompare only")
        await exchange.shutdown()
    }

    @Test func binanceWeightHeaderFromTheWireRestsTheSource() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setBinanceWeight(5000)
        let quote = try await ExchangeTests.source(.binance, baseURL: exchange.baseURL).fetchQuote()
        #expect(quote.pauseRequested == BinanceAPI.weightPause)
        await exchange.shutdown()
    }
}
