import Exchanges
import Foundation
import HTTPAPI
import JSONText
import NIOHTTP1
import PriceCore
import SocketServer
import Testing
import WireProtocol

/// The HTTP listener's answers, without a socket: every route from a fixed set of replies, the
/// `Host` rule against DNS rebinding, CORS, and the compatible shapes read back by the clients
/// they imitate (mempool's own parser, BTCPay's answer shape).
@Suite("HTTP routes, without a socket")
struct HTTPRoutesTests {
    struct Replies: StatusProvider {
        var status = #"{"price":"114459.5","currency":"USDT","symbol":"BTCUSDT","source":"binance","timestamp":"2026-11-21T16:00:00.123Z","age":0.412,"state":"fresh","stale":false,"last_error":null,"version":"0.1.0","sources":["binance"],"spread":null,"transport":"poll","change_1h":"0.10","change_24h":"-1.27","change_7d":null,"open_24h":"115931.9","high_24h":"116250","low_24h":"113900.5"}"# + "\n"
        var sources = #"{"mode":"fallback","sources":[{"name":"binance","state":"failing","quote_asset":"USDT","last_price":"114459.5","last_price_at":null,"last_error":"<script>alert(1)</script> & \"quotes\"","last_error_at":null,"latency_ms":41,"calls_24h":null,"budget_24h":null,"selected":true,"note":null,"route":"direct"}],"stream":null}"# + "\n"
        func statusReply() -> String { status }
        func priceReply() -> String { "114459.5\n" }
        func sourcesReport() -> String { sources }
        var historyPoints: [HistoryReply.Point] = [
            .init(time: "2026-11-21T15:00:00Z", close: "100000"), .init(time: "2026-11-21T15:30:00Z", close: nil),
            .init(time: "2026-11-21T16:00:00Z", close: "114459.5"), .init(time: "2026-11-21T16:30:00Z", close: "95000"),
        ]
        func historyReply(_ query: HistoryQuery) -> String {
            HistoryReply(range: query.range, currency: "USD", points: historyPoints.prefix(query.points).map { $0 }).line
        }
        func dailyReply(_ query: DailyQuery) -> String {
            DailyReply(currency: "USD", days: [.init(date: "2026-11-20", open: "100000", high: "115000", low: "99000", close: "114459.5"),
                                               .init(date: "2026-11-21", open: "114459.5", high: "116000", low: "113000", close: "115000")]
                .filter { $0.date >= (query.since ?? "") }).line
        }
        func metricsReply() -> String { "btcpriced_up 1\n" }
        /// A minute kept at 2024-03-01T12:00Z; moments after 2026-11-21T16:00Z are to come.
        func price(at query: PriceAtQuery) -> PriceAtReply {
            switch query.seconds {
            case 1_709_294_400..<1_709_294_460:
                PriceAtReply(at: query.seconds, currency: "USD", found: .init(time: 1_709_294_400, price: "61234.5", basis: .minute))
            case 1_795_276_800...: PriceAtReply(at: query.seconds, currency: "USD", missing: .future, reason: "that is in the future")
            default: PriceAtReply(at: query.seconds, currency: "USD", missing: .gap, reason: "no minute kept within an hour of it, and no close for its day")
            }
        }
    }

    static let noData = #"{"price":null,"currency":"USD","symbol":null,"source":null,"timestamp":null,"age":null,"state":"nodata","stale":true,"last_error":"binance: HTTP 503","version":"0.1.0","sources":[],"spread":null,"transport":null,"change_1h":null,"change_24h":null,"change_7d":null,"open_24h":null,"high_24h":null,"low_24h":null}"# + "\n"

    func routes(_ replies: Replies = Replies(), currency: String = "USD") -> HTTPRoutes {
        HTTPRoutes(replies: replies, currency: Currency(code: currency)!, version: "0.1.0",
                   window: ServeStaleWindow(staleAfter: .seconds(10), serveStaleFor: .seconds(600)))
    }

    func json(_ answer: HTTPAnswer) throws -> JSONValue { try JSONValue(parsing: answer.body) }

    @Test func statusIsTheSocketsReplyByteForByte() {
        let answer = routes().answer(method: .GET, uri: "/api/v1/status")
        #expect(answer.status == .ok && answer.body == Replies().status, "\(answer.body)")
        #expect(answer.header("content-type") == "application/json; charset=utf-8" && answer.header("cache-control") == "no-store")
    }

    @Test func priceIsPlainTextWithItsStateAndNoPriceIsA503() throws {
        let answer = routes().answer(method: .GET, uri: "/api/v1/price")
        #expect(answer.status == .ok && answer.body == "114459.5\n" && answer.header("X-Price-State") == "fresh", "\(answer.body) \(answer.headers)")
        #expect(answer.header("Content-Type") == "text/plain; charset=utf-8")
        var stale = Replies()
        stale.status = stale.status.replacingOccurrences(of: #""state":"fresh","stale":false"#, with: #""state":"stale","stale":true"#)
        #expect(routes(stale).answer(method: .GET, uri: "/api/v1/price").header("X-Price-State") == "stale")
        let none = routes(Replies(status: Self.noData)).answer(method: .GET, uri: "/api/v1/price")
        #expect(none.status == .serviceUnavailable && none.header("Content-Type") == "application/json; charset=utf-8", "\(none.status)")
        #expect(try json(none)["error"]?.stringValue == "nodata", "\(none.body)")
    }

    @Test("history takes range and points as the socket's request does", arguments: [
        ("/api/v1/history", HTTPResponseStatus.ok, "24h", 4),
        ("/api/v1/history?range=1h&points=2", .ok, "1h", 2),
        ("/api/v1/history?range=7d", .ok, "7d", 4),
        ("/api/v1/history?range=1y", .badRequest, nil, 0),
        ("/api/v1/history?range=1h&points=0", .badRequest, nil, 0),
        ("/api/v1/history?range=1h%205", .badRequest, nil, 0),
        ("/api/v1/history?range=%zz", .badRequest, nil, 0),
    ] as [(String, HTTPResponseStatus, String?, Int)])
    func history(uri: String, status: HTTPResponseStatus, range: String?, points: Int) throws {
        let answer = routes().answer(method: .GET, uri: uri)
        #expect(answer.status == status, "\(uri): \(answer.status) \(answer.body)")
        let body = try json(answer)
        if let range {
            let reply = try HistoryReply(json: body)
            #expect(reply.range.rawValue == range && reply.points.count == points, "\(uri): \(answer.body)")
        } else {
            #expect(body["error"]?.stringValue == "bad-request", "\(uri): \(answer.body)")
        }
    }

    @Test func dailyBarsAreTheSocketsHistoryDailyFromADate() throws {
        let all = routes().answer(method: .GET, uri: "/api/v1/history?range=daily")
        let days = try DailyReply(json: json(all)).days
        #expect(all.status == .ok && days.count == 2, "\(all.body)")
        let since = routes().answer(method: .GET, uri: "/api/v1/history?range=daily&since=2026-11-21")
        #expect(try DailyReply(json: json(since)).days.map(\.date) == ["2026-11-21"], "\(since.body)")
        for uri in ["/api/v1/history?range=daily&since=2026-1-21", "/api/v1/history?range=daily&since=2026-11-21%20x", "/api/v1/history?range=7d&since=2026-11-21"] {
            let bad = routes().answer(method: .GET, uri: uri)
            let error = try json(bad)["error"]?.stringValue
            #expect(bad.status == .badRequest && error == "bad-request", "\(uri): \(bad.body)")
        }
    }

    @Test func unknownPathsAre404AndOtherMethods405WithAllow() throws {
        let missing = routes().answer(method: .GET, uri: "/api/v2/status")
        #expect(try missing.status == .notFound && json(missing)["error"]?.stringValue == "not-found")
        for method in [HTTPMethod.POST, .PUT, .DELETE, .PATCH, .OPTIONS] {
            let answer = routes().answer(method: method, uri: "/api/v1/status")
            #expect(answer.status == .methodNotAllowed && answer.header("Allow") == "GET, HEAD", "\(method): \(answer.status)")
            #expect(try json(answer)["error"] != nil)
        }
        for route in HTTPRoutes.Route.allCases where route != .events {
            let get = routes().answer(method: .GET, uri: route.rawValue), head = routes().answer(method: .HEAD, uri: route.rawValue)
            #expect(head.status == get.status && head.header("Content-Type") == get.header("Content-Type"), "HEAD \(route.rawValue)")
        }
    }

    @Test func eventsStartAStreamOfTheWatchLines() {
        let answer = routes().answer(method: .GET, uri: "/api/v1/events")
        #expect(answer.kind == .events(.primary) && answer.header("Content-Type") == "text/event-stream; charset=utf-8", "\(answer.headers)")
    }

    /// mempool's own answer is what btcpriced's mempool source parses: the same parser reads
    /// this route back, whole units rounded half to even.
    @Test("mempool's /api/v1/prices, read back by the mempool parser", arguments: [
        ("114459.5", "114460"), ("114458.5", "114458"), ("114458.51", "114459"), ("114458.49999", "114458"), ("0.5", "0"), ("99999.999", "100000"),
    ])
    func mempoolShape(price: String, whole: String) throws {
        var replies = Replies()
        replies.status = replies.status.replacingOccurrences(of: #""price":"114459.5""#, with: "\"price\":\"\(price)\"")
        let answer = routes(replies).answer(method: .GET, uri: "/api/v1/prices")
        if whole != "0" {
            #expect(answer.status == .ok && answer.body == "{\"time\":1795276800,\"USD\":\(whole)}\n", "\(answer.body)")
            let quote = try MempoolAPI.parse(ExchangeResponse(status: 200, body: Array(answer.body.utf8)), currency: "USD")
            #expect(quote.price.description == whole && quote.originTime == Timestamp(millisecondsSinceEpoch: 1_795_276_800_000))
        } else {
            #expect(answer.body == "{\"time\":0,\"USD\":-1}\n" && answer.header("X-Price-Error") == "the price rounds to 0 whole units",
                    "never 0: \(answer.body) \(answer.headers)")
        }
        let none = routes(Replies(status: Self.noData)).answer(method: .GET, uri: "/api/v1/prices")
        #expect(none.status == .ok && none.body == "{\"time\":0,\"USD\":-1}\n", "as mempool before its first price: \(none.body)")
    }

    /// A status `age` seconds old in `state`, from the fixed replies.
    static func aged(_ state: String, seconds age: String) -> Replies {
        var replies = Replies()
        replies.status = replies.status.replacingOccurrences(of: #""age":0.412,"state":"fresh","stale":false"#,
                                                             with: "\"age\":\(age),\"state\":\"\(state)\",\"stale\":\(state == "stale")")
        return replies
    }

    /// Programs that read mempool's and BTCPay's shapes look at neither state nor age: a stale
    /// quote is a number only within BTCPRICED_SERVE_STALE_FOR of going stale, then "no price"
    /// in each shape (read back by mempool's parser, which btcpriced's mempool source is).
    /// The native routes keep their states.
    @Test func theCompatibilityRoutesFailClosedPastTheWindow() throws {
        let within = routes(Self.aged("stale", seconds: "609.999"))
        let mempool = within.answer(method: .GET, uri: "/api/v1/prices")
        #expect(mempool.body == "{\"time\":1795276800,\"USD\":114460}\n" && mempool.header("X-Price-State") == "stale", "\(mempool.body)")
        #expect(try json(within.answer(method: .GET, uri: "/api/rates")).firstArrayElement?["rate"]?.numberLiteral == "114459.5")

        let past = routes(Self.aged("stale", seconds: "610.001"))
        let refused = past.answer(method: .GET, uri: "/api/v1/prices")
        #expect(refused.status == .ok && refused.body == "{\"time\":0,\"USD\":-1}\n", "\(refused.body)")
        #expect(refused.header("X-Price-Error") == "the price is stale: its last quote is 610s old, past BTCPRICED_STALE_AFTER=10s plus BTCPRICED_SERVE_STALE_FOR=10m",
                "\(refused.headers)")
        let read = Result { try MempoolAPI.parse(ExchangeResponse(status: 200, body: Array(refused.body.utf8)), currency: "USD") }
        #expect(throws: FetchFailure.self, "mempool's own reader sees no price") { try read.get() }
        let rate = try json(past.answer(method: .GET, uri: "/api/rates?currencyPairs=BTC_USD")).firstArrayElement
        #expect(rate?["rate"] == JSONValue.null && rate?["errors"]?.firstArrayElement?.stringValue?.hasPrefix("the price is stale: its last quote is 610s old") == true,
                "\(rate?.encoded ?? "no entry")")
        #expect(past.answer(method: .GET, uri: "/api/v1/price").body == "114459.5\n", "the native price route keeps its state header")
        #expect(past.answer(method: .GET, uri: "/api/v1/status").body.contains(#""price":"114459.5""#))

        let never = HTTPRoutes(replies: Self.aged("stale", seconds: "10.5"), currency: .usd, version: "0.1.0",
                               window: ServeStaleWindow(staleAfter: .seconds(10), serveStaleFor: .zero))
        #expect(never.answer(method: .GET, uri: "/api/v1/prices").body == "{\"time\":0,\"USD\":-1}\n", "0 serves no stale quote")
        let fresh = HTTPRoutes(replies: Self.aged("fresh", seconds: "3600"), currency: .usd, version: "0.1.0",
                               window: ServeStaleWindow(staleAfter: .seconds(7200), serveStaleFor: .zero))
        #expect(fresh.answer(method: .GET, uri: "/api/v1/prices").body.contains(#""USD":114460"#), "a fresh quote is served at any age")
    }

    /// BTCPay's anonymous `GET /api/rates` answers an array of rates (BitpayRateController's
    /// `Rate`: name, cryptoCode, currencyPair, code, rate as a JSON number); the fixture is that
    /// shape. Each of its keys comes in the same order, with the rate's exact decimal.
    @Test func btcpayRatesHaveBTCPaysShapeAndNameWhatTheyCannotRate() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/btcpay-api-rates.json")
        let fixture = try JSONValue(parsing: String(decoding: try Data(contentsOf: url), as: UTF8.self))
        guard case .array(let recorded) = fixture, case .object(let shape)? = recorded.first else { Issue.record("fixture"); return }
        let answer = routes().answer(method: .GET, uri: "/api/rates?currencyPairs=BTC_USD%2CBTC_EUR,ETH_USD")
        #expect(answer.status == .ok, "\(answer.body)")
        guard case .array(let entries) = try json(answer), entries.count == 3, case .object(let usd) = entries[0] else {
            Issue.record("not three entries: \(answer.body)")
            return
        }
        #expect(Array(usd.members.map(\.key).prefix(shape.members.count)) == shape.members.map(\.key), "\(usd.members.map(\.key))")
        #expect(usd["rate"]?.numberLiteral == "114459.5" && usd["currencyPair"]?.stringValue == "BTC_USD" && usd["code"]?.stringValue == "USD")
        #expect(entries[0]["errors"] == .array([]))
        for (entry, pair) in zip(entries.dropFirst(), ["BTC_EUR", "ETH_USD"]) {
            #expect(entry["currencyPair"]?.stringValue == pair && entry["rate"] == .null, "\(entry.encoded)")
            guard case .array(let errors)? = entry["errors"], let first = errors.first?.stringValue else { Issue.record("no error for \(pair)"); continue }
            #expect(first.contains(pair == "BTC_EUR" ? "btcpriced serves BTC_USD" : "BTC only"), "\(first)")
        }
        #expect(routes().answer(method: .GET, uri: "/api/rates?currencyPairs=BTC_USDT").body.contains(#""rate":114459.5"#),
                "the quote's own asset is served too")
        #expect(routes().answer(method: .GET, uri: "/api/rates").body.contains(#""currencyPair":"BTC_USD""#), "the daemon's pair by default")
        #expect(routes().answer(method: .GET, uri: "/api/rates?currencyPairs=BTCUSD").status == .badRequest)
        let none = routes(Replies(status: Self.noData)).answer(method: .GET, uri: "/api/rates?currencyPairs=BTC_USD")
        #expect(none.body.contains(#""rate":null,"errors":["no quote yet"#), "\(none.body)")
    }

    /// mempool's historical price, as Sparrow and Electrum ask it: the moment's price in whole
    /// units (half to even), `-1` with the reason for a moment without one, a 400 for one to
    /// come; without a timestamp, the daily closes, newest first.
    @Test func mempoolsHistoricalPriceAnswersAMomentOrTheDailySeries() throws {
        let moment = routes().answer(method: .GET, uri: "/api/v1/historical-price?currency=USD&timestamp=1709294430")
        #expect(moment.status == .ok && moment.body == #"{"prices":[{"time":1709294400,"USD":61234}],"exchangeRates":{}}"# + "\n",
                "\(moment.body)")
        #expect(moment.header("X-Price-From") == "minute")
        let parsed = try json(moment)
        #expect(parsed["prices"]?.firstArrayElement?["USD"]?.numberLiteral == "61234", "read as Sparrow reads it: prices[0][currency]")
        #expect(routes().answer(method: .GET, uri: "/api/v1/historical-price?timestamp=1709294430&currency=usd").body == moment.body)

        let gap = routes().answer(method: .GET, uri: "/api/v1/historical-price?currency=USD&timestamp=1600000000")
        #expect(gap.body == #"{"prices":[{"time":1600000000,"USD":-1}],"exchangeRates":{}}"# + "\n", "never a guess: \(gap.body)")
        #expect(gap.header("X-Price-Error") == "no minute kept within an hour of it, and no close for its day")
        #expect(routes().answer(method: .GET, uri: "/api/v1/historical-price?timestamp=1900000000").status == .badRequest, "a moment to come")
        for bad in ["-5", "1e9", "soon", "99999999999999"] {
            #expect(routes().answer(method: .GET, uri: "/api/v1/historical-price?timestamp=\(bad)").status == .badRequest, "\(bad)")
        }
        let other = routes().answer(method: .GET, uri: "/api/v1/historical-price?currency=EUR&timestamp=1709294430")
        #expect(other.status == .notFound && other.body.contains("btcpriced serves BTC in USD"), "\(other.body)")

        let series = routes().answer(method: .GET, uri: "/api/v1/historical-price?currency=USD")
        #expect(series.body == #"{"prices":[{"time":1795219200,"USD":115000},{"time":1795132800,"USD":114460}],"exchangeRates":{}}"# + "\n",
                "\(series.body)")
    }

    /// LNbits' rate route and Yadio's, read as their clients read them: LNbits' `rate` is sats
    /// per unit and `price` BTC in the currency; Mostro reads `/exrates/BTC`'s `BTC` object of
    /// numbers, Zeus `/rate/{code}/BTC`'s `rate`. Past the window, or with no quote, 503.
    @Test func lnbitsAndYadioShapesAnswerTheServedCurrencyAndFailClosed() throws {
        let lnbits = routes().answer(method: .GET, uri: "/api/v1/rate/USD")
        #expect(lnbits.status == .ok && lnbits.body == #"{"rate":873.67147332,"price":114459.5}"# + "\n", "\(lnbits.body)")
        #expect(routes().answer(method: .GET, uri: "/api/v1/rate/usd").body == lnbits.body, "any case, as LNbits sends its setting")
        let table = try json(routes().answer(method: .GET, uri: "/exrates/BTC"))
        guard case .object(let rates)? = table["BTC"] else { Issue.record("no BTC object: \(table.encoded)"); return }
        #expect(rates.members.allSatisfy { $0.value.numberLiteral != nil } && rates["USD"]?.numberLiteral == "114459.5", "\(table.encoded)")
        #expect(table["base"]?.stringValue == "BTC" && table["timestamp"]?.numberLiteral == "1795276800123", "\(table.encoded)")
        let zeus = try json(routes().answer(method: .GET, uri: "/rate/USD/BTC"))
        #expect(zeus["rate"]?.numberLiteral == "114459.5", "\(zeus.encoded)")

        let elsewhere = routes().answer(method: .GET, uri: "/api/v1/rate/EUR")
        #expect(elsewhere.status == .notFound && elsewhere.body.contains("btcpriced serves BTC in USD"), "\(elsewhere.body)")
        #expect(routes().answer(method: .GET, uri: "/rate/%3Cb%3E/BTC").status == .notFound)
        let past = routes(Self.aged("stale", seconds: "611"))
        for uri in ["/api/v1/rate/USD", "/exrates/BTC", "/rate/USD/BTC"] {
            let refused = past.answer(method: .GET, uri: uri)
            let refusedCode = try json(refused)["error"]?.stringValue
            #expect(refused.status == .serviceUnavailable && refusedCode == "stale", "\(uri): \(refused.body)")
            #expect(!refused.body.contains("114459"), "\(uri) never carries the price once refused: \(refused.body)")
            let none = routes(Replies(status: Self.noData)).answer(method: .GET, uri: uri)
            let noneCode = try json(none)["error"]?.stringValue
            #expect(none.status == .serviceUnavailable && noneCode == "nodata", "\(uri): \(none.body)")
        }
        #expect(routes(Self.aged("stale", seconds: "30")).answer(method: .GET, uri: "/rate/USD/BTC").header("X-Price-State") == "stale")
        #expect(routes().answer(method: .GET, uri: "/api/rates?storeId=Fjt7gLnG&currencyPairs=BTC_USD").body.contains(#""rate":114459.5"#),
                "Zeus sends a storeId, which is accepted and ignored")
    }

    /// The chart marks its lowest and highest close, each labelled and kept inside the plot,
    /// under a time axis; a narrow screen stacks each source's cells beside their column's name.
    @Test func theDashboardMarksTheChartsLowAndHighUnderATimeAxis() {
        let page = routes().answer(method: .GET, uri: "/", nonce: "abc123").body
        #expect(page.contains(#"<path class="mark" id="highmark" d="M666 10h0"/><path class="mark" id="lowmark" d="M1000 290h0"/>"#), "\(page)")
        #expect(page.contains(#"<span class="extreme" id="low" style="bottom:-18px;left:100.0%;transform:translateX(-100.0%)">low "#)
                && page.contains(#"<span class="extreme" id="high" style="top:-18px;left:66.6%;transform:translateX(-66.6%)">high "#), "\(page)")
        #expect(page.contains(#"<div class="axis" id="axis"><span>15:00</span><span>15:30</span><span>16:30 UTC</span></div>"#), "\(page)")
        #expect(page.contains(#"<td data-label="route"><span>direct</span></td>"#), "\(page)")
        #expect(page.contains("<thead><tr><th>source</th><th>state</th><th>last price</th><th>latency</th><th>route</th><th>last error</th></tr></thead>"))
        var gaps = Replies()
        gaps.historyPoints = [.init(time: "2026-11-21T15:00:00Z", close: nil), .init(time: "2026-11-21T15:01:00Z", close: nil)]
        let empty = routes(gaps).answer(method: .GET, uri: "/", nonce: "n").body
        #expect(empty.contains(#"id="lowmark" d=""#) && empty.contains(#"id="low" style="">"#), "no marks without a known close: \(empty)")
        var week = Replies()
        week.historyPoints = [.init(time: "2026-11-14T16:00:00Z", close: "90000"), .init(time: "2026-11-21T16:00:00Z", close: "95000")]
        #expect(routes(week).answer(method: .GET, uri: "/?range=7d", nonce: "n").body.contains("<span>11-14</span><span>11-14</span><span>11-21 UTC</span>"),
                "a week is labelled by its days")
    }

    @Test func theDashboardEscapesVenueTextAndRunsOnlyItsOwnScript() {
        let answer = routes().answer(method: .GET, uri: "/", nonce: "abc123")
        #expect(answer.status == .ok && answer.header("Content-Type") == "text/html; charset=utf-8")
        #expect(answer.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"), "the venue's error is text")
        #expect(!answer.body.contains("<script>alert"), "no venue markup gets through")
        #expect(answer.header("Content-Security-Policy")?.contains("script-src 'nonce-abc123'") == true && answer.body.contains(#"<script nonce="abc123">"#))
        #expect(answer.body.contains(">114,459.50<") && answer.body.contains(#"data-price="114459.5""#), "the exact price, grouped")
        #expect(answer.body.utf8.count < 64 * 1024, "\(answer.body.utf8.count) bytes")
        for external in ["http://", "https://", "//"] where answer.body.contains("src=\"\(external)") || answer.body.contains("href=\"\(external)") {
            Issue.record("the page loads something from elsewhere: \(external)")
        }
        // 100000, a gap, 114459.5, 95000: scaled exactly between the low (y 290) and the high (y 10).
        #expect(answer.body.contains(#"d="M0 218h0M666 10h0L1000 290""#), "the server draws the chart, gaps breaking the line")
    }

    @Test("the Host header names a loopback address, localhost or a listed name", arguments: [
        ("127.0.0.1:9843", true), ("127.0.0.1", true), ("[::1]:9843", true), ("localhost:9843", true), ("LOCALHOST", true),
        ("127.1.2.3:80", true), ("umbrel.local:9843", true), ("evil.example:9843", false), ("127.0.0.1.evil.example", false),
        ("localhost.evil.example", false), ("192.168.1.5:9843", false), ("", false), ("[::1", false), ("127.0.0.1:x", false),
    ])
    func hostPolicy(host: String, allowed: Bool) {
        let policy = HostPolicy(listenHost: "127.0.0.1", hosts: ["umbrel.local"])
        #expect(policy.allows(host: host) == allowed, "\(host)")
    }

    @Test func aListenerOnAnotherAddressAnswersItsOwnLiteral() {
        let own = HostPolicy(listenHost: "192.168.1.5")
        #expect(own.allows(host: "192.168.1.5:9843") && !own.allows(host: "192.168.1.6:9843") && !own.allows(host: "node.example"))
        let all = HostPolicy(listenHost: "0.0.0.0")
        #expect(all.allows(host: "10.0.0.7:9843") && all.allows(host: "[fe80::1]:9843") && !all.allows(host: "node.example:9843"))
    }

    @Test func onlyListedOriginsGetCORSHeaders() {
        let policy = HostPolicy(listenHost: "127.0.0.1", origins: ["https://example.org"])
        #expect(policy.corsHeaders(origin: nil).isEmpty && policy.corsHeaders(origin: "https://evil.example").isEmpty)
        let allowed = policy.corsHeaders(origin: "https://example.org")
        #expect(allowed.contains { $0 == ("Access-Control-Allow-Origin", "https://example.org") } && allowed.contains { $0 == ("Vary", "Origin") })
        #expect(HostPolicy(listenHost: "127.0.0.1").corsHeaders(origin: "https://example.org").isEmpty)
    }

    @Test("half to even, exactly", arguments: [
        ("114459.5", 0, "114460"), ("114458.5", 0, "114458"), ("114458.50000001", 0, "114459"), ("2.345", 2, "2.34"), ("2.355", 2, "2.36"),
        ("9.5", 0, "10"), ("0.5", 0, "0"), ("1.5", 0, "2"), ("7", 0, "7"), ("7.25", 3, "7.250"),
    ])
    func halfEven(text: String, places: Int, expected: String) {
        #expect(DecimalText.roundedHalfEven(text, places: places) == expected)
    }
}
