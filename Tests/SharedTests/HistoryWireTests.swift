import JSONText
import Testing
import WireProtocol

@Suite("Wire protocol: history request and reply, percent text")
struct HistoryWireTests {
    func parse(_ line: String) -> Result<Request, ErrorReply> { Request.parse(Array(line.utf8)) }

    @Test func historyTakesARangeAndAnOptionalPointCount() throws {
        #expect(try parse("history 24h").get() == .history(HistoryQuery(range: .day, points: 60)))
        #expect(try parse("history 7d 1000\r").get() == .history(HistoryQuery(range: .week, points: 1000)))
        #expect(try parse("  history\t1h   5 ").get() == .history(HistoryQuery(range: .hour, points: 5)))
        #expect(try parse(Request.history(HistoryQuery(range: .hour, points: 7)).line.dropLast().description).get()
                == .history(HistoryQuery(range: .hour, points: 7)))
    }

    @Test("a bad range or count is a bad-request", arguments: ["history", "history 2d", "history 24h 0", "history 24h 1001",
                                                                "history 24h -1", "history 24h 1e3", "history 24h 60 x", "status now"])
    func badHistoryRequests(line: String) {
        guard case .failure(let error) = parse(line) else {
            Issue.record("\(line) parsed")
            return
        }
        #expect(error.code == "bad-request")
    }

    @Test func historyAtTakesUnixSecondsAndItsReplyRoundTrips() throws {
        #expect(try parse("history at 1709294400").get() == .priceAt(PriceAtQuery(seconds: 1_709_294_400)))
        #expect(Request.priceAt(PriceAtQuery(seconds: 5)).line == "history at 5\n")
        for bad in ["history at", "history at -1", "history at 1e9", "history at 2024-03-01", "history at 1 2", "history at 999999999999"] {
            guard case .failure(let error) = parse(bad) else { Issue.record("\(bad) parsed"); continue }
            #expect(error.code == "bad-request", "\(bad): \(error)")
        }
        let found = PriceAtReply(at: 1_709_294_430, currency: "USD", found: .init(time: 1_709_294_400, price: "61234.5", basis: .minute))
        #expect(found.line == #"{"at":1709294430,"currency":"USD","time":1709294400,"price":"61234.5","from":"minute"}"# + "\n")
        #expect(try PriceAtReply(json: JSONValue(parsing: found.line)) == found)
        let none = PriceAtReply(at: 5, currency: "EUR", missing: .beforeHistory, reason: "1970-01-01T00:00:05Z is before the first day kept (2016-12-07)")
        #expect(none.line.contains(#""time":null,"price":null,"from":null,"why":"before-history","reason":"#), "\(none.line)")
        #expect(try PriceAtReply(json: JSONValue(parsing: none.line)) == none)
        #expect(throws: ErrorReply.self) { try PriceAtReply(json: JSONValue(parsing: #"{"at":1,"currency":"USD","price":"1e5","time":1,"from":"minute"}"#)) }
    }

    @Test func theReplyRoundTripsWithGapsAsNull() throws {
        let reply = HistoryReply(range: .day, points: [.init(time: "2026-11-21T16:00:00Z", close: "114459.8"),
                                                      .init(time: "2026-11-21T16:24:00Z", close: nil)])
        #expect(reply.line == #"{"range":"24h","currency":null,"points":[["2026-11-21T16:00:00Z","114459.8"],["2026-11-21T16:24:00Z",null]],"summary":null,"filled":[]}"# + "\n")
        #expect(try HistoryReply(json: try JSONValue(parsing: reply.line)) == reply)
        let summarized = HistoryReply(range: .day, points: reply.points, summary: .init(
            since: "2026-11-21T16:00:00Z", open: "114400", close: "114459.8", low: "95000", lowAt: "2026-11-21T16:10:00Z", high: "114500", highAt: "2026-11-21T16:20:00Z"))
        #expect(try HistoryReply(json: try JSONValue(parsing: summarized.line)) == summarized)
        #expect(throws: ErrorReply.self, "a summary with a price that is not a number") {
            try HistoryReply(json: try JSONValue(parsing: summarized.line.replacing(#""low":"95000""#, with: #""low":"x""#)))
        }
        #expect(throws: ErrorReply.self) { try HistoryReply(json: try JSONValue(parsing: #"{"range":"24h","points":[["t","1e5"]]}"#)) }
    }

    @Test func theDailyRequestAndReply() throws {
        #expect(Request.parse(Array("history daily".utf8)) == .success(.daily(DailyQuery())))
        #expect(Request.parse(Array("history daily 2025-01-01".utf8)) == .success(.daily(DailyQuery(since: "2025-01-01"))))
        #expect(Request.daily(DailyQuery(since: "2025-01-01")).line == "history daily 2025-01-01\n")
        for bad in ["history daily 2025-13-01", "history daily 2025-1-1", "history daily 2025-01-01 x", "history daily yesterday"] {
            guard case .failure(let error) = Request.parse(Array(bad.utf8)) else {
                Issue.record("\(bad) parsed")
                continue
            }
            #expect(error.code == "bad-request", "\(bad): \(error)")
        }
        let reply = DailyReply(currency: "EUR", days: [.init(date: "2026-11-27", open: "113020", high: "115200.5", low: "112010", close: "114459.8")])
        #expect(reply.line == #"{"range":"daily","currency":"EUR","days":[["2026-11-27","113020","115200.5","112010","114459.8"]]}"# + "\n")
        #expect(try DailyReply(json: try JSONValue(parsing: reply.line)) == reply)
        #expect(throws: ErrorReply.self, "a day whose close is not a number") {
            try DailyReply(json: try JSONValue(parsing: reply.line.replacing(#""114459.8""#, with: #""1e5""#)))
        }
    }

    @Test func filledMinutesRoundTripAndAnOlderDaemonsReplyHasNone() throws {
        let reply = HistoryReply(range: .week, points: [.init(time: "2026-11-21T16:00:00Z", close: "114459.8")],
                                 filled: [.init(from: "2026-11-14T16:01:00Z", through: "2026-11-21T15:59:00Z", source: "binance")])
        #expect(reply.line.contains(#""filled":[{"from":"2026-11-14T16:01:00Z","through":"2026-11-21T15:59:00Z","source":"binance"}]"#), "\(reply.line)")
        #expect(try HistoryReply(json: try JSONValue(parsing: reply.line)) == reply)
        let older = try HistoryReply(json: try JSONValue(parsing: #"{"range":"7d","points":[["2026-11-21T16:00:00Z","1"]],"summary":null}"#))
        #expect(older.filled.isEmpty)
        #expect(throws: ErrorReply.self, "a span without its venue") {
            try HistoryReply(json: try JSONValue(parsing: reply.line.replacing(#","source":"binance""#, with: "")))
        }
    }

    @Test("percent text: two places, half away from zero, no negative zero", arguments: [
        ("1.265", "1.27"), ("-1.265", "-1.27"), ("-1.2649", "-1.26"), ("-0.004", "0.00"), ("-0.005", "-0.01"),
        ("0", "0.00"), ("13.7666666666666666666666666666666666667", "13.77"), ("99.995", "100.00"),
    ])
    func percentText(input: String, expected: String) {
        #expect(DecimalText.percent(input) == expected)
    }

    @Test("an exact change from two prices: (to − from) × 100 ÷ from, two places, half away from zero", arguments: [
        ("100", "101.265", "1.27"), ("100", "98.735", "-1.27"), ("100", "98.7351", "-1.26"), ("100", "99.996", "0.00"),
        ("100", "99.995", "-0.01"), ("100", "100", "0.00"), ("30", "34.13", "13.77"), ("80000", "160000", "100.00"),
        ("114459.8", "114459.81", "0.00"), ("0.00000001", "0.00000002", "100.00"),
    ])
    func exactChange(from: String, to: String, expected: String) throws {
        let start = try #require(FixedDecimal(from)), end = try #require(FixedDecimal(to))
        let basisPoints = try #require(FixedDecimal.basisPoints(from: start, to: end))
        #expect(FixedDecimal.wirePercent(basisPoints: basisPoints) == expected)
    }

    @Test func aChangeTooLargeForExactIntegersIsNoneRatherThanACrash() throws {
        let huge = try #require(FixedDecimal("999999999999999999.999999999999999999"))
        let tiny = try #require(FixedDecimal("0.000000000000000001"))
        #expect(FixedDecimal.basisPoints(from: tiny, to: huge) == nil)
        #expect(FixedDecimal.basisPoints(from: FixedDecimal(units: 0), to: huge) == nil)
    }

    @Test func statusCarriesTheTrendAndOlderDaemonsReadAsUnknown() throws {
        var status = StatusMessage(price: "1", symbol: "BTCUSDT", source: "binance", timestamp: nil, ageMilliseconds: 0,
                                   state: .fresh, lastError: nil, version: "0.1.0")
        status.trend = .init(change1h: "0.10", change24h: "-1.27", change7d: nil, open24h: "2", high24h: "3", low24h: "0.5")
        let line = status.line
        #expect(line.contains(#""change_1h":"0.10","change_24h":"-1.27","change_7d":null,"open_24h":"2","high_24h":"3","low_24h":"0.5""#))
        #expect(try StatusMessage(json: try JSONValue(parsing: line)) == status)
        let old = try StatusMessage(json: try JSONValue(parsing: #"{"price":"1","currency":"USD","symbol":null,"source":null,"timestamp":null,"age":1.0,"state":"fresh","last_error":null,"version":"0.1.0"}"#))
        #expect(old.trend == .unknown)
    }
}
