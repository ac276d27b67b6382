import JSONText
import PriceCore

/// `GET /api/v3/klines?symbol=BTCUSDT&interval=1m&startTime=…&endTime=…&limit=1000` (`interval=1d`
/// for days) →
/// `[[1624559520000,"34970.90000000","35047.03000000","34800.01000000","35047.03000000","0.41947200",1624559579999,…],…]`:
/// open time in milliseconds, then open, high, low and close as strings; oldest first.
/// Weight 2 a request, of the 6,000 a minute an IP may use.
public enum BinanceCandles {
    public static let perRequest = 1000
    public static let cost = "weight 2"
    /// All instances together: 4 a second, 480 weight a minute, beside the price fetches' 1,200
    /// at their host-wide pace (`BinanceAPI.limits`): 1,680 of the 6,000 an IP may use.
    public static let pace = Duration.milliseconds(250)

    public static func path(symbol: String, interval: CandleInterval, slots: ClosedRange<Int64>) -> String {
        let milliseconds = interval.seconds * 1000, name = interval == .day ? "1d" : "1m"
        return "/api/v3/klines?symbol=\(symbol)&interval=\(name)&startTime=\(slots.lowerBound * milliseconds)"
            + "&endTime=\(slots.upperBound * milliseconds + milliseconds - 1)&limit=\(min(perRequest, slots.count))"
    }

    public static func parse(_ response: ExchangeResponse) throws(FetchFailure) -> CandleBatch {
        let json = try BinanceAPI.answer(response)
        return CandleBatch(reading: try CandleReading.array(json, field: "klines").map { kline in
            guard let fields = kline.arrayElements, fields.count >= 5, let milliseconds = CandleReading.seconds(fields[0]),
                  milliseconds % 1000 == 0 else { return nil }
            return CandleReading.bar(startSeconds: milliseconds / 1000, open: fields[1], high: fields[2], low: fields[3], close: fields[4])
        })
    }
}
