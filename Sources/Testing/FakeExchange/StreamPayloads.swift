/// The venues' stream messages, shaped as the real ones (see Tests/AdapterTests/Fixtures/streams).
/// Trades are stamped with the wall clock in milliseconds, for latency measurements.
enum StreamPayloads {
    /// A trade of the pair `symbol` (Binance's `BTCUSDT`, Coinbase's `BTC-USD`, Kraken's `BTC/USD`).
    static func trade(market: Market, price: String, sequence: Int, symbol: String?) -> String {
        let now = WallClock.milliseconds()
        switch market {
        case .binance:
            let binanceSymbol = symbol ?? "BTCUSDT"
            // Trade ids grow across connections, as Binance's do.
            return #"{"stream":"\#(binanceSymbol.lowercased())@aggTrade","data":{"e":"aggTrade","E":\#(now),"s":"\#(binanceSymbol)","a":\#(now * 1000 + Int64(sequence % 1000)),"p":"\#(price)","q":"0.00052000","f":\#(now * 1000),"l":\#(now * 1000 + 1),"T":\#(now),"m":false,"M":true}}"#
        case .coinbase:
            return #"{"channel":"ticker","client_id":"","timestamp":"\#(now)","sequence_num":\#(sequence),"events":[{"type":"update","tickers":[{"type":"ticker","product_id":"\#(symbol ?? "BTC-USD")","price":"\#(price)","volume_24_h":"9421.6","low_24_h":"\#(Market.dayRange(last: price).low)","high_24_h":"\#(Market.dayRange(last: price).high)","price_percent_chg_24_h":"-1.2"}]}]}"#
        default:
            return #"{"channel":"ticker","type":"update","data":[{"symbol":"\#(symbol ?? "BTC/USD")","bid":\#(price),"ask":\#(price),"last":\#(price),"volume":1875.6,"vwap":114000.4,"low":\#(Market.dayRange(last: price).low),"high":\#(Market.dayRange(last: price).high),"change":-1043.9,"change_pct":-1.2,"timestamp_ms":\#(now)}]}"#
        }
    }

    /// Coinbase's and Kraken's heartbeat (Binance has none: it pings).
    static func heartbeat(market: Market, sequence: Int) -> String {
        market == .coinbase
            ? #"{"channel":"heartbeats","client_id":"","timestamp":"\#(WallClock.milliseconds())","sequence_num":\#(sequence),"events":[{"current_time":"now","heartbeat_counter":\#(sequence)}]}"#
            : #"{"channel":"heartbeat"}"#
    }

    static func everySecond(market: Market, price: String, sequence: Int, symbol: String?) -> String {
        switch market {
        case .binance:
            let binanceSymbol = symbol ?? "BTCUSDT"
            return #"{"stream":"\#(binanceSymbol.lowercased())@miniTicker","data":{"e":"24hrMiniTicker","E":\#(WallClock.milliseconds()),"s":"\#(binanceSymbol)","c":"\#(price)","o":"\#(Market.dayOpen)","h":"\#(Market.dayRange(last: price).high)","l":"\#(Market.dayRange(last: price).low)","v":"21843.5","q":"1878203044.4"}}"#
        default:
            return heartbeat(market: market, sequence: sequence)
        }
    }

    static func acknowledgement(market: Market, symbols: [String]) -> String {
        switch market {
        case .coinbase:
            let products = (symbols.isEmpty ? ["BTC-USD"] : symbols).map { "\"\($0)\"" }.joined(separator: ",")
            return #"{"channel":"subscriptions","client_id":"","timestamp":"0","sequence_num":0,"events":[{"subscriptions":{"ticker":[\#(products)]}}]}"#
        default:
            // Kraken acknowledges each symbol of a subscription on its own; the first stands for them here.
            return #"{"method":"subscribe","result":{"channel":"ticker","snapshot":true,"symbol":"\#(symbols.first ?? "BTC/USD")"},"success":true,"time_in":"0","time_out":"0"}"#
        }
    }

    /// The markets a Coinbase (`"product_ids":["BTC-EUR","BTC-GBP"]`) or Kraken
    /// (`"symbol":["BTC/EUR"]`) subscription asks for; empty for the heartbeats subscription.
    static func subscribedSymbols(in request: String) -> [String] {
        let text = Array(request.utf8)
        for key in [#""product_ids":["#, #""symbol":["#].map({ Array($0.utf8) }) where text.count > key.count {
            guard let at = (0...(text.count - key.count)).first(where: { text[$0..<$0 + key.count].elementsEqual(key) }) else { continue }
            let list = text[(at + key.count)...].prefix { $0 != UInt8(ascii: "]") }
            return list.split(separator: UInt8(ascii: ",")).map { String(decoding: $0.filter { $0 != UInt8(ascii: "\"") }, as: UTF8.self) }
        }
        return []
    }

    /// The symbols of a Binance combined stream's path (`/stream?streams=btcusdt@aggTrade/btcusdt@miniTicker/btceur@aggTrade/…`).
    static func binanceSymbols(uri: String) -> [String] {
        guard let streams = uri.split(separator: "streams=").dropFirst().first else { return ["BTCUSDT"] }
        var symbols: [String] = []
        for stream in streams.split(separator: "/") {
            guard let symbol = stream.split(separator: "@").first.map({ $0.uppercased() }), !symbols.contains(symbol) else { continue }
            symbols.append(symbol)
        }
        return symbols.isEmpty ? ["BTCUSDT"] : symbols
    }

    static func serverShutdown() -> String {
        #"{"event":{"e":"serverShutdown","E":\#(WallClock.milliseconds())}}"#
    }

    /// The send time as a price: 114000 + (wall-clock microseconds mod 10^8) / 10^6, within 1 %
    /// of the REST defaults, so the price check takes the stream for the same market.
    static func clockPrice() -> String {
        let window = WallClock.microseconds() % 100_000_000
        let fraction = String(window % 1_000_000)
        return "\(114_000 + window / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
