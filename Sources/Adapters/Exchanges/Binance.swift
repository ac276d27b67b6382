import JSONText
import PriceCore

/// `GET /api/v3/ticker/price?symbol=BTCUSDT` → `{"symbol":"BTCUSDT","price":"114459.80000000"}`.
public enum BinanceAPI {
    public static func path(symbol: String) -> String { "/api/v3/ticker/price?symbol=\(symbol)" }

    public static func parse(_ response: ExchangeResponse, expectedSymbol: String) throws(FetchFailure) -> SourceQuote {
        if response.status >= 400, response.status != 429, response.status != 418, response.status != 451,
           let json = try? ResponseChecks.json(response.body), let message = json["msg"]?.stringValue {
            // `{"code":-1121,"msg":"Invalid symbol."}` says more than the bare status.
            throw .exchangeError("HTTP \(response.status): \(message)")
        }
        try ResponseChecks.requireSuccess(response)
        let json = try ResponseChecks.json(response.body)
        if let message = json["msg"]?.stringValue { throw .exchangeError(message) }
        guard let symbol = json["symbol"]?.stringValue else { throw .missingField("symbol") }
        guard symbol == expectedSymbol else { throw .wrongSymbol(expected: expectedSymbol, got: symbol) }
        return SourceQuote(price: try ResponseChecks.price(json["price"], field: "price"), symbol: symbol)
    }
}
