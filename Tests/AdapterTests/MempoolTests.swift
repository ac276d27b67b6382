import Exchanges
import PriceCore
import Testing

/// mempool's `/api/v1/prices` as a source: its whole-unit numbers kept as text, its `time` as
/// the answer's age, and its pace by whose instance is asked.
@Suite("mempool, a self-hosted price source")
struct MempoolTests {
    @Test("every currency it prices, exact", arguments: [
        ("USD", "85866"), ("EUR", "74118"), ("GBP", "65329"), ("CAD", "120592"), ("CHF", "68876"), ("AUD", "132541"), ("JPY", "13498752"),
    ])
    func everyCurrency(currency: String, exact: String) throws {
        let quote = try MempoolAPI.parse(VenueParserTests.fixture("mempool-prices"), currency: currency)
        #expect(quote.price.description == exact && quote.quoteAsset == currency && quote.symbol == "BTC" + currency)
        #expect(quote.originTime == Timestamp(millisecondsSinceEpoch: 1_763_740_800_000), "its `time` dates the answer")
        #expect(Venue.mempool.quotes(currency))
    }

    @Test func noPriceYetIsNamedNotTakenForAPrice() throws {
        #expect(throws: FetchFailure.exchangeError("no BTC/EUR price yet (EUR: -1); its price updater has not reached any exchange")) {
            try MempoolAPI.parse(VenueParserTests.fixture("mempool-no-price-yet"), currency: "EUR")
        }
        #expect(throws: FetchFailure.missingField("TRY")) { try MempoolAPI.parse(VenueParserTests.fixture("mempool-prices"), currency: "TRY") }
        #expect(throws: FetchFailure.invalidPrice(.notPositive("0"))) {
            try MempoolAPI.parse(ExchangeResponse(status: 200, body: #"{"time":1763740800,"USD":0}"#))
        }
    }

    @Test func anUndatedAnswerIsDatedByHTTP() throws {
        let quote = try MempoolAPI.parse(ExchangeResponse(status: 200, body: #"{"time":0,"USD":85866}"#))
        #expect(quote.originTime == nil, "time 0 is \"never updated\", not 1970")
        let dated = quote.dated(httpDate: Timestamp(millisecondsSinceEpoch: 5_000), cacheAge: .seconds(2), cached: true)
        #expect(dated.originTime == Timestamp(millisecondsSinceEpoch: 5_000) && dated.cacheAge == .seconds(2) && dated.price == quote.price)
        #expect(dated.venueClock == nil, "a cache's Date says nothing of the venue's clock now")
        let own = try MempoolAPI.parse(VenueParserTests.fixture("mempool-prices")).dated(httpDate: Timestamp(millisecondsSinceEpoch: 5_000), cacheAge: .zero, cached: false)
        #expect(own.originTime == Timestamp(millisecondsSinceEpoch: 1_763_740_800_000), "the venue's own time wins over Date")
        #expect(own.venueClock == Timestamp(millisecondsSinceEpoch: 5_000), "while the Date of a direct answer is the venue's clock")
    }

    @Test("the public instance is asked at most every 10 s, someone's own at the interval", arguments: [
        ("https://mempool.space", Duration.seconds(10)),
        ("https://mempool.space/", .seconds(10)),
        ("https://MEMPOOL.space:443", .seconds(10)),
        ("http://mempoolhqx4isw62xs7abwphsq7ldayuidyx2v2oethdhhj6mlo2r6ad.onion", .seconds(10)),
        ("http://umbrel.local:3006", .seconds(1)),
        ("http://192.168.1.20:8999", .seconds(1)),
        ("http://abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcd.onion", .seconds(1)),
    ])
    func paceByInstance(baseURL: String, pace: Duration) {
        let limits = Venue.mempool.limits(VenueOptions(), baseURL: baseURL)
        #expect(limits.minimumInterval == pace, "\(baseURL): \(limits.minimumInterval)")
        #expect(limits.hostInterval <= limits.minimumInterval)
    }

    @Test func notInTheDefaultChain() {
        #expect(!Venue.mempool.inDefaultChain)
        #expect(Venue.catalog.filter { !$0.inDefaultChain }.map(\.name) == ["mempool", "coinbase-rates"], "mempool and the reference rate")
        #expect(Venue.mempool.rest.url.key == "BTCPRICED_MEMPOOL_URL" && Venue.mempool.rest.url.defaultURL == "https://mempool.space")
    }
}

/// An answer's age from HTTP: its `Date` and its `Age` (RFC 9111 §4.2.3).
@Suite("Origin time from Date and Age")
struct OriginTimeTests {
    static let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    static let dateMilliseconds: Int64 = 784_111_777_000

    @Test func httpDates() {
        #expect(Timestamp(httpDate: Self.date)?.millisecondsSinceEpoch == Self.dateMilliseconds)
        #expect(Timestamp(httpDate: "Thu, 26 Nov 2026 23:59:59 GMT")?.rfc3339 == "2026-11-26T23:59:59.000Z")
        #expect(Timestamp(httpDate: "Tue, 29 Feb 2028 00:00:00 GMT")?.rfc3339 == "2028-02-29T00:00:00.000Z")
        for bad in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 31 Feb 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Xyz 1994 08:49:37 GMT", ""] {
            #expect(Timestamp(httpDate: bad) == nil, "\"\(bad)\" was accepted")
        }
    }

    @Test("the Date and Age headers", arguments: [
        (date as String?, "30" as String?, Optional(dateMilliseconds), Duration.seconds(30)),
        (date, nil, dateMilliseconds, .zero),
        (date, " 0 ", dateMilliseconds, .zero),
        (date, "-5", dateMilliseconds, .zero),
        (date, "soon", dateMilliseconds, .zero),
        (date, "99999999999999", dateMilliseconds, .seconds(366 * 86_400)),
        (nil, "30", nil, .seconds(30)),
        ("yesterday", "30", nil, .seconds(30)),
    ])
    func headers(date: String?, age: String?, expectedDate: Int64?, expectedAge: Duration) {
        let response = ExchangeResponse(status: 200, date: date, age: age, body: "{}")
        #expect(response.date?.millisecondsSinceEpoch == expectedDate && response.age == expectedAge,
                "Date \(String(describing: date)), Age \(String(describing: age)): \(String(describing: response.date)), \(response.age)")
    }

    @Test func aQuoteIsAsOldAsItsOriginOrItsCacheSaysAndNeverNewerThanNow() {
        let now = Timestamp(millisecondsSinceEpoch: 1_000_000)
        let aged = ExchangeTime.stamp(origin: now.adding(milliseconds: -3_000), receivedAt: now)
        #expect(aged.timestamp == now.adding(milliseconds: -3_000) && aged.ageOnArrival == .seconds(3))
        let keptDate = ExchangeTime.stamp(origin: now.adding(milliseconds: -3_000), cacheAge: .seconds(3), receivedAt: now)
        #expect(keptDate.ageOnArrival == .seconds(3), "a cache that kept the origin's Date: its Age is not counted twice")
        let newDate = ExchangeTime.stamp(origin: now, cacheAge: .seconds(3), receivedAt: now)
        #expect(newDate.timestamp == now.adding(milliseconds: -3_000) && newDate.ageOnArrival == .seconds(3), "a cache that dated it anew")
        let ahead = ExchangeTime.stamp(origin: now.adding(milliseconds: 60_000), receivedAt: now)
        #expect(ahead.timestamp == now && ahead.ageOnArrival == .zero, "an origin a minute ahead means a clock is wrong: dated by arrival")
        #expect(ExchangeTime.stamp(origin: nil, receivedAt: now) == (now, .zero))
    }
}
