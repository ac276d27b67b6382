import JSONText
import Testing
import WireProtocol

@Suite("Protocol 2: a request may name a currency")
struct AddressedRequestTests {
    func parse(_ line: String) -> Result<Request.Addressed, ErrorReply> { Request.Addressed.parse(Array(line.utf8)) }

    @Test func aCurrencyAfterTheWordAddressesThatCurrency() throws {
        #expect(try parse("price EUR").get() == Request.Addressed(.price, currency: "EUR"))
        #expect(try parse("status jpy\r").get() == Request.Addressed(.status, currency: "JPY"), "either case, CR accepted")
        #expect(try parse("sources GBP").get() == Request.Addressed(.sources, currency: "GBP"))
        let history = try parse("history EUR 24h 10").get()
        let unaddressed = try Request.history(arguments: ["24h", "10"]).get()
        #expect(history.currency == "EUR" && history.request == unaddressed, "\(history)")
        #expect(history.line == "history EUR 24h 10\n", "\(history.line)")
        #expect(try parse("history eur daily").get().currency == "EUR")
        #expect(try parse("currencies").get() == Request.Addressed(.currencies))
    }

    @Test func protocolOnesRequestsParseAsBefore() throws {
        for word in ["status", "price", "watch", "sources", "ping", "version", "metrics"] {
            let parsed = try parse(word).get()
            #expect(parsed.currency == nil && parsed.request.word == word, "\(word): \(parsed)")
            #expect(parsed.line == word + "\n")
        }
        #expect(try parse("history 24h").get().currency == nil)
    }

    /// `watch EUR` follows one currency, `watch *` every one; `watch` alone the primary.
    @Test func watchTakesACurrencyOrEveryOne() throws {
        #expect(try parse("watch eur").get() == Request.Addressed(.watch, currency: "EUR"))
        #expect(try parse("watch *").get() == Request.Addressed(.watch, currency: Request.Addressed.everyCurrency))
        #expect(try parse("watch").get() == Request.Addressed(.watch))
        #expect(Request.Addressed(.watch, currency: "*").line == "watch *\n" && Request.Addressed(.watch, currency: "EUR").line == "watch EUR\n")
    }

    @Test func whatIsNotACurrencyIsRefusedAsBefore() {
        #expect(parse("price XYZ") == .failure(.badRequest("price takes no arguments")), "not an ISO 4217 code")
        #expect(parse("ping EUR") == .failure(.badRequest("ping takes no arguments")), "ping names no currency")
        #expect(parse("price EUR now") == .failure(.badRequest("price takes no arguments")))
        #expect(parse("watch * now") == .failure(.badRequest("watch takes no arguments")), "every currency is the one word *")
        #expect(Request.parse(Array("price EUR".utf8)) == .failure(.badRequest("price EUR: no currency is taken here")))
    }

    @Test func theCurrenciesReplyKeepsItsOrderAndReadsBack() throws {
        let usd = StatusMessage(price: "114459.8", currency: "USDT", symbol: "BTCUSDT", source: "binance", timestamp: nil, ageMilliseconds: 400,
                                state: .fresh, lastError: nil, version: "test")
        let czk = StatusMessage(price: nil, currency: "CZK", symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil, state: .nodata,
                                lastError: "HTTP 503", version: "test")
        let reply = CurrenciesReply(entries: [.init(code: "USD", status: usd), .init(code: "CZK", status: czk)])
        #expect(reply.line.hasPrefix(#"{"currencies":{"USD":{"price":"114459.8","currency":"USDT""#), "\(reply.line)")
        let back = try CurrenciesReply(json: try JSONValue(parsing: reply.line))
        #expect(back.entries.map(\.code) == ["USD", "CZK"] && back.entries.map(\.status.state) == [.fresh, .nodata], "\(back)")
        #expect(throws: ErrorReply.self) { try CurrenciesReply(json: try JSONValue(parsing: #"{"currencies":[1]}"#)) }
    }
}
