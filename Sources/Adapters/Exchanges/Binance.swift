import JSONText
import PriceCore

/// `GET /api/v3/ticker/price?symbol=BTCUSDT` → `{"symbol":"BTCUSDT","price":"114459.80000000"}`.
public enum BinanceAPI {
    public static func path(symbol: String) -> String { "/api/v3/ticker/price?symbol=\(symbol)" }

    /// 6,000 request weight a minute per IP; one symbol's ticker/price weighs 2. One call a
    /// second is 120 a minute, leaving the rest to other programs behind the same address.
    public static let limits = SourceLimits(minimumInterval: .seconds(1))
    public static let weightLimitPerMinute = 6000
    /// Rest before the limit, not after a 429 or a 418 ban: at 80 % of the minute's weight.
    public static let weightPauseThreshold = 4800
    /// The weight window is a calendar minute, so a minute's rest always clears it.
    public static let weightPause = Duration.seconds(60)

    /// The market's quote asset: `BTCUSDT` → `USDT`, `BTCUSDC` → `USDC`, `BTCUSD` → `USD`.
    public static func quoteAsset(symbol: String) -> String {
        symbol.hasPrefix("BTC") && symbol.count > 3 ? String(symbol.dropFirst(3)) : symbol
    }

    public static func parse(_ response: ExchangeResponse, expectedSymbol: String) throws(FetchFailure) -> SourceQuote {
        if !ResponseChecks.isSharedStatus(response.status), let message = response.errorJSON?["msg"]?.stringValue {
            // `{"code":-1121,"msg":"Invalid symbol."}` says more than the bare status.
            throw .exchangeError("HTTP \(response.status): \(message)")
        }
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        if let message = json["msg"]?.stringValue { throw .exchangeError(message) }
        guard let symbol = json["symbol"]?.stringValue else { throw .missingField("symbol") }
        guard symbol == expectedSymbol else { throw .wrongSymbol(expected: expectedSymbol, got: symbol) }
        let used = response.usedWeight.flatMap { Int($0.trimmingBlanks) } ?? 0
        return SourceQuote(price: try ResponseChecks.price(json["price"], field: "price"), symbol: symbol,
                           quoteAsset: quoteAsset(symbol: symbol),
                           pauseRequested: used >= weightPauseThreshold ? weightPause : nil)
    }
}
