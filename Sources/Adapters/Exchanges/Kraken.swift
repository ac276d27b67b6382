import JSONText
import PriceCore

/// `GET /0/public/Ticker?pair=XBTUSD` → `{"error":[],"result":{"XXBTZUSD":{"c":["85866.10000","0.0012"],…}}}`.
/// The result key is Kraken's own name for the pair (`XXBTZEUR` for XBTEUR, but `XBTCHF` for
/// XBTCHF), so the single entry is taken and its name checked by its ending; `c[0]` is the
/// last trade's price. Errors come with HTTP 200 as `{"error":["EQuery:Unknown asset pair"]}`.
public enum KrakenAPI {
    /// The currencies Kraken lists BTC against.
    public static let currencies = ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"]
    public static func path(currency: String) -> String { "/0/public/Ticker?pair=XBT\(currency)" }
    /// Public endpoints allow about one call a second per IP; every 2 s keeps clear of it.
    /// All instances on a host together: one a second, the published rate, which the candles
    /// share (`KrakenCandles.pace`).
    public static let limits = SourceLimits(minimumInterval: .seconds(2), hostInterval: .seconds(1))

    public static func parse(_ response: ExchangeResponse, currency: String = "USD") throws(FetchFailure) -> SourceQuote {
        let result = try result(of: response)
        guard result.members.count == 1, let pair = result.members.first else {
            throw .exchangeError("expected one pair in result, got \(result.members.count)")
        }
        guard isPair(pair.key, of: currency) else {
            throw .wrongSymbol(expected: "XBT\(currency)", got: pair.key)
        }
        return try quote(pair, currency: currency)
    }

    /// `GET /0/public/Ticker?pair=XBTUSD,XBTEUR`: the Ticker takes a comma-separated list of
    /// pairs and answers each under its own key, in one request (one call of the public rate).
    public static func path(currencies: [String]) -> String { "/0/public/Ticker?pair=" + currencies.map { "XBT" + $0 }.joined(separator: ",") }

    /// Each currency's pair in a list answer; one missing from it is that currency's failure.
    public static func parse(_ response: ExchangeResponse, currencies: [String]) throws(FetchFailure) -> BatchEndpoint.Answers {
        let result = try result(of: response)
        var answers: BatchEndpoint.Answers = [:]
        for currency in currencies {
            guard let pair = result.members.first(where: { isPair($0.key, of: currency) }) else {
                answers[currency] = .failure(.missingField("result.XBT\(currency)"))
                continue
            }
            do { answers[currency] = .success(try quote(pair, currency: currency)) } catch { answers[currency] = .failure(error) }
        }
        return answers
    }

    /// Kraken's key for the pair: `XXBTZEUR` or `XBTCHF`, ending with the currency.
    static func isPair(_ key: String, of currency: String) -> Bool { key.contains("XBT") && key.hasSuffix(currency) }

    static func quote(_ pair: JSONMember, currency: String) throws(FetchFailure) -> SourceQuote {
        guard let last = pair.value["c"]?.firstArrayElement else { throw .missingField("result.\(pair.key).c") }
        // `h[1]` and `l[1]` cover the last 24 h; `o` is today's (UTC) open, not 24 h ago, so no open.
        let day = ResponseChecks.dayRange(open: nil, high: pair.value["h"]?.arrayElements?.dropFirst().first,
                                          low: pair.value["l"]?.arrayElements?.dropFirst().first)
        return SourceQuote(price: try ResponseChecks.price(last, field: "c[0]"), symbol: pair.key, quoteAsset: currency, day: day)
    }

    /// The `result` object of an answer, once Kraken's error array (sent with HTTP 200) and the
    /// shared statuses are ruled out; its tickers and its candles alike.
    static func result(of response: ExchangeResponse) throws(FetchFailure) -> JSONObject {
        let errors = response.errorJSON?["error"].flatMap(\.stringElements) ?? []
        if let first = errors.first, ![429, 418, 451].contains(response.status) {
            if ResponseChecks.soundsRateLimited(first) { throw .rateLimited(retryAfter: nil) }
            throw .exchangeError(response.status < 300 ? first : "HTTP \(response.status): \(first)")
        }
        try ResponseChecks.requireSuccess(response)
        guard case .object(let result)? = try response.json()["result"] else { throw .missingField("result") }
        return result
    }
}
