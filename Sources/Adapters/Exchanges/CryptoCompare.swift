import JSONText
import PriceCore

/// `GET /data/price?fsym=BTC&tsyms=USD` → `{"USD":114459.8}`, the price as a JSON number.
/// Errors come with HTTP 200 and `"Response":"Error"` in the body.
public enum CryptoCompareAPI {
    public static let path = "/data/price?fsym=BTC&tsyms=USD"
    public static let symbol = "BTCUSD"

    public static func parse(_ response: ExchangeResponse) throws(FetchFailure) -> SourceQuote {
        try ResponseChecks.requireSuccess(response)
        let json = try ResponseChecks.json(response.body)
        if json["Response"]?.stringValue == "Error" {
            let message = json["Message"]?.stringValue ?? "unspecified error"
            if message.lowercased().contains("rate limit") { throw .rateLimited(retryAfter: nil) }
            throw .exchangeError(message)
        }
        return SourceQuote(price: try ResponseChecks.price(json["USD"], field: "USD"), symbol: symbol)
    }
}
