import JSONText
import PriceCore

/// `GET /api/v3/brokerage/market/products/BTC-USD/candles?start=…&end=…&granularity=ONE_MINUTE&limit=350`
/// → `{"candles":[{"start":"1639508040","low":"…","high":"…","open":"…","close":"…","volume":"…"},…]}`,
/// newest first; `start` and `end` are Unix seconds. Public, 10 requests a second per IP.
public enum CoinbaseCandles {
    public static let perRequest = 350
    public static let cost = "1 request"

    public static func path(currency: String, minutes: ClosedRange<Int64>) -> String {
        "/api/v3/brokerage/market/products/\(CoinbaseAPI.symbol(currency: currency))/candles?start=\(minutes.lowerBound * 60)"
            + "&end=\(minutes.upperBound * 60 + 59)&granularity=ONE_MINUTE&limit=\(min(perRequest, minutes.count))"
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
