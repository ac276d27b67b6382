import JSONText
import PriceCore

/// `GET /api/v2/ticker/btcusd/` (or `btceur`, `btcgbp`) → `{"last":"85866","timestamp":"1763740800","open":"…",…}`.
/// Errors: `{"status":"error","reason":"…","code":"400.002"}`, where 400.002 is its rate limit.
public enum BitstampAPI {
    /// The currencies Bitstamp lists BTC against.
    public static let currencies = ["USD", "EUR", "GBP"]
    public static func symbol(currency: String) -> String { "btc" + currency.lowercased() }
    public static func path(currency: String) -> String { "/api/v2/ticker/\(symbol(currency: currency))/" }
    /// 400 requests a second and 10,000 per 10 minutes; one a second is 600.
    /// All instances on a host together: 5 a second, 3,000 per 10 minutes.
    public static let limits = SourceLimits(minimumInterval: .seconds(1), hostInterval: .milliseconds(200))

    public static func parse(_ response: ExchangeResponse, currency: String = "USD") throws(FetchFailure) -> SourceQuote {
        let json = try answer(response)
        // `open_24` is the price 24 h ago; `high` and `low` cover the last 24 h.
        return SourceQuote(price: try ResponseChecks.price(json["last"], field: "last"), symbol: symbol(currency: currency), quoteAsset: currency,
                           day: ResponseChecks.dayRange(open: json["open_24"], high: json["high"], low: json["low"]),
                           originTime: ResponseChecks.epochSeconds(json["timestamp"]))
    }

    /// The answer's JSON once Bitstamp's `status: error` object (400.002 is its rate limit) and
    /// the shared statuses are ruled out; its ticker and its candles alike.
    static func answer(_ response: ExchangeResponse) throws(FetchFailure) -> JSONValue {
        if let error = response.errorJSON, error["status"]?.stringValue == "error" {
            let reason = error["reason"]?.stringValue ?? error["reason"].map(\.encoded) ?? "unspecified error"
            if error["code"]?.stringValue == "400.002" || ResponseChecks.soundsRateLimited(reason) || response.status == 429 {
                throw .rateLimited(retryAfter: ResponseChecks.retryAfter(response.retryAfter))
            }
            if ResponseChecks.isSharedStatus(response.status) && response.status >= 400 { try ResponseChecks.requireSuccess(response) }
            throw .exchangeError(response.status < 300 ? reason : "HTTP \(response.status): \(reason)")
        }
        try ResponseChecks.requireSuccess(response)
        return try response.json()
    }
}
