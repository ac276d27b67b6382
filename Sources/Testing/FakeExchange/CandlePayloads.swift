/// Each venue's candles in its real shape (the recorded bodies in Tests/AdapterTests/Fixtures),
/// one a minute or one a day as the request asks, for the slots it asks and no later than now:
/// every candle opens, closes, highs and lows at the market's price, so a filled minute or day
/// is known by it. Days start at `firstDay`, as BTCUSDT's at Binance do.
enum CandlePayloads {
    /// 2017-08-17, the first day of Binance's BTCUSDT klines.
    static let firstDay: Int64 = 17395

    static func isCandlePath(_ path: String) -> Bool {
        path == "/api/v3/klines" || path == "/0/public/OHLC" || path.hasPrefix("/api/v2/ohlc/btc")
            || (path.hasPrefix("/api/v3/brokerage/market/products/BTC-") && path.hasSuffix("/candles"))
    }

    static func body(_ market: Market, query: [String: String], literal: String, currency: String) -> String {
        func number(_ key: String) -> Int64? { query[key].flatMap { Int64($0) } }
        let daily = query["interval"] == "1d" || query["interval"] == "1440" || query["granularity"] == "ONE_DAY" || query["step"] == "86400"
        let step: Int64 = daily ? 86_400 : 60
        let now = WallClock.seconds() / step, earliest = daily ? firstDay : 0
        func slots(from start: Int64?, through end: Int64?, limit: Int64?, most: Int64) -> [Int64] {
            let last = min(end ?? now, now), count = min(limit ?? most, most)
            guard let asked = start ?? Optional(last - count + 1) else { return [] }
            let first = max(asked, earliest), through = min(last, asked + count - 1)
            guard first <= through else { return [] }
            return Array(first...through)
        }
        let p = "\"\(literal)\""
        switch market {
        case .binance:
            let milliseconds = step * 1000
            let asked = slots(from: number("startTime").map { $0 / milliseconds }, through: number("endTime").map { $0 / milliseconds },
                              limit: number("limit"), most: 1000)
            return "[" + asked.map { slot in
                let open = slot * milliseconds
                return "[\(open),\(p),\(p),\(p),\(p),\"1.00000000\",\(open + milliseconds - 1),\"\(literal)\",1,\"0.50000000\",\"0\",\"0\"]"
            }.joined(separator: ",") + "]"
        case .coinbase:
            let asked = slots(from: number("start").map { $0 / step }, through: number("end").map { $0 / step }, limit: number("limit"), most: 350)
            return "{\"candles\":[" + asked.reversed().map { slot in
                "{\"start\":\"\(slot * step)\",\"low\":\(p),\"high\":\(p),\"open\":\(p),\"close\":\(p),\"volume\":\"1.0\"}"
            }.joined(separator: ",") + "]}"
        case .kraken:
            // Kraken serves its latest 720 candles, whatever `since` asks.
            let asked = slots(from: max(number("since").map { $0 / step + 1 } ?? 0, now - 719), through: now, limit: 720, most: 720)
            let candles = asked.map { "[\($0 * step),\(p),\(p),\(p),\(p),\(p),\"1.00000000\",1]" }.joined(separator: ",")
            return "{\"error\":[],\"result\":{\"\(Market.krakenKey(currency: currency))\":[\(candles)],\"last\":\((asked.last ?? now) * step)}}"
        default:
            let asked = slots(from: number("start").map { $0 / step }, through: nil, limit: number("limit"), most: 1000)
            return "{\"data\":{\"ohlc\":[" + asked.map { slot in
                "{\"close\":\(p),\"high\":\(p),\"low\":\(p),\"open\":\(p),\"timestamp\":\"\(slot * step)\",\"volume\":\"1.00000000\"}"
            }.joined(separator: ",") + "],\"pair\":\"BTC/\(currency)\"}}"
        }
    }
}
