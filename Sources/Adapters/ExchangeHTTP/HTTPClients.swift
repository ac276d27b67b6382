import AsyncHTTPClient
import Exchanges
import NIOCore
import Synchronization

/// One HTTP client per route (direct, or each proxy), made on first use: AsyncHTTPClient sets
/// its proxy per client, and venues may take different routes (`NO_PROXY`).
public final class HTTPClients: Sendable {
    private let group: any EventLoopGroup
    private let configuration: HTTPClient.Configuration
    private let clients = Mutex<[ProxyRules.Route: HTTPClient]>([:])

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

    public func client(for route: ProxyRules.Route) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[route] { return client }
            var configuration = self.configuration
            if let proxy = route.proxy {
                configuration.proxy = proxy.isSOCKS
                    ? .socksServer(host: proxy.host, port: proxy.port)
                    : .server(host: proxy.host, port: proxy.port,
                              authorization: proxy.user.map { .basic(username: $0, password: proxy.password ?? "") })
            }
            let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
            clients[route] = client
            return client
        }
    }

    public func shutdown() async {
        for client in clients.withLock({ Array($0.values) }) { try? await client.shutdown() }
    }
}
