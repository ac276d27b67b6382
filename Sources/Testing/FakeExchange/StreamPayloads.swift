/// The venues' stream messages, shaped as the real ones (see Tests/AdapterTests/Fixtures/streams).
/// Trades are stamped with the wall clock in milliseconds, for latency measurements.
enum StreamPayloads {
    static func trade(market: Market, price: String, sequence: Int, binanceSymbol: String, symbol: String? = nil) -> String {
        let now = WallClock.milliseconds()
        switch market {
        case .binance:
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

    static func everySecond(market: Market, price: String, sequence: Int, binanceSymbol: String) -> String {
        switch market {
        case .binance:
            return #"{"stream":"\#(binanceSymbol.lowercased())@miniTicker","data":{"e":"24hrMiniTicker","E":\#(WallClock.milliseconds()),"s":"\#(binanceSymbol)","c":"\#(price)","o":"\#(Market.dayOpen)","h":"\#(Market.dayRange(last: price).high)","l":"\#(Market.dayRange(last: price).low)","v":"21843.5","q":"1878203044.4"}}"#
        default:
            return heartbeat(market: market, sequence: sequence)
        }
    }

    static func acknowledgement(market: Market, symbol: String?) -> String {
        switch market {
        case .coinbase:
            #"{"channel":"subscriptions","client_id":"","timestamp":"0","sequence_num":0,"events":[{"subscriptions":{"ticker":["\#(symbol ?? "BTC-USD")"]}}]}"#
        default:
            #"{"method":"subscribe","result":{"channel":"ticker","snapshot":true,"symbol":"\#(symbol ?? "BTC/USD")"},"success":true,"time_in":"0","time_out":"0"}"#
        }
    }

    /// The market a Coinbase (`"product_ids":["BTC-EUR"]`) or Kraken (`"symbol":["BTC/EUR"]`)
    /// subscription asks for; nil for the heartbeats subscription.
    static func subscribedSymbol(in request: String) -> String? {
        let text = Array(request.utf8)
        for key in [#""product_ids":[""#, #""symbol":[""#].map({ Array($0.utf8) }) where text.count > key.count {
            guard let at = (0...(text.count - key.count)).first(where: { text[$0..<$0 + key.count].elementsEqual(key) }) else { continue }
            let value = text[(at + key.count)...].prefix { $0 != UInt8(ascii: "\"") }
            return String(decoding: value, as: UTF8.self)
        }
        return nil
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
