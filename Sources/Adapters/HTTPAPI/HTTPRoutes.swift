import NIOHTTP1
import PriceCore
import ListenerKit
import WireProtocol
import JSONText

/// The one place an HTTP request is routed: the socket's replies in the shapes HTTP clients
/// read. Pure (no channel, no clock of its own), so a test needs no socket; the connection
/// handler has already checked the `Host` header and the request's size.
public final class HTTPRoutes: Sendable {
    /// The routes, by path; each answers GET and HEAD only (nothing can be written over HTTP).
    public enum Route: String, Sendable, CaseIterable {
        case dashboard = "/"
        case status = "/api/v1/status"
        case price = "/api/v1/price"
        case history = "/api/v1/history"
        case sources = "/api/v1/sources"
        case events = "/api/v1/events"
        case prices = "/api/v1/prices"
        case historicalPrice = "/api/v1/historical-price"
        case rates = "/api/rates"
        case metrics = "/metrics"
        /// LNbits' fiat rate, `/api/v1/rate/USD`.
        case lnbitsRate = "/api/v1/rate/{CURRENCY}"
        /// Yadio's table of BTC in every currency served.
        case yadioTable = "/exrates/BTC"
        /// Yadio's one rate, `/rate/USD/BTC`.
        case yadioRate = "/rate/{CURRENCY}/BTC"

        /// The label requests are counted under.
        var metricName: String {
            switch self {
            case .dashboard: "dashboard"
            case .status: "status"
            case .price: "price"
            case .history: "history"
            case .sources: "sources"
            case .events: "events"
            case .prices: "prices"
            case .historicalPrice: "historical_price"
            case .rates: "rates"
            case .metrics: "metrics"
            case .lnbitsRate: "lnbits_rate"
            case .yadioTable: "yadio_exrates"
            case .yadioRate: "yadio_rate"
            }
        }
    }

    public static let allowedMethods = "GET, HEAD"

    private let replies: any StatusProvider
    /// The primary currency and every other the daemon serves (BTCPRICED_CURRENCIES).
    private let quotes: ServedQuotes
    private let dashboard: DashboardPage
    /// How long the compatibility routes still answer a stale quote with a number.
    private let window: ServeStaleWindow

    public init(replies: any StatusProvider, currency: Currency, version: String, window: ServeStaleWindow) {
        self.replies = replies
        quotes = ServedQuotes(primary: ServedQuote(currency: currency, replies: replies))
        self.window = window
        dashboard = DashboardPage(currency: currency, version: version)
    }

    /// The route a path names, if any.
    public static func route(_ path: String) -> Route? {
        if let route = Route(rawValue: path) { return route }
        if path.hasPrefix(lnbitsPrefix), path.utf8.count > lnbitsPrefix.utf8.count { return .lnbitsRate }
        if path.hasPrefix(yadioPrefix), path.hasSuffix("/BTC"), path.utf8.count > yadioPrefix.utf8.count + 4 { return .yadioRate }
        return nil
    }

    private static let lnbitsPrefix = "/api/v1/rate/", yadioPrefix = "/rate/"

    /// The currency a rate route's path names: `USD` in `/api/v1/rate/USD` and `/rate/USD/BTC`.
    static func currency(in path: String, of route: Route) -> Substring {
        switch route {
        case .lnbitsRate: path.dropFirst(lnbitsPrefix.count)
        case .yadioRate: path.dropFirst(yadioPrefix.count).dropLast("/BTC".count)
        default: ""
        }
    }

    /// The answer to `method` on `uri`; a HEAD gets the GET's headers, and the connection sends
    /// no body for it.
    public func answer(method: HTTPMethod, uri: String, nonce: @autoclosure () -> String = DashboardPage.nonce()) -> HTTPAnswer {
        answer(method: method, target: RequestTarget(uri), nonce: nonce())
    }

    func answer(method: HTTPMethod, target: RequestTarget, nonce: @autoclosure () -> String = DashboardPage.nonce()) -> HTTPAnswer {
        answer(method: method, route: Self.route(target.path), target: target, nonce: nonce())
    }

    /// The answer for a path already matched to its route (nil for none), as the listener
    /// matches it once for its count and its answer.
    func answer(method: HTTPMethod, route: Route?, target: RequestTarget, nonce: @autoclosure () -> String = DashboardPage.nonce()) -> HTTPAnswer {
        guard let route else {
            return .error(.notFound, code: "not-found", "no such path; the API is under /api/v1/ (status, price, history, sources, events, prices, "
                          + "historical-price, rate/USD), with /api/rates, /exrates/BTC, /rate/USD/BTC, /metrics and the dashboard at /")
        }
        guard method == .GET || method == .HEAD else {
            return .error(.methodNotAllowed, code: "method-not-allowed", "\(route.rawValue) answers GET and HEAD only; nothing can be written over HTTP",
                          headers: [("Allow", Self.allowedMethods)])
        }
        return answer(route, path: target.path, parameters: target.parameters, nonce: nonce)
    }

    func answer(_ route: Route, path: String, parameters: [String: String], nonce: () -> String) -> HTTPAnswer {
        switch route {
        case .dashboard:
            // `/?range=7d` draws another span, for a browser without JavaScript; `?currency=EUR` another currency.
            let range = parameters["range"].flatMap(HistoryRange.init(rawValue:)) ?? .day
            return quotes.answer(in: parameters["currency"]) { quote in
                let replies = quote.replies
                let page = dashboard.render(status: replies.status(), sources: replies.sources(),
                                            history: replies.history(HistoryQuery(range: range, points: DashboardPage.chartPoints)), nonce: nonce(),
                                            shown: quote.currency, served: quotes.codes)
                return HTTPAnswer(status: .ok, contentType: "text/html; charset=utf-8", body: page.html, headers: page.headers)
            }
        case .status:
            return quotes.answer(in: parameters["currency"]) { .json($0.replies.statusReply(), headers: Self.noStore) }
        case .price:
            return quotes.answer(in: parameters["currency"]) { price($0.replies) }
        case .history:
            return quotes.answer(in: parameters["currency"]) { history(parameters, replies: $0.replies) }
        case .sources:
            return quotes.answer(in: parameters["currency"]) { .json($0.replies.sourcesReport(), headers: Self.noStore) }
        case .events:
            // `?currency=EUR` follows one currency, `?currency=*` every one; none, the primary.
            let topic: WatchTopic
            switch parameters["currency"] {
            case nil: topic = .primary
            case Request.Addressed.everyCurrency?: topic = .every
            case let asked?:
                guard let quote = quotes.served(asked) else { return ServedCurrency.elsewhere(asked, served: quotes.codes) }
                topic = quote.currency == quotes.primary.currency ? .primary : .currency(quote.currency.code)
            }
            return HTTPAnswer(status: .ok, contentType: "text/event-stream; charset=utf-8", body: "",
                              headers: Self.noStore + [("X-Accel-Buffering", "no")], kind: .events(topic))
        case .prices:
            // mempool's seven, and the primary currency whatever it is.
            let carried = quotes.all.filter { Currency.mempoolCodes.contains($0.currency.code) || $0.currency == quotes.primary.currency }
            return CompatibleRates.mempool(carried.map { ($0.currency, $0.replies.status()) }, window: window)
        case .rates:
            return CompatibleRates.btcpay(quotes, window: window, pairs: parameters["currencyPairs"])
        case .metrics:
            return HTTPAnswer(status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: replies.metricsReply(), headers: Self.noStore)
        case .historicalPrice:
            return quotes.answer(in: parameters["currency"]) { HistoricalPrice.answer(parameters: parameters, replies: $0.replies, currency: $0.currency) }
        case .lnbitsRate:
            return quotes.answer(in: String(Self.currency(in: path, of: route))) { NodeRates.lnbits(status: $0.replies.status(), window: window) }
        case .yadioTable:
            return NodeRates.yadioTable(quotes.all.map { ($0.currency, $0.replies.status()) }, window: window)
        case .yadioRate:
            return quotes.answer(in: String(Self.currency(in: path, of: route))) { NodeRates.yadioRate(status: $0.replies.status(), window: window) }
        }
    }

    /// An event stream's first line: the status as it joins (the stream is then read at the
    /// publish interval, as for a `watch`).
    /// The status of each currency `topic` follows, as its stream starts.
    func firstEvents(_ topic: WatchTopic) -> [String] {
        switch topic {
        case .primary: [replies.firstWatchLine()]
        case .currency(let code): [(quotes.served(code)?.replies ?? replies).firstWatchLine()]
        case .every: quotes.all.map { $0.replies.firstWatchLine() }
        }
    }

    /// A price is never cached: it is only worth what its age says.
    static let noStore = [("Cache-Control", "no-store")]

    /// As `btcctl price` prints it, with its freshness in a header; no price is a 503.
    private func price(_ replies: any StatusProvider) -> HTTPAnswer {
        let status = replies.status()
        guard let price = status.price else {
            return .error(.serviceUnavailable, ErrorReply.noData, headers: Self.noStore + [("Retry-After", "1"), ("X-Price-State", "nodata")])
        }
        return HTTPAnswer(status: .ok, contentType: HTTPAnswer.textType, body: price + "\n",
                          headers: Self.noStore + [("X-Price-State", status.state.rawValue)])
    }

    /// `?range=1h|24h|7d&points=N`, the socket's `history RANGE [POINTS]`; `?range=daily&since=2025-01-01`,
    /// its `history daily [SINCE]`.
    private func history(_ parameters: [String: String], replies: any StatusProvider) -> HTTPAnswer {
        var words = [parameters["range"] ?? HistoryRange.day.rawValue]
        if let points = parameters["points"] { words.append(points) }
        if let since = parameters["since"] { words.append(since) }
        guard !words.contains(where: { $0.isEmpty || $0.contains(where: { !$0.isASCII || $0.isWhitespace }) }) else {
            return .error(.badRequest, code: "bad-request", "history takes range=1h, 24h or 7d and points=1 to \(HistoryQuery.maximumPoints), or range=daily and since=YYYY-MM-DD")
        }
        switch Request.history(arguments: words[...]) {
        case .success(.history(let query)): return .json(replies.historyReply(query), headers: Self.noStore)
        case .success(.daily(let query)): return .json(replies.dailyReply(query), headers: Self.noStore)
        case .failure(let error): return .error(.badRequest, error)
        case .success: return .error(.badRequest, code: "bad-request", "history takes range=1h, 24h or 7d and points=1 to \(HistoryQuery.maximumPoints), or range=daily and since=YYYY-MM-DD")
        }
    }
}
