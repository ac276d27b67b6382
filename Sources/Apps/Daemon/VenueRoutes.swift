import AsyncHTTPClient
import DaemonConfig
import ExchangeHTTP
import Exchanges
import NIOCore
import PriceCore
import TorCircuits

/// How each venue's requests leave the host: through the HTTP client of its route
/// (`BTCPRICED_PROXY`, curl's variables), and through a Tor circuit of its own when that route
/// is Tor's. Opened once per run; each plan a reload brings asks through the same clients and relays.
public struct VenueRoutes: Sendable {
    public let clients: HTTPClients
    /// A relay per venue whose REST or stream URL goes through a SOCKS proxy without
    /// credentials (Tor); nil when none does.
    public let circuits: VenueCircuits?
    private let userAgent: String

    /// Throws when the relays cannot listen on 127.0.0.1; nothing is left open then.
    public static func open(_ settings: DaemonSettings, group: any EventLoopGroup, userAgent: String) async throws -> VenueRoutes {
        let clients = HTTPClients(group: group)
        let relayed = settings.venuesNeedingCircuits
        do {
            let circuits = relayed.isEmpty ? nil : try await VenueCircuits.start(venues: relayed.map(\.name), group: group,
                                                                                  connectTimeout: TimeAmount(settings.connectTimeoutThroughProxy))
            return VenueRoutes(clients: clients, circuits: circuits, userAgent: userAgent)
        } catch {
            await clients.shutdown()
            throw error
        }
    }

    public func shutdown() async {
        await circuits?.shutdown()
        await clients.shutdown()
    }

    /// The plan's venues, each asking on its route.
    public func sources(_ plan: SourcePlan, batches: [SourceName: VenueBatch] = [:]) -> [any PriceSource] {
        routed(plan).map { asked in
            if let batch = batches[asked.venue.name], batch.currencies.contains(plan.currency) {
                return BatchMember(batch, currency: plan.currency, quoteAsset: asked.venue.quoteAsset(plan.options),
                                   limits: asked.venue.limits(plan.options, baseURL: asked.url))
            }
            let source = asked.venue.source(baseURL: asked.url, plan.options, client: asked.client, timeouts: asked.timeouts,
                                            proxy: asked.route.proxy, userAgent: userAgent)
            guard let circuits, asked.route != plan.settings.proxies.route(for: asked.url) else { return source }
            return CircuitSource(source, circuits: circuits)
        }
    }

    /// For the plans of every currency served, the venues that take a list of pairs and that
    /// two or more of them ask: each asked once for all of those currencies. A venue on a Tor
    /// circuit of its own is left out (its requests go through its relay).
    public func batches(for plans: [SourcePlan]) -> [SourceName: VenueBatch] {
        guard plans.count > 1 else { return [:] }
        var batches: [SourceName: VenueBatch] = [:]
        for venue in Venue.catalog where venue.rest.batch != nil {
            let members = plans.filter { $0.active.contains(venue) }
            guard members.count > 1, let plan = members.first, let asked = routed(plan).first(where: { $0.venue == venue }),
                  asked.route == plan.settings.proxies.route(for: asked.url) else { continue }
            batches[venue.name] = VenueBatch(venue: venue, currencies: members.map(\.currency), options: plan.options, baseURL: asked.url,
                                             client: asked.client, timeouts: asked.timeouts, proxy: asked.route.proxy, userAgent: userAgent)
        }
        return batches
    }

    /// The candles of the plan's venues that have them, asked on each venue's route like its prices.
    public func candleSources(_ plan: SourcePlan) -> [any CandleSource] {
        routed(plan).compactMap { asked in
            asked.venue.candleSource(baseURL: asked.url, plan.options, client: asked.client, timeouts: asked.timeouts,
                                     proxy: asked.route.proxy, userAgent: userAgent)
        }
    }

    /// How a venue URL leaves: its proxy rule, through the venue's relay when it has one.
    public func route(of venue: SourceName, url: String, in settings: DaemonSettings) -> ProxyRules.Route {
        let route = settings.proxies.route(for: url)
        return circuits?.route(for: venue, route) ?? route
    }

    /// The plan's venues, each with its REST URL, its route, its timeouts and the client for them.
    private func routed(_ plan: SourcePlan) -> [(venue: Venue, url: String, route: ProxyRules.Route, timeouts: RouteTimeouts, client: HTTPClient)] {
        let settings = plan.settings
        return plan.active.map { venue in
            let url = settings.restURL(venue)
            let route = route(of: venue.name, url: url, in: settings)
            let timeouts = settings.timeouts(for: url)
            return (venue, url, route, timeouts, clients.client(for: route, timeouts: timeouts, keepIdle: settings.interval))
        }
    }
}
