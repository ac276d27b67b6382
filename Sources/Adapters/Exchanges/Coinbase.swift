import JSONText
import PriceCore

/// `GET /v2/prices/BTC-USD/spot` → `{"data":{"amount":"85866.185","base":"BTC","currency":"USD"}}`.
/// Errors: `{"errors":[{"id":"not_found","message":"Invalid base currency"}]}`; 429 carries the id
/// `rate_limit_exceeded`.
public enum CoinbaseAPI {
    public static let path = "/v2/prices/BTC-USD/spot"
    public static let symbol = "BTC-USD"
    public static let quoteAsset = "USD"
    /// 10,000 requests an hour; one a second is 3,600.
    public static let limits = SourceLimits(minimumInterval: .seconds(1))

    public static func parse(_ response: ExchangeResponse) throws(FetchFailure) -> SourceQuote {
        let errorMessage = response.errorJSON?["errors"]?.firstArrayElement?["message"]?.stringValue
        if !ResponseChecks.isSharedStatus(response.status), let errorMessage {
            throw .exchangeError("HTTP \(response.status): \(errorMessage)")
        }
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        if let errorMessage { throw .exchangeError(errorMessage) }
        guard let data = json["data"] else { throw .missingField("data") }
        let base = data["base"]?.stringValue ?? "?", currency = data["currency"]?.stringValue ?? "?"
        guard base == "BTC", currency == quoteAsset else { throw .wrongSymbol(expected: symbol, got: "\(base)-\(currency)") }
        return SourceQuote(price: try ResponseChecks.price(data["amount"], field: "data.amount"), symbol: symbol, quoteAsset: quoteAsset)
    }
}
