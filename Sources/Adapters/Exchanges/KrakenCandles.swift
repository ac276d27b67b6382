import JSONText
import PriceCore

/// `GET /0/public/OHLC?pair=XBTUSD&interval=1&since=…` →
/// `{"error":[],"result":{"XXBTZUSD":[[1688671200,"30306.1","30306.2","30305.7","30305.7","30306.1","3.39243896",23],…],"last":1688671140}}`:
/// time in seconds, then open, high, low and close as strings; oldest first. Kraken serves only
/// its latest 720 candles of an interval, whatever `since` asks, so it reaches 12 hours back,
/// and 720 days with `interval=1440`.
public enum KrakenCandles {
    public static let perRequest = 720
    public static let reachesBack: Int64 = 720
    public static let cost = "1 request"
    /// One every 3 s per instance. Kraken's one request a second per IP is what the price
    /// fetches' host-wide pace already keeps (`KrakenAPI.limits`), so candle requests take
    /// their turns in that same pace (a start asks at most two): all kinds together never
    /// exceed one a second, and an instance's own price fetches (one every 2 s) keep theirs.
    public static let pace = Duration.seconds(3)

    public static func path(currency: String, interval: CandleInterval, slots: ClosedRange<Int64>) -> String {
        let seconds = interval.seconds
        return "/0/public/OHLC?pair=XBT\(currency)&interval=\(seconds / 60)&since=\(slots.lowerBound * seconds - seconds)"
    }

    public static func parse(_ response: ExchangeResponse, currency: String = "USD") throws(FetchFailure) -> CandleBatch {
        let result = try KrakenAPI.result(of: response)
        // Beside the pair's candles, `last` (a number) says where the next `since` would start.
        guard let pair = result.members.first(where: { $0.value.arrayElements != nil }) else { throw .missingField("result's candles") }
        guard pair.key.contains("XBT"), pair.key.hasSuffix(currency) else { throw .wrongSymbol(expected: "XBT\(currency)", got: pair.key) }
        return CandleBatch(reading: (pair.value.arrayElements ?? []).map { candle in
            guard let fields = candle.arrayElements, fields.count >= 5 else { return nil }
            return CandleReading.bar(startSeconds: CandleReading.seconds(fields[0]), open: fields[1], high: fields[2], low: fields[3], close: fields[4])
        })
    }
}
