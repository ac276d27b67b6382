import JSONText
import PriceCore

/// `GET /api/v3/ticker/price?symbol=BTCUSDT` → `{"symbol":"BTCUSDT","price":"114459.80000000"}`;
/// once a minute `GET /api/v3/ticker/24hr?symbol=BTCUSDT&type=MINI` instead, which weighs the
/// same (2) and also states the rolling 24 h open, high and low.
public enum BinanceAPI {
    public static func path(symbol: String) -> String { "/api/v3/ticker/price?symbol=\(symbol)" }
    public static func dayPath(symbol: String) -> String { "/api/v3/ticker/24hr?symbol=\(symbol)&type=MINI" }
    /// How often the price request is the 24 h one.
    public static let dayFiguresEvery = Duration.seconds(60)

    /// 6,000 request weight a minute per IP; one symbol's ticker/price weighs 2. One call a
    /// second is 120 a minute, leaving the rest to other programs behind the same address.
    /// All instances on a host together: 10 calls a second, 1,200 weight a minute, a fifth of it.
    public static let limits = SourceLimits(minimumInterval: .seconds(1), hostInterval: .milliseconds(100))
    public static let weightLimitPerMinute = 6000
    /// Rest before the limit, not after a 429 or a 418 ban: at 80 % of the minute's weight.
    public static let weightPauseThreshold = 4800
    /// The weight window is a calendar minute, so a minute's rest always clears it.
    public static let weightPause = Duration.seconds(60)

    /// The market's quote asset: `BTCUSDT` → `USDT`, `BTCUSDC` → `USDC`, `BTCUSD` → `USD`.
    public static func quoteAsset(symbol: String) -> String {
        symbol.hasPrefix("BTC") && symbol.count > 3 ? String(symbol.dropFirst(3)) : symbol
    }

    /// The 24 h mini ticker: `{"symbol":"BTCUSDT","openPrice":"…","highPrice":"…","lowPrice":"…","lastPrice":"…",…}`.
    public static func parseDay(_ response: ExchangeResponse, expectedSymbol: String) throws(FetchFailure) -> SourceQuote {
        let json = try checked(response, expectedSymbol: expectedSymbol)
        return SourceQuote(price: try ResponseChecks.price(json["lastPrice"], field: "lastPrice"), symbol: expectedSymbol,
                           quoteAsset: quoteAsset(symbol: expectedSymbol), pauseRequested: pause(response),
                           day: ResponseChecks.dayRange(open: json["openPrice"], high: json["highPrice"], low: json["lowPrice"]))
    }

    /// `GET /api/v3/ticker/price?symbols=["BTCUSDT","BTCEUR"]` (the list percent-encoded) →
    /// `[{"symbol":"BTCUSDT","price":"…"},{"symbol":"BTCEUR","price":"…"}]`; a list weighs 4,
    /// twice one symbol, for every symbol in it.
    public static func path(symbols: [String]) -> String {
        "/api/v3/ticker/price?symbols=%5B" + symbols.map { "%22\($0)%22" }.joined(separator: ",") + "%5D"
    }

    /// Each symbol's price in a list answer, by the currency it was asked for; one missing from
    /// it is that currency's failure.
    public static func parse(_ response: ExchangeResponse, symbols: [(currency: String, symbol: String)]) throws(FetchFailure) -> BatchEndpoint.Answers {
        let json = try answer(response)
        guard let tickers = json.arrayElements else { throw .missingField("a list of tickers") }
        let pause = pause(response)
        var answers: BatchEndpoint.Answers = [:]
        for (currency, symbol) in symbols {
            guard let ticker = tickers.first(where: { $0["symbol"]?.stringValue == symbol }) else {
                answers[currency] = .failure(.missingField("the ticker of \(symbol)"))
                continue
            }
            do {
                answers[currency] = .success(SourceQuote(price: try ResponseChecks.price(ticker["price"], field: "price"), symbol: symbol,
                                                         quoteAsset: quoteAsset(symbol: symbol), pauseRequested: pause))
            } catch { answers[currency] = .failure(error) }
        }
        return answers
    }

    public static func parse(_ response: ExchangeResponse, expectedSymbol: String) throws(FetchFailure) -> SourceQuote {
        let json = try checked(response, expectedSymbol: expectedSymbol)
        return SourceQuote(price: try ResponseChecks.price(json["price"], field: "price"), symbol: expectedSymbol,
                           quoteAsset: quoteAsset(symbol: expectedSymbol), pauseRequested: pause(response))
    }

    /// The body of a successful answer for the expected symbol.
    static func checked(_ response: ExchangeResponse, expectedSymbol: String) throws(FetchFailure) -> JSONValue {
        let json = try answer(response)
        guard let symbol = json["symbol"]?.stringValue else { throw .missingField("symbol") }
        guard symbol == expectedSymbol else { throw .wrongSymbol(expected: expectedSymbol, got: symbol) }
        return json
    }

    /// The answer's JSON once Binance's error object and the shared statuses are ruled out.
    static func answer(_ response: ExchangeResponse) throws(FetchFailure) -> JSONValue {
        if !ResponseChecks.isSharedStatus(response.status), let message = response.errorJSON?["msg"]?.stringValue {
            // `{"code":-1121,"msg":"Invalid symbol."}` says more than the bare status.
            throw .exchangeError("HTTP \(response.status): \(message)")
        }
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        if let message = json["msg"]?.stringValue { throw .exchangeError(message) }
        return json
    }

    static func pause(_ response: ExchangeResponse) -> Duration? {
        let used = response.usedWeight.flatMap { Int($0.trimmingBlanks) } ?? 0
        return used >= weightPauseThreshold ? weightPause : nil
    }
}
