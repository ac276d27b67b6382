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

    public init(group: any EventLoopGroup, configuration: HTTPClient.Configuration) {
        self.group = group
        self.configuration = configuration
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
