import Foundation
import HTTPAPI
import JSONText
import ListenerKit
import PriceCore
import Testing
import WireProtocol

/// The HTTP routes of a daemon that serves several currencies (BTCPRICED_CURRENCIES): each
/// route answers the currency asked from that currency's own quote, and the shapes that carry
/// several (mempool's, BTCPay's, Yadio's table) fail closed per currency.
@Suite("HTTP routes, several currencies")
struct HTTPCurrenciesTests {
    typealias Replies = HTTPRoutesTests.Replies

    /// USD (the primary, fresh), EUR (fresh, quoted a minute earlier) and JPY (stale past the window).
    struct Several: StatusProvider {
        let usd = Replies()
        let others: [(code: String, replies: Replies)] = {
            var euro = Replies(), yen = HTTPRoutesTests.aged("stale", seconds: "611")
            euro.status = euro.status.replacingOccurrences(of: #""price":"114459.5","currency":"USDT","symbol":"BTCUSDT""#,
                                                           with: #""price":"98765.4","currency":"EUR","symbol":"BTCEUR""#)
                .replacingOccurrences(of: "2026-11-21T16:00:00.123Z", with: "2026-11-21T15:59:00.456Z")
            yen.status = yen.status.replacingOccurrences(of: #""price":"114459.5","currency":"USDT","symbol":"BTCUSDT","source":"binance""#,
                                                         with: #""price":"17345678","currency":"JPY","symbol":"XXBTZJPY","source":"kraken""#)
            return [("EUR", euro), ("JPY", yen)]
        }()
        func statusReply() -> String { usd.statusReply() }
        func priceReply() -> String { usd.priceReply() }
        func sourcesReport() -> String { usd.sourcesReport() }
        func historyReply(_ query: HistoryQuery) -> String { usd.historyReply(query) }
        func dailyReply(_ query: DailyQuery) -> String { usd.dailyReply(query) }
        func metricsReply() -> String { usd.metricsReply() }
        var servedCurrencies: [String] { ["USD"] + others.map(\.code) }
        func replies(for currency: String) -> (any StatusProvider)? { currency == "USD" ? self : others.first { $0.code == currency }?.replies }
    }

    let routes = HTTPRoutes(replies: Several(), currency: .usd, version: "0.1.0",
                            window: ServeStaleWindow(staleAfter: .seconds(10), serveStaleFor: .seconds(600)))

    func json(_ uri: String) throws -> JSONValue { try JSONValue(parsing: routes.answer(method: .GET, uri: uri).body) }

    @Test func theNativeRoutesTakeACurrency() throws {
        #expect(try json("/api/v1/status?currency=eur")["price"] == .string("98765.4"))
        #expect(try json("/api/v1/status")["price"] == .string("114459.5"), "none asked: the primary")
        let yen = routes.answer(method: .GET, uri: "/api/v1/price?currency=JPY")
        #expect(yen.body == "17345678\n" && yen.header("X-Price-State") == "stale", "the native route keeps its state: \(yen.body)")
        let other = routes.answer(method: .GET, uri: "/api/v1/status?currency=NOK")
        #expect(other.status == .notFound && other.body.contains("btcpriced serves BTC in USD, EUR, JPY, not \\\"NOK\\\""), "\(other.body)")
        #expect(routes.answer(method: .GET, uri: "/api/v1/price?currency=%3Cb%3E").status == .notFound)
    }

    /// The dashboard leads with a link to each currency; `/?currency=EUR` is the euro's page,
    /// whose every link and request names the euro.
    @Test func theDashboardSwitchesCurrency() throws {
        let primary = routes.answer(method: .GET, uri: "/").body
        #expect(primary.contains(#"<nav class="currencies" aria-label="currency"><a href="/" class="on" aria-current="page">USD</a><a href="/?currency=EUR">EUR</a><a href="/?currency=JPY">JPY</a></nav>"#),
                "\(primary.prefix(3000))")
        #expect(primary.contains(#"href="/?range=1h""#) && primary.contains(#""query":"""#))
        let euro = routes.answer(method: .GET, uri: "/?currency=eur&range=7d")
        #expect(euro.status == .ok && euro.body.contains("98,765.40") && euro.body.contains(#"<a href="/?currency=EUR" class="on" aria-current="page">EUR</a>"#),
                "\(euro.body.prefix(3000))")
        #expect(euro.body.contains(#"href="/?currency=EUR&amp;range=1h""#) && euro.body.contains(#""query":"currency=EUR""#) && euro.body.contains(#""symbol":"€""#))
        #expect(routes.answer(method: .GET, uri: "/?currency=NOK").status == .notFound)
        let single = HTTPRoutes(replies: Replies(), currency: .usd, version: "0.1.0", window: ServeStaleWindow(staleAfter: .seconds(10), serveStaleFor: .seconds(600)))
        #expect(!single.answer(method: .GET, uri: "/").body.contains("<nav"), "one currency: no switcher")
        let events = routes.answer(method: .GET, uri: "/api/v1/events?currency=eur")
        #expect(events.kind == .events(.currency("EUR")) && routes.answer(method: .GET, uri: "/api/v1/events?currency=*").kind == .events(.every)
                && routes.answer(method: .GET, uri: "/api/v1/events?currency=USD").kind == .events(.primary))
    }

    /// mempool's shape: each currency served among its seven, a stale one -1 (never 0 or a
    /// stale number), `time` the oldest quote carried.
    @Test func mempoolsPricesCarryEveryCurrencyAndTheOldestTime() throws {
        let answer = routes.answer(method: .GET, uri: "/api/v1/prices")
        #expect(answer.body == #"{"time":1795276740,"USD":114460,"EUR":98765,"JPY":-1}"# + "\n", "\(answer.body)")
        #expect(answer.header("X-Price-Error")?.hasPrefix("JPY: ") == true, "\(String(describing: answer.header("X-Price-Error")))")
    }

    /// BTCPay's shape: each pair from its own currency's quote; a stale one and one not served
    /// get `rate: null` and an error, never another currency's price.
    @Test func btcpaysRatesAnswerEachPairFromItsCurrency() throws {
        let rates = try json("/api/rates?currencyPairs=BTC_USD,BTC_EUR,BTC_JPY,BTC_NOK&storeId=zeus").arrayElements ?? []
        #expect(rates.map { $0["rate"]?.numberLiteral ?? "null" } == ["114459.5", "98765.4", "null", "null"], "\(rates)")
        #expect(rates[3]["errors"]?.firstArrayElement?.stringValue?.contains("add NOK to BTCPRICED_CURRENCIES") == true, "\(rates[3])")
        #expect(try json("/api/rates").arrayElements?.compactMap { $0["code"]?.stringValue } == ["USD", "EUR", "JPY"], "no pairs: every pair served")
    }

    @Test func lnbitsAndYadioAnswerEachCurrencyAndLeaveOutAStaleOne() throws {
        #expect(try json("/api/v1/rate/EUR")["price"]?.numberLiteral == "98765.4")
        #expect(routes.answer(method: .GET, uri: "/api/v1/rate/JPY").status == .serviceUnavailable, "stale past the window: 503")
        #expect(try json("/rate/eur/BTC")["rate"]?.numberLiteral == "98765.4")
        let table = try json("/exrates/BTC")
        guard case .object(let rates)? = table["BTC"] else { Issue.record("no BTC object: \(table.encoded)"); return }
        #expect(rates.members.map(\.key) == ["USD", "EUR"] && table["timestamp"]?.numberLiteral == "1795276740456", "\(table.encoded)")
    }
}
