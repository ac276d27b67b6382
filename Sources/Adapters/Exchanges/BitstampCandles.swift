import JSONText
import PriceCore

/// `GET /api/v2/ohlc/btcusd/?step=60&limit=1000&start=…` →
/// `{"data":{"pair":"BTC/USD","ohlc":[{"timestamp":"1700000040","open":"…","high":"…","low":"…","close":"…","volume":"…"},…]}}`,
/// oldest first; `start` is Unix seconds. `step=86400` for days.
public enum BitstampCandles {
    public static let perRequest = 1000
    public static let cost = "1 request"
    /// All instances together: 2 a second, beside the price fetches' 5 (`BitstampAPI.limits`):
    /// 7 of the 400 a second (and 8,000 in 10 minutes, 13 a second) an IP may make.
    public static let pace = Duration.milliseconds(500)

    public static func path(currency: String, interval: CandleInterval, slots: ClosedRange<Int64>) -> String {
        let seconds = interval.seconds
        return "/api/v2/ohlc/\(BitstampAPI.symbol(currency: currency))/?step=\(seconds)&limit=\(min(perRequest, slots.count))&start=\(slots.lowerBound * seconds)"
    }

    public static func parse(_ response: ExchangeResponse, currency: String = "USD") throws(FetchFailure) -> CandleBatch {
        let json = try BitstampAPI.answer(response)
        let pair = json["data"]?["pair"]?.stringValue
        guard pair == nil || pair == "BTC/\(currency)" else { throw .wrongSymbol(expected: "BTC/\(currency)", got: pair ?? "") }
        return CandleBatch(reading: try CandleReading.array(json["data"]?["ohlc"], field: "data.ohlc").map { candle in
            CandleReading.bar(startSeconds: CandleReading.seconds(candle["timestamp"]), open: candle["open"], high: candle["high"],
                              low: candle["low"], close: candle["close"])
        })
    }
}
