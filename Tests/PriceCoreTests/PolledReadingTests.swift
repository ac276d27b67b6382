import PriceCore
import Testing

/// A polled price is dated on arrival by the rule that dates a streamed trade.
struct PolledReadingTests {
    let wall = Timestamp(millisecondsSinceEpoch: 1_763_740_800_000)

    func reading(_ origins: [AnswerOrigin]) throws -> PolledReading {
        PolledReading(price: try Price(parsing: "100"), currency: "USD", symbol: "BTC-USD", source: .coinbase, origins: origins)
    }

    /// A REST answer is as old as its origin: its own time, a cache's Age, whichever says older.
    @Test func anAnswerIsAsOldAsItsOriginOrItsCacheAgeWhicheverIsOlder() throws {
        let cases: [(AnswerOrigin, Int64, String)] = [
            (AnswerOrigin(time: wall.adding(milliseconds: -3_000), cacheAge: .seconds(1)), 3_000, "the origin's time, not the arrival"),
            (AnswerOrigin(time: wall, cacheAge: .seconds(5)), 5_000, "a cache that dated it anew: its Age counts"),
            (AnswerOrigin(time: wall.adding(milliseconds: 60_000)), 0, "an origin a minute ahead of this clock: dated by arrival"),
            (AnswerOrigin(time: nil), 0, "no date at all: dated by arrival"),
        ]
        for (origin, age, why) in cases {
            let stamped = try reading([origin]).stamped(receivedAt: wall)
            #expect(stamped.ageOnArrival == .milliseconds(age) && stamped.quote.timestamp == wall.adding(milliseconds: -age),
                    "\(why): \(stamped)")
        }
    }

    @Test func aMedianIsAsOldAsItsOldestAnswer() throws {
        let stamped = try reading([AnswerOrigin(time: wall.adding(milliseconds: -2_000)), AnswerOrigin(time: wall.adding(milliseconds: -7_000))])
            .stamped(receivedAt: wall)
        #expect(stamped.ageOnArrival == .seconds(7) && stamped.quote.timestamp == wall.adding(milliseconds: -7_000), "\(stamped)")
    }

    @Test func theQuoteKeepsWhatTheReadingSays() throws {
        let price = try Price(parsing: "100")
        let consensus = PolledReading(price: price, currency: "USD", symbol: "median", source: .consensus, contributors: [.coinbase, .kraken],
                                      spread: 3, origins: [])
        #expect(consensus.stamped(receivedAt: wall).quote == Quote(price: price, currency: "USD", symbol: "median", source: .consensus,
                                                                   timestamp: wall, contributors: [.coinbase, .kraken], spread: 3))
    }
}
