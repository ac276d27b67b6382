import AsyncHTTPClient
import Exchanges
import NIOCore
import Synchronization

/// One HTTP client per route (direct, or each proxy), made on first use: AsyncHTTPClient sets
/// its proxy per client, and venues may take different routes (`NO_PROXY`).
public final class HTTPClients: Sendable {
    private let group: any EventLoopGroup
    private let configuration: HTTPClient.Configuration
    private let clients = Mutex<[Key: HTTPClient]>([:])

    /// AsyncHTTPClient sets its timeouts per client too.
    private struct Key: Hashable {
        let route: ProxyRules.Route
        let timeouts: RouteTimeouts?
    }

    public init(group: any EventLoopGroup, configuration: HTTPClient.Configuration = HTTPClients.daemonConfiguration) {
        self.group = group
        self.configuration = configuration
    }

    /// How the daemon asks venues: verified TLS, no redirects, and no retries or tracing of
    /// AsyncHTTPClient's own.
    public static var daemonConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(certificateVerification: .fullVerification, redirectConfiguration: .disallow)
        // The core enforces BTCPRICED_TIMEOUT per attempt; these only bound a misbehaving connection.
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        // The fetch loop has its own retry (the fallback chain, the next cycle, backoff). AHC's
        // silent connect retries would turn a refused connection into "timeout after 800ms".
        configuration.connectionPool.retryConnectionEstablishment = false
        // No tracer: btcpriced exports no traces, and even the no-op tracer's span parses every
        // request's URL with Foundation, 5 % of an idle daemon's CPU.
        configuration.tracing.tracer = nil
        return configuration
    }

    /// The client for `route`; with `timeouts` that count the connection apart (a proxied
    /// route's), its connection and read timeouts are theirs, and an idle connection outlives
    /// `keepIdle`, so a circuit built once serves every poll.
    public func client(for route: ProxyRules.Route, timeouts: RouteTimeouts? = nil, keepIdle: Duration? = nil) -> HTTPClient {
        let key = Key(route: route, timeouts: timeouts?.connect == nil ? nil : timeouts)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = self.configuration
            if let proxy = route.proxy {
                configuration.proxy = proxy.isSOCKS
                    ? .socksServer(host: proxy.host, port: proxy.port)
                    : .server(host: proxy.host, port: proxy.port,
                              authorization: proxy.user.map { .basic(username: $0, password: proxy.password ?? "") })
            }
            if let timeouts = key.timeouts, let connect = timeouts.connect {
                configuration.timeout = .init(connect: TimeAmount(connect), read: TimeAmount(timeouts.answer))
                // AsyncHTTPClient closes a connection idle for 60 s; a slower poll would build a
                // new circuit every time.
                if let keepIdle, keepIdle * 2 > .seconds(60) { configuration.connectionPool.idleTimeout = TimeAmount(keepIdle * 2) }
            }
            let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    public func shutdown() async {
        for client in clients.withLock({ Array($0.values) }) { try? await client.shutdown() }
    }
}
