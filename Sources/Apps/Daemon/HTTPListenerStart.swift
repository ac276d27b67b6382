import PriceCore
import DaemonConfig
import HTTPAPI
import Logging
import NIOCore
import ListenerKit
import WireProtocol

extension HTTPAPIServer {
    /// The listener the settings ask for: the socket systemd passed (btcpriced-http.socket),
    /// with the address it is bound to, else the address BTCPRICED_HTTP_LISTEN (or its older name
    /// BTCPRICED_METRICS_LISTEN) names, else none. Logs where it serves, and warns when that is
    /// not a loopback address.
    public static func start(_ settings: DaemonSettings, inherited: (descriptor: Int32, boundHost: String?)?, replies: any StatusProvider,
                             limits: ServerLimits, audience: WatchAudience, currencyAudiences: [String: WatchAudience] = [:], logger: Logger,
                             group: any EventLoopGroup) async throws -> HTTPAPIServer? {
        let http = settings.http
        let listener: Listener
        if let inherited {
            listener = .inheritedDescriptor(inherited.descriptor)
        } else if let address = http.address {
            listener = .address(host: address.host, port: address.port)
        } else {
            return nil
        }
        let origin = ContinuousClock.now
        let server = try await listen(
            listener, setting: http.setting.rawValue,
            routes: HTTPRoutes(replies: replies, currency: settings.currency, version: ProductVersion.current,
                               window: ServeStaleWindow(staleAfter: settings.staleAfter, serveStaleFor: settings.serveStaleFor)),
            policy: HostPolicy(listenHost: inherited?.boundHost ?? http.address?.host ?? "127.0.0.1", hosts: http.hosts, origins: http.origins),
            limits: limits, audience: audience, currencyAudiences: currencyAudiences, logger: logger, group: group, now: { origin.duration(to: .now) })
        let shown = inherited == nil ? http.address.map { "\($0)" } ?? "?" : "the socket passed by systemd (port \(server.port.map(String.init) ?? "?"))"
        logger.info("serving HTTP on \(shown): the dashboard at /, the API under /api/v1/, metrics at /metrics")
        if let address = http.address, inherited == nil, !address.isLoopback {
            logger.notice("serving HTTP on \(address), which is not a loopback address: anyone who can reach this host on that port can read the price, the sources and the metrics")
        }
        return server
    }
}
