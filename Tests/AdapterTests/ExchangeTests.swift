import AsyncHTTPClient
import Exchanges
import FakeExchange
import PriceCore
import Testing

/// Each real-world failure shape, served over real HTTP by the fake exchange.
@Suite("Exchanges against the fake exchange over HTTP", .serialized)
struct ExchangeTests {
    static let client = HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup)

    func fetch(_ market: Market, _ behavior: Behavior, symbol: String = "BTCUSDT") async throws -> Result<SourceQuote, FetchFailure> {
        let exchange = try await FakeExchange.start()
        defer { Task { await exchange.shutdown() } }
        exchange.set(market, behavior)
        let source: HTTPPriceSource = switch market {
        case .binance: .binance(baseURL: exchange.baseURL, symbol: symbol, client: Self.client, timeout: .seconds(2), userAgent: "test")
        case .cryptocompare: .cryptoCompare(baseURL: exchange.baseURL + "/", client: Self.client, timeout: .seconds(2), userAgent: "test")
        }
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
        (.binance, .status(403), .httpStatus(403)),
        (.binance, .status(429, retryAfter: 7), .rateLimited(retryAfter: .seconds(7))),
        (.binance, .status(418, retryAfter: 120), .rateLimited(retryAfter: .seconds(120))),
        (.binance, .status(429), .rateLimited(retryAfter: nil)),
        (.binance, .status(451), .geoRestricted),
        (.binance, .html, .notJSON("HTML page")),
        (.binance, .oversized, .bodyTooLarge(limit: 65536)),
        (.binance, .apiError, .exchangeError("HTTP 400: Invalid symbol.")),
        (.binance, .wrongSymbol, .wrongSymbol(expected: "BTCUSDT", got: "ETHUSDT")),
        (.binance, .body(#"{"symbol":"BTCUSDT"}"#), .missingField("price")),
        (.binance, .price("0"), .invalidPrice(.notPositive("0"))),
        (.binance, .price("-5"), .invalidPrice(.notPositive("-5"))),
        (.binance, .price("1e15"), .invalidPrice(.absurd("1e15"))),
        (.cryptocompare, .apiError, .rateLimited(retryAfter: nil)),
        (.cryptocompare, .body(#"{"Response":"Error","Message":"fsym param is invalid","Type":2}"#), .exchangeError("fsym param is invalid")),
        (.cryptocompare, .wrongSymbol, .missingField("USD")),
        (.cryptocompare, .body(#"{"USD":"abc"}"#), .invalidPrice(.notANumber("abc"))),
        (.cryptocompare, .status(500), .httpStatus(500)),
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

    @Test func connectionRefusedIsATransportFailure() async throws {
        let source = HTTPPriceSource.binance(baseURL: "http://127.0.0.1:1", symbol: "BTCUSDT", client: Self.client, timeout: .seconds(2), userAgent: "t")
        await #expect(throws: FetchFailure.self) { try await source.fetchQuote() }
    }

    @Test func hungExchangeIsCutOffByTheFetcherTimeout() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .hang)
        exchange.set(.cryptocompare, .price("68000.5"))
        let sources: [any PriceSource] = [
            HTTPPriceSource.binance(baseURL: exchange.baseURL, symbol: "BTCUSDT", client: Self.client, timeout: .milliseconds(300), userAgent: "t"),
            HTTPPriceSource.cryptoCompare(baseURL: exchange.baseURL, client: Self.client, timeout: .milliseconds(300), userAgent: "t"),
        ]
        let clock = ContinuousClock()
        let started = clock.now
        let attempts = await FallbackFetcher(sources: sources, timeout: .milliseconds(300), clock: clock).fetch { _ in false }
        let elapsed = started.duration(to: clock.now)
        #expect(attempts.first == .failed(.binance, .timeout(after: .milliseconds(300))))
        #expect(attempts.last == .succeeded(.cryptoCompare, SourceQuote(price: try Price(parsing: "68000.5"), symbol: "BTCUSD", quoteAsset: "USD")))
        #expect(elapsed < .milliseconds(300 + 100))
        await exchange.shutdown()
    }
}
