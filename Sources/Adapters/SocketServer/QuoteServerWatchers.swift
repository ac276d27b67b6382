import PriceCore

/// The socket server as the daemon's watcher port.
public struct QuoteServerWatchers: WatcherServer {
    public let server: QuoteServer

    public init(_ server: QuoteServer) { self.server = server }

    public func broadcast(_ line: String) { _ = server.broadcast(line) }
    public var watcherCount: Int { server.watcherCount }
    public func shutdown() async { await server.shutdown() }
}
