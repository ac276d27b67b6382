import AsyncHTTPClient
import ExchangeHTTP
import Exchanges
import FakeExchange
import Foundation
import PriceCore
import Synchronization
import Testing

/// One request for several currencies, where a venue's API takes a list of pairs: the parsers on
/// bodies shaped as the venues answer such lists, and the batch over real HTTP.
@Suite("Batched requests: one per venue for every currency", .serialized)
struct BatchTests {
    func fixture(_ name: String) throws -> ExchangeResponse { try VenueParserTests.fixture(name) }

    func prices(_ answers: BatchEndpoint.Answers) -> [String: String] {
        answers.mapValues { (try? $0.get().price.description) ?? "failed" }
    }

    @Test func krakenAnswersEachPairUnderItsOwnKey() throws {
        #expect(KrakenAPI.path(currencies: ["CAD", "CHF", "AUD", "JPY"]) == "/0/public/Ticker?pair=XBTCAD,XBTCHF,XBTAUD,XBTJPY")
        let answers = try KrakenAPI.parse(try fixture("kraken-ticker-list"), currencies: ["CAD", "CHF", "AUD", "JPY", "GBP"])
        #expect(prices(answers) == ["CAD": "158115.3", "CHF": "91831.7", "AUD": "174205.4", "JPY": "17345678", "GBP": "failed"], "\(answers)")
        #expect(try answers["CHF"]?.get().symbol == "XBTCHF" && answers["CAD"]?.get().quoteAsset == "CAD")
        #expect(throws: FetchFailure.rateLimited(retryAfter: nil)) { try KrakenAPI.parse(try fixture("kraken-rate-limit"), currencies: ["CAD"]) }
    }

    @Test func binanceAnswersAListOfTickers() throws {
        #expect(BinanceAPI.path(symbols: ["BTCUSDT", "BTCEUR"]) == "/api/v3/ticker/price?symbols=%5B%22BTCUSDT%22,%22BTCEUR%22%5D")
        let answers = try BinanceAPI.parse(try fixture("binance-ticker-price-list"), symbols: [("USD", "BTCUSDT"), ("EUR", "BTCEUR"), ("TRY", "BTCTRY")])
        #expect(prices(answers) == ["USD": "114459.8", "EUR": "98765.43", "TRY": "failed"], "\(answers)")
        #expect(try answers["USD"]?.get().quoteAsset == "USDT", "Binance's USD market is labelled as it is")
    }

    @Test func cryptoCompareAnswersEveryCurrencyInOneObject() throws {
        #expect(CryptoCompareAPI.path(currencies: ["USD", "EUR"]) == "/data/price?fsym=BTC&tsyms=USD,EUR")
        let answers = try CryptoCompareAPI.parse(try fixture("cryptocompare-price-list"), currencies: ["USD", "EUR", "JPY", "GBP"])
        #expect(prices(answers) == ["USD": "114460.1", "EUR": "98770.12", "JPY": "17345901", "GBP": "failed"], "\(answers)")
    }

    /// A currency that waits for a request on its way hears why it failed, not that its pair
    /// was missing from an answer that never came.
    @Test func aWaiterHearsTheSharedRequestsFailure() async throws {
        let exchange = try await FakeExchange.start()
        defer { Task { await exchange.shutdown() } }
        exchange.set(.kraken, .hang)
        let kraken = Venue.kraken, options = VenueOptions(currency: "CAD")
        let batch = VenueBatch(venue: kraken, currencies: ["CAD", "JPY"], options: options, baseURL: exchange.baseURL, client: ExchangeTests.client,
                               timeouts: RouteTimeouts(connect: nil, answer: .seconds(2)), proxy: nil, userAgent: "test")
        let members = ["CAD", "JPY"].map { BatchMember(batch, currency: $0, quoteAsset: $0, limits: kraken.limits(options, baseURL: exchange.baseURL)) }
        let first = Task { () -> String in
            do { _ = try await members[0].fetchQuote(); return "answered" } catch { return "\(error)" }
        }
        await exchange.until { $0.requestCount(.kraken) == 1 }
        var second = "answered"
        do { _ = try await members[1].fetchQuote() } catch { second = "\(error)" }
        let firstFailure = await first.value
        #expect(second == firstFailure && !second.contains("in the answer"), "the waiter's failure: \(second); the asker's: \(firstFailure)")
    }

    /// Two currencies asking at once and again within the venue's interval: one request.
    @Test func currenciesShareOneRequestWithinTheVenuesInterval() async throws {
        let exchange = try await FakeExchange.start()
        defer { Task { await exchange.shutdown() } }
        let client = ExchangeTests.client
        let kraken = Venue.kraken, options = VenueOptions(currency: "CAD")
        // The answer's age on a clock of the test's own: a stalled test process ages nothing.
        let clock = Mutex(ContinuousClock.now)
        let batch = VenueBatch(venue: kraken, currencies: ["CAD", "JPY"], options: options, baseURL: exchange.baseURL, client: client,
                               timeouts: RouteTimeouts(connect: nil, answer: .seconds(5)), proxy: nil, userAgent: "test",
                               now: { clock.withLock { $0 } })
        let members = ["CAD", "JPY"].map { BatchMember(batch, currency: $0, quoteAsset: $0, limits: kraken.limits(options, baseURL: exchange.baseURL)) }
        #expect(!batch.answersWithoutAsking, "nothing asked yet")
        async let cad = members[0].fetchQuote()
        async let yen = members[1].fetchQuote()
        let (first, second) = try await (cad, yen)
        #expect(first.symbol == "XXBTZCAD" && second.symbol == "XXBTZJPY", "\(first) \(second)")
        #expect(batch.answersWithoutAsking, "the answer serves within kraken's interval")
        _ = try await members[1].fetchQuote()
        let asked = exchange.requests(.kraken).map(\.uri)
        #expect(asked == ["/0/public/Ticker?pair=XBTCAD,XBTJPY"], "one request for both currencies: \(asked)")
        clock.withLock { $0 += .seconds(2) }
        #expect(!batch.answersWithoutAsking, "kraken's interval (2 s) is over: the next quote asks again")
        _ = try await members[0].fetchQuote()
        #expect(exchange.requests(.kraken).count == 2, "\(exchange.requests(.kraken).map(\.uri))")

        let pace = ProcessHostPace()
        let batched = BatchedHostPace(pace, batches: [kraken.name: batch])
        let now = Timestamp(millisecondsSinceEpoch: 1_763_740_800_000)
        #expect(pace.claim(kraken.name, pace: .seconds(1), at: now), "another instance's request, just now")
        #expect(batched.claim(kraken.name, pace: .seconds(1), at: now), "an answer in hand asks nothing of the venue: no claim")
        #expect(batched.claim(kraken.name, kind: .candles, pace: .seconds(1), at: now))
        #expect(!batched.claim(kraken.name, kind: .candles, pace: .seconds(1), at: now.adding(milliseconds: 100)),
                "candles are requests of their own: they always claim the host's pace")
    }
}
