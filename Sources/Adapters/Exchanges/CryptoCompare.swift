import JSONText
import PriceCore

/// `GET /data/price?fsym=BTC&tsyms=USD` → `{"USD":114459.8}`, the price as a JSON number.
/// Since its free tier ended it wants `authorization: Apikey KEY`; without one it answers 401
/// `{"Err":{"message":"API key required…"}}`, and older deployments HTTP 200 with
/// `"Response":"Error"` (`Type` 1 for auth, 99 for rate limits).
public enum CryptoCompareAPI {
    /// The currencies asked of its aggregate index here; it has more, but these have deep markets.
    public static let currencies = ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"]
    public static func path(currency: String) -> String { "/data/price?fsym=BTC&tsyms=\(currency)" }
    /// Answers are cached for 10 s (`Cache-Control: max-age=10`): asking sooner buys nothing.
    public static let minimumInterval = Duration.seconds(10)
    public static let defaultDailyCalls = 7500

    public static func limits(dailyCalls: Int) -> SourceLimits {
        SourceLimits(minimumInterval: minimumInterval, dailyCalls: dailyCalls)
    }

    public static func authorizationHeader(apiKey: String) -> String { "Apikey \(apiKey)" }

    /// `GET /data/price?fsym=BTC&tsyms=USD,EUR` → `{"USD":114459.8,"EUR":98765.4}`: one call for every currency.
    public static func path(currencies: [String]) -> String { "/data/price?fsym=BTC&tsyms=" + currencies.joined(separator: ",") }

    /// Each currency's price in a list answer; one missing from it is that currency's failure.
    public static func parse(_ response: ExchangeResponse, currencies: [String]) throws(FetchFailure) -> BatchEndpoint.Answers {
        let json = try answer(response)
        var answers: BatchEndpoint.Answers = [:]
        for currency in currencies {
            do {
                answers[currency] = .success(SourceQuote(price: try ResponseChecks.price(json[currency], field: currency), symbol: "BTC" + currency,
                                                         quoteAsset: currency))
            } catch { answers[currency] = .failure(error) }
        }
        return answers
    }

    public static func parse(_ response: ExchangeResponse, currency: String = "USD") throws(FetchFailure) -> SourceQuote {
        let json = try answer(response)
        return SourceQuote(price: try ResponseChecks.price(json[currency], field: currency), symbol: "BTC" + currency, quoteAsset: currency)
    }

    /// The answer's JSON once its errors (401, `Response: Error` with its `Type`) are ruled out.
    static func answer(_ response: ExchangeResponse) throws(FetchFailure) -> JSONValue {
        if !ResponseChecks.isSharedStatus(response.status), let error = response.errorJSON?["Err"] {
            let message = error["message"]?.stringValue ?? "HTTP \(response.status)"
            if response.status == 401 || response.status == 403 { throw .unauthorized(message) }
            if ResponseChecks.soundsRateLimited(message) { throw .rateLimited(retryAfter: nil) }
            throw .exchangeError("HTTP \(response.status): \(message)")
        }
        if response.status == 401 { throw .unauthorized("HTTP 401") }
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        if json["Response"]?.stringValue == "Error" {
            let message = json["Message"]?.stringValue ?? "unspecified error"
            let type = json["Type"]?.numberLiteral
            if type == "99" || ResponseChecks.soundsRateLimited(message) { throw .rateLimited(retryAfter: nil) }
            if type == "1" || message.lowercased().contains("auth key") || message.lowercased().contains("api key") {
                throw .unauthorized(message)
            }
            throw .exchangeError(message)
        }
        return json
    }
}
