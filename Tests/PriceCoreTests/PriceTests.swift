import FoundationEssentials
import PriceCore
import Testing
import TestClocks

@Suite("Price is exact decimal text, validated")
struct PriceTests {
    @Test("decimal literals survive unchanged", arguments: ["68901.23", "0.00000001", "999999999999.99999999", "114459.8", "123456789012.123456789012"])
    func exactRoundTrip(literal: String) throws {
        let price = try Price(parsing: literal)
        #expect(price.description == literal)
        #expect(price.value == Decimal(string: literal))
    }

    @Test func trailingZerosAreNormalisedNotRounded() throws {
        #expect(try Price(parsing: "114459.80000000").description == "114459.8")
    }

    @Test func exponentLiteralsAreExact() throws {
        #expect(try Price(parsing: "6.890123e4").description == "68901.23")
    }

    /// The text is made from the literal's digits, not by Decimal: it must say what Decimal says.
    @Test func theTextIsDecimalsOwnForEveryShapeOfLiteral() throws {
        var generator = SeededGenerator(seed: 20261122)
        var checked = 0
        for _ in 0..<20_000 {
            let integer = String((0..<Int.random(in: 1...13, using: &generator)).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let fraction = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            var literal = fraction.isEmpty ? integer : integer + "." + fraction
            if Bool.random(using: &generator) { literal += ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)! + String(Int.random(in: 0...14, using: &generator)) }
            guard let price = try? Price(parsing: literal) else { continue }
            #expect(price.description == price.value.description, "\(literal)")
            #expect(price.value == Decimal(string: literal), "\(literal): the value is Decimal's own")
            checked += 1
        }
        #expect(checked > 5_000, "most random literals are plausible prices")
    }

    @Test func doubleWouldHaveRoundedThisButDecimalDoesNot() throws {
        // 0.1 + 0.2 style: as a Double this literal is not representable.
        let price = try Price(parsing: "68901.230000000001")
        #expect(price.description == "68901.230000000001")
    }

    @Test("non-numbers are rejected", arguments: ["", "abc", "1.5x", "1.", ".5", "--1", "1e", "NaN", "Infinity", " 1", "0x10", "0123.4", "1e99999"])
    func rejectsNonNumbers(text: String) {
        #expect(throws: PriceError.notANumber(text)) { try Price(parsing: text) }
    }

    @Test("zero and negative are rejected", arguments: ["0", "0.0", "-1", "-0.00000001"])
    func rejectsNonPositive(text: String) {
        #expect(throws: PriceError.notPositive(text)) { try Price(parsing: text) }
    }

    @Test("implausibly small prices are rejected, the smallest plausible one kept exact", arguments: ["1e-40", "0.000000009", "1E-9"])
    func implausiblySmall(text: String) {
        #expect(throws: PriceError.implausiblySmall(text)) { try Price(parsing: text) }
        #expect((try? Price(parsing: "0.00000001"))?.description == "0.00000001")
    }

    @Test("absurd prices are rejected", arguments: ["1000000000000", "1e13", "99999999999999"])
    func rejectsAbsurd(text: String) {
        #expect(throws: PriceError.absurd(text)) { try Price(parsing: text) }
    }

    @Test func rejectsMoreDigitsThanDecimalKeeps() {
        let text = "1." + String(repeating: "1", count: 40)
        #expect(throws: PriceError.tooPrecise(text)) { try Price(parsing: text) }
    }
}

@Suite("Timestamps format and parse as RFC 3339 UTC")
struct TimestampTests {
    @Test func formatsWithMilliseconds() {
        #expect(Timestamp(millisecondsSinceEpoch: 1_795_276_800_123).rfc3339 == "2026-11-21T16:00:00.123Z")
        #expect(Timestamp(millisecondsSinceEpoch: 0).rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSinceEpoch: 951_782_400_000).rfc3339 == "2000-02-29T00:00:00.000Z")
    }

    @Test func parsesWhatItFormats() {
        for ms: Int64 in [0, 1, 999, 1_795_276_800_123, 4_102_444_799_999] {
            let timestamp = Timestamp(millisecondsSinceEpoch: ms)
            #expect(Timestamp(rfc3339: timestamp.rfc3339) == timestamp)
        }
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(Timestamp(rfc3339: "2026-11-21T17:00:00+01:00")?.rfc3339 == "2026-11-21T16:00:00.000Z")
        #expect(Timestamp(rfc3339: "2026-11-21T16:00:00.5Z")?.millisecondsSinceEpoch == 1_795_276_800_500)
        #expect(Timestamp(rfc3339: "2026-11-21T16:00:00.123456789Z")?.millisecondsSinceEpoch == 1_795_276_800_123)
    }

    @Test("rejects malformed timestamps", arguments: ["", "2026-11-21", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                                                       "2026-11-21T24:00:00Z", "2026-11-21T16:00:00", "2026-11-21T16:00:00.Zjunk"])
    func rejectsMalformed(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }
}

@Suite struct FreshnessTests {
    let quote = Quote(price: try! Price(parsing: "1"), currency: "USDT", symbol: "BTCUSDT", source: .binance, timestamp: Timestamp(millisecondsSinceEpoch: 10_000))

    @Test func noQuoteIsNoData() {
        let freshness = Freshness(of: nil, at: Timestamp(millisecondsSinceEpoch: 0), staleAfter: .seconds(10))
        #expect(freshness.state == .nodata)
        #expect(freshness.ageMilliseconds == nil)
    }

    @Test func staleStrictlyAfterTheLimit() {
        #expect(Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 20_000), staleAfter: .seconds(10)).state == .fresh)
        #expect(Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 20_001), staleAfter: .seconds(10)).state == .stale)
    }

    @Test func clockSteppingBackNeverGivesNegativeAge() {
        #expect(Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 5_000), staleAfter: .seconds(10)).ageMilliseconds == 0)
    }

    @Test func timeUntilStaleCountsDown() {
        #expect(Freshness.timeUntilStale(of: quote, at: Timestamp(millisecondsSinceEpoch: 15_000), staleAfter: .seconds(10)) == .milliseconds(5_001))
        #expect(Freshness.timeUntilStale(of: quote, at: Timestamp(millisecondsSinceEpoch: 30_000), staleAfter: .seconds(10)) == nil)
    }
}
