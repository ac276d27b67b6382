import JSONText
import PriceCore

/// `GET /api/v3/brokerage/market/products/BTC-USD/candles?start=…&end=…&granularity=ONE_MINUTE&limit=350`
/// → `{"candles":[{"start":"1639508040","low":"…","high":"…","open":"…","close":"…","volume":"…"},…]}`,
/// newest first; `start` and `end` are Unix seconds. `granularity=ONE_DAY` for days. Public, 10 requests a second per IP.
public enum CoinbaseCandles {
    public static let perRequest = 350
    public static let cost = "1 request"
    /// All instances together: 2 a second, beside the price fetches' 2 (`CoinbaseAPI.limits`):
    /// 4 of the 10 a second an IP may make.
    public static let pace = Duration.milliseconds(500)

    public static func path(currency: String, interval: CandleInterval, slots: ClosedRange<Int64>) -> String {
        let seconds = interval.seconds, granularity = interval == .day ? "ONE_DAY" : "ONE_MINUTE"
        return "/api/v3/brokerage/market/products/\(CoinbaseAPI.symbol(currency: currency))/candles?start=\(slots.lowerBound * seconds)"
            + "&end=\(slots.upperBound * seconds + seconds - 1)&granularity=\(granularity)&limit=\(min(perRequest, slots.count))"
    }

    public static func parse(_ response: ExchangeResponse) throws(FetchFailure) -> CandleBatch {
        let message = response.errorJSON?["message"]?.stringValue ?? response.errorJSON?["errors"]?.firstArrayElement?["message"]?.stringValue
        if !ResponseChecks.isSharedStatus(response.status), let message { throw .exchangeError("HTTP \(response.status): \(message)") }
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        if let message, json["candles"] == nil { throw .exchangeError(message) }
        return CandleBatch(reading: try CandleReading.array(json["candles"], field: "candles").map { candle in
            CandleReading.bar(startSeconds: CandleReading.seconds(candle["start"]), open: candle["open"], high: candle["high"],
                              low: candle["low"], close: candle["close"])
        })
    }
}
