import Exchanges
import NIOCore
import NIOPosix
import PriceCore
import Synchronization

/// A Tor circuit per venue, with no torrc change: Tor's default `IsolateSOCKSAuth` puts streams
/// with different SOCKS credentials on different circuits, but btcpriced's HTTP client and
/// stream speak SOCKS5 without credentials. So each venue whose route is a SOCKS proxy without
/// credentials gets a relay on loopback that opens its connections to the proxy as
/// `btcpriced-<venue>`, with a password drawn for this process. After a blocked exit the venue
/// gets new credentials, and so a new circuit and exit, once before it rests.
///
/// A proxy with credentials of its own is not relayed: any local user could borrow them
/// through a loopback port. Tor's SOCKSPort is open to every local user already, so relaying
/// to one without credentials gives nobody anything new.
public final class VenueCircuits: Sendable {
    private struct Relay: Sendable {
        let port: Int
        let listener: any Channel
    }

    private struct State: Sendable {
        var upstream: [SourceName: ProxyURL] = [:]
        var generation: [SourceName: Int] = [:]
        /// Venues given new credentials since their last answer: the next block makes them rest.
        var renewed: Set<SourceName> = []
        /// Venues whose last relayed connection the proxy itself failed, and how.
        var proxyFailures: [SourceName: ProxyTrouble.Kind] = [:]
        var open: [SourceName: [ObjectIdentifier: any Channel]] = [:]
    }

    /// Connections one venue's relay holds at once: a venue needs a REST connection and a stream.
    public static let connectionsPerVenue = 8

    private let state = Mutex(State())
    private let secret: String
    /// Each venue's relay, set once by `start`.
    private let relayList = Mutex<[SourceName: Relay]>([:])
    private var relays: [SourceName: Relay] { relayList.withLock { $0 } }

    private init(secret: String) {
        self.secret = secret
    }

    /// Relays for `venues` on loopback. `connectTimeout` bounds the connection to the proxy itself.
    public static func start(venues: [SourceName], group: any EventLoopGroup, connectTimeout: TimeAmount = .seconds(30)) async throws -> VenueCircuits {
        var generator = SystemRandomNumberGenerator()
        let circuits = VenueCircuits(secret: (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined())
        do {
            for venue in venues {
                let listener = try await ServerBootstrap(group: group)
                    .serverChannelOption(.backlog, value: 16)
                    .childChannelInitializer { child in
                        child.eventLoop.makeCompletedFuture {
                            guard circuits.admit(child, for: venue) else { return child.close(promise: nil) }
                            try child.pipeline.syncOperations.addHandler(CircuitRelayHandler(connectTimeout: connectTimeout, upstream: { circuits.upstream(for: venue) },
                                                                                       proxyFailed: { kind in circuits.state.withLock { $0.proxyFailures[venue] = kind } }))
                        }
                    }
                    .bind(host: "127.0.0.1", port: 0).get()
                circuits.relayList.withLock { $0[venue] = Relay(port: listener.localAddress?.port ?? 0, listener: listener) }
            }
        } catch {
            await circuits.shutdown()
            throw error
        }
        return circuits
    }

    /// The route `venue` takes: through its relay when `route` is a SOCKS proxy without
    /// credentials and the venue has one, else `route` itself. The relay's route names the real
    /// proxy in messages.
    public func route(for venue: SourceName, _ route: ProxyRules.Route) -> ProxyRules.Route {
        guard let proxy = route.proxy, proxy.isSOCKS, proxy.user == nil, let relay = relays[venue] else { return route }
        state.withLock { $0.upstream[venue] = proxy }
        return .proxy(ProxyURL(kind: .socks5h, host: "127.0.0.1", port: relay.port, shownAs: proxy.description))
    }

    /// The credentials `venue` sends now: `btcpriced-<venue>` and this process's secret, with
    /// the venue's renewal count.
    public func credentials(for venue: SourceName) -> (user: String, password: String) {
        let generation = state.withLock { $0.generation[venue] ?? 0 }
        return ("btcpriced-\(venue.rawValue)", "\(secret)-\(generation)")
    }

    /// A blocked exit answered `venue`: new credentials (a new circuit) and its connections
    /// closed, so the next attempt goes out another way. False when that was done since its last
    /// answer: then it is time to rest.
    public func renewOnce(_ venue: SourceName) -> Bool {
        guard relays[venue] != nil else { return false }
        let closing = state.withLock { state -> [any Channel]? in
            guard state.upstream[venue] != nil, state.renewed.insert(venue).inserted else { return nil }
            state.generation[venue, default: 0] += 1
            return Array((state.open[venue] ?? [:]).values)
        }
        guard let closing else { return false }
        for channel in closing { channel.close(promise: nil) }
        return true
    }

    /// How the proxy itself failed `venue`'s last relayed connection, if it did; asking forgets it.
    public func takeProxyFailure(_ venue: SourceName) -> ProxyTrouble.Kind? {
        state.withLock { $0.proxyFailures.removeValue(forKey: venue) }
    }

    /// `venue` answered: a later block may renew its circuit again.
    public func answered(_ venue: SourceName) {
        state.withLock { _ = $0.renewed.remove(venue) }
    }

    public func shutdown() async {
        for relay in relays.values { try? await relay.listener.close() }
        let open = state.withLock { $0.open.values.flatMap(\.values) }
        for channel in open { try? await channel.close() }
    }

    private func upstream(for venue: SourceName) -> CircuitRelayHandler.Upstream? {
        guard let proxy = state.withLock({ $0.upstream[venue] }) else { return nil }
        let (user, password) = credentials(for: venue)
        return CircuitRelayHandler.Upstream(host: proxy.host, port: proxy.port, user: user, password: password)
    }

    private func admit(_ child: any Channel, for venue: SourceName) -> Bool {
        let key = ObjectIdentifier(child)
        let admitted = state.withLock { state in
            guard (state.open[venue]?.count ?? 0) < Self.connectionsPerVenue else { return false }
            state.open[venue, default: [:]][key] = child
            return true
        }
        if admitted { child.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open[venue]?.removeValue(forKey: key) } } }
        return admitted
    }
}
