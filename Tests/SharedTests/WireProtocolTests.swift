import JSONText
import Testing
import WireProtocol

@Suite("Wire protocol v2: requests and replies")
struct WireProtocolTests {
    @Test("each request word parses, with LF, CRLF or padding", arguments: Request.plain)
    func parsesRequests(request: Request) throws {
        for line in [request.word, request.word + "\r", "  \(request.word)\t"] {
            #expect(try Request.parse(Array(line.utf8)).get() == request)
        }
    }

    @Test("bad requests get a specific message", arguments: [
        ("", "empty request"), ("STATUS", "unknown request"), ("status please", "status takes no arguments"),
        (String(repeating: "x", count: 300), "longer than 256"), ("st\u{0}atus", "not printable ASCII"),
        ("prïce", "not printable ASCII"),
    ])
    func rejectsBadRequests(line: String, expected: String) {
        guard case .failure(let error) = Request.parse(Array(line.utf8)) else {
            Issue.record("\(line.debugDescription) was accepted")
            return
        }
        #expect(error.code == "bad-request")
        #expect(error.message.contains(expected))
    }

    @Test func binaryJunkIsABadRequest() {
        guard case .failure(let error) = Request.parse([0xFF, 0x00, 0x80, 0x1B]) else {
            Issue.record("binary junk was accepted")
            return
        }
        #expect(error.code == "bad-request")
    }

    @Test func statusLineHasEveryKeyInOrder() throws {
        let status = StatusMessage(price: "68901.23", symbol: "BTCUSDT", source: "binance", timestamp: "2026-11-21T16:00:00.123Z",
                                   ageMilliseconds: 412, state: .fresh, lastError: nil, version: "0.1.0")
        #expect(status.line == #"{"price":"68901.23","currency":"USD","symbol":"BTCUSDT","source":"binance","timestamp":"2026-11-21T16:00:00.123Z","age":0.412,"state":"fresh","stale":false,"last_error":null,"version":"0.1.0","sources":[],"spread":null,"transport":null,"change_1h":null,"change_24h":null,"change_7d":null,"open_24h":null,"high_24h":null,"low_24h":null,"day_from":null,"sats_per_unit":"1451"}"# + "\n")
        #expect(try StatusMessage(json: JSONValue(parsing: status.line.dropLast().description)) == status)
    }

    @Test("a status rendered once and spliced per request equals the full rendering", arguments: [
        StatusMessage(price: "68901.23", symbol: "BTCUSDT", source: "binance", timestamp: "2026-11-21T16:00:00.123Z",
                      ageMilliseconds: 412, state: .fresh, lastError: nil, version: "0.1.0", sources: ["binance"]),
        StatusMessage(price: nil, symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil, state: .nodata,
                      lastError: "binance: \"quoted\"\n and \u{1B}[31m escapes", version: "0.1.0"),
        StatusMessage(price: "1.5", currency: "USDT", symbol: "X", source: "kraken", timestamp: "t", ageMilliseconds: 86_400_123,
                      state: .stale, lastError: "coinbase: timeout", version: "v", sources: ["kraken", "bitstamp"], spread: "0.01"),
    ])
    func renderedOnceThenSpliced(message: StatusMessage) {
        #expect(message.rendered.line(ageMilliseconds: message.ageMilliseconds, state: message.state) == message.line)
    }

    @Test func noDataStatusUsesNulls() throws {
        let status = StatusMessage(price: nil, symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil, state: .nodata,
                                   lastError: "binance: timeout after 800ms", version: "0.1.0")
        let json = try JSONValue(parsing: status.line)
        for key in ["price", "symbol", "source", "timestamp", "age"] { #expect(json[key] == .null) }
        #expect(json["stale"] == .bool(false))
        #expect(json["state"] == .string("nodata"))
        #expect(try StatusMessage(json: json) == status)
    }

    @Test func staleFlagFollowsState() throws {
        let status = StatusMessage(price: "1", symbol: "BTCUSD", source: "cryptocompare", timestamp: "2026-11-21T16:00:00.000Z",
                                   ageMilliseconds: 42_000, state: .stale, lastError: nil, version: "0.1.0")
        let json = try JSONValue(parsing: status.line)
        #expect(json["stale"] == .bool(true))
        #expect(json["age"] == .number("42.000"))
    }

    @Test func malformedStatusRepliesAreProtocolErrors() throws {
        #expect(throws: ErrorReply.self) { try StatusMessage(json: JSONValue(parsing: #"{"price":"1"}"#)) }
        #expect(throws: ErrorReply.self) { try StatusMessage(json: JSONValue(parsing: #"{"state":"fresh","price":1}"#)) }
        #expect(throws: ErrorReply.self) { try StatusMessage(json: JSONValue(parsing: "[]")) }
    }

    @Test func errorAndVersionReplies() throws {
        #expect(ErrorReply.badRequest("nope").line == #"{"error":"bad-request","message":"nope"}"# + "\n")
        #expect(ErrorReply(json: try JSONValue(parsing: ErrorReply.noData.line)) == ErrorReply.noData)
        #expect(VersionReply(version: "0.1.0").line == #"{"version":"0.1.0","protocol":2}"# + "\n")
        #expect(PingReply.line == "pong\n")
    }
}
