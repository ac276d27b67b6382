/// Each venue's one-minute candles in its real shape (the recorded bodies in
/// Tests/AdapterTests/Fixtures), for the minutes a request asks and no later than now: every
/// candle opens, closes, highs and lows at the market's price, so a filled minute is known by it.
enum CandlePayloads {
    static func isCandlePath(_ path: String) -> Bool {
        path == "/api/v3/klines" || path == "/0/public/OHLC" || path.hasPrefix("/api/v2/ohlc/btc")
            || (path.hasPrefix("/api/v3/brokerage/market/products/BTC-") && path.hasSuffix("/candles"))
    }

    static func body(_ market: Market, query: [String: String], literal: String, currency: String) -> String {
        let now = WallClock.seconds() / 60
        func number(_ key: String) -> Int64? { query[key].flatMap { Int64($0) } }
        func minutes(from start: Int64?, through end: Int64?, limit: Int64?, most: Int64) -> [Int64] {
            let last = min(end ?? now, now), count = min(limit ?? most, most)
            guard let first = start ?? Optional(last - count + 1), first <= last else { return [] }
            return Array(first...min(last, first + count - 1))
        }
        let p = "\"\(literal)\""
        switch market {
        case .binance:
            let asked = minutes(from: number("startTime").map { $0 / 60_000 }, through: number("endTime").map { $0 / 60_000 },
                                limit: number("limit"), most: 1000)
            return "[" + asked.map { minute in
                let open = minute * 60_000
                return "[\(open),\(p),\(p),\(p),\(p),\"1.00000000\",\(open + 59_999),\"\(literal)\",1,\"0.50000000\",\"0\",\"0\"]"
            }.joined(separator: ",") + "]"
        case .coinbase:
            let asked = minutes(from: number("start").map { $0 / 60 }, through: number("end").map { $0 / 60 }, limit: number("limit"), most: 350)
            return "{\"candles\":[" + asked.reversed().map { minute in
                "{\"start\":\"\(minute * 60)\",\"low\":\(p),\"high\":\(p),\"open\":\(p),\"close\":\(p),\"volume\":\"1.0\"}"
            }.joined(separator: ",") + "]}"
        case .kraken:
            // Kraken serves its latest 720 candles, whatever `since` asks.
            let asked = minutes(from: max(number("since").map { $0 / 60 + 1 } ?? 0, now - 719), through: now, limit: 720, most: 720)
            let candles = asked.map { "[\($0 * 60),\(p),\(p),\(p),\(p),\(p),\"1.00000000\",1]" }.joined(separator: ",")
            return "{\"error\":[],\"result\":{\"\(Market.krakenKey(currency: currency))\":[\(candles)],\"last\":\((asked.last ?? now) * 60)}}"
        default:
            let asked = minutes(from: number("start").map { $0 / 60 }, through: nil, limit: number("limit"), most: 1000)
            return "{\"data\":{\"ohlc\":[" + asked.map { minute in
                "{\"close\":\(p),\"high\":\(p),\"low\":\(p),\"open\":\(p),\"timestamp\":\"\(minute * 60)\",\"volume\":\"1.00000000\"}"
            }.joined(separator: ",") + "],\"pair\":\"BTC/\(currency)\"}}"
        }
    }
}
