/// How the fake's WebSocket endpoint for one market behaves. Binance streams at
/// `/stream?streams=…`, Coinbase at `/` and Kraken at `/v2`, each with its real message shapes.
public enum StreamBehavior: Sendable, Equatable {
    /// Trades at this rate, cycling through the prices given, with a heartbeat (Coinbase and
    /// Kraken) or a mini ticker (Binance) every second.
    case trades(prices: [String], perSecond: Int)
    /// Accepts and acknowledges the subscription, then sends nothing at all, heartbeats included.
    case silent
    /// Refuses the upgrade with this HTTP status (451 as Binance does from restricted places).
    case refuse(Int)
    /// Sends this many trades, then closes cleanly; Binance first sends `serverShutdown` when asked.
    case closeAfter(trades: Int, shutdownNotice: Bool)
    /// Sends these text frames as they are (malformed, oversized, not JSON), then goes quiet.
    case frames([String])

    public static let defaultTrades = StreamBehavior.trades(prices: ["114459.80", "114460.25"], perSecond: 5)
}
