import PriceCore

/// The socket server as a daemon's watcher port: the primary currency's daemon's, which stops
/// it, or another currency's (`currency`), whose lines go to the watchers that follow it.
public struct QuoteServerWatchers: WatcherServer {
    public let server: QuoteServer
    /// Nil for the primary currency.
    public let currency: String?

    public init(_ server: QuoteServer, currency: String? = nil) {
        self.server = server
        self.currency = currency
    }

    public func broadcast(_ line: String) { _ = server.broadcast(line, of: currency) }
    public var watcherCount: Int { server.watcherCount }
    /// The primary's daemon closes the server; another currency's leaves it open.
    public func shutdown() async {
        guard currency == nil else { return }
        await server.shutdown()
    }
}
