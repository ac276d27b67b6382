import JSONText
import PriceCore

/// `GET /v2/prices/BTC-USD/spot` → `{"data":{"amount":"85866.185","base":"BTC","currency":"USD"}}`;
/// `BTC-EUR` and `BTC-GBP` alike.
/// Errors: `{"errors":[{"id":"not_found","message":"Invalid base currency"}]}`; 429 carries the id
/// `rate_limit_exceeded`.
public enum CoinbaseAPI {
    /// The currencies with a BTC market on Coinbase Exchange (its spot price for others is a
    /// conversion, not a market).
    public static let currencies = ["USD", "EUR", "GBP"]
    public static func symbol(currency: String) -> String { "BTC-\(currency)" }
    public static func path(currency: String) -> String { "/v2/prices/\(symbol(currency: currency))/spot" }
    /// 10,000 requests an hour; one a second is 3,600.
    /// All instances on a host together: 7,200 an hour at most.
    public static let limits = SourceLimits(minimumInterval: .seconds(1), hostInterval: .milliseconds(500))

    public static func parse(_ response: ExchangeResponse, currency expected: String = "USD") throws(FetchFailure) -> SourceQuote {
        let data = try data(of: response)
        let base = data["base"]?.stringValue ?? "?", currency = data["currency"]?.stringValue ?? "?"
        let symbol = symbol(currency: expected)
        guard base == "BTC", currency == expected else { throw .wrongSymbol(expected: symbol, got: "\(base)-\(currency)") }
        return SourceQuote(price: try ResponseChecks.price(data["amount"], field: "data.amount"), symbol: symbol, quoteAsset: expected)
    }

    /// The `data` object of a v2 answer (the spot prices', the reference table's), once its
    /// `errors` (with their HTTP status) and the shared statuses (429, 5xx…) are ruled out.
    static func data(of response: ExchangeResponse) throws(FetchFailure) -> JSONValue {
        let errorMessage = response.errorJSON?["errors"]?.firstArrayElement?["message"]?.stringValue
        if !ResponseChecks.isSharedStatus(response.status), let errorMessage {
            throw .exchangeError("HTTP \(response.status): \(errorMessage)")
        }
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        if let errorMessage { throw .exchangeError(errorMessage) }
        guard let data = json["data"] else { throw .missingField("data") }
        return data
    }
}
