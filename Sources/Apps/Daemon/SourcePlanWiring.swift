import AsyncHTTPClient
import DaemonConfig
import ExchangeHTTP
import Exchanges
import PriceCore
import TorCircuits

extension SourcePlan {
    /// Each venue asks through the client of its route (`BTCPRICED_PROXY`, curl's variables):
    /// through its own circuit's relay when the route is Tor's (`VenueCircuits`).
    func sources(clients: HTTPClients, circuits: VenueCircuits?, userAgent: String) -> [any PriceSource] {
        routed(clients: clients, circuits: circuits).map { asked in
            let source = asked.venue.source(baseURL: asked.url, options, client: asked.client, timeouts: asked.timeouts, proxy: asked.route.proxy,
                                            userAgent: userAgent)
            guard let circuits, asked.route != settings.proxies.route(for: asked.url) else { return source }
            return CircuitSource(source, circuits: circuits)
        }
    }

    /// The candles of the chain's venues that have them, asked on each venue's route like its
    /// prices (its proxy, its own Tor circuit, its timeouts).
    func candleSources(clients: HTTPClients, circuits: VenueCircuits?, userAgent: String) -> [any CandleSource] {
        routed(clients: clients, circuits: circuits).compactMap { asked in
            asked.venue.candleSource(baseURL: asked.url, options, client: asked.client, timeouts: asked.timeouts, proxy: asked.route.proxy,
                                     userAgent: userAgent)
        }
    }

    /// The chain's venues, each with its REST URL, its route, its timeouts and the client for them.
    private func routed(clients: HTTPClients, circuits: VenueCircuits?)
        -> [(venue: Venue, url: String, route: ProxyRules.Route, timeouts: RouteTimeouts, client: HTTPClient)] {
        active.map { venue in
            let url = settings.restURL(venue)
            let route = settings.route(of: venue.name, url: url, circuits: circuits)
            let timeouts = settings.timeouts(for: url)
            return (venue, url, route, timeouts, clients.client(for: route, timeouts: timeouts, keepIdle: settings.interval))
        }
    }
}

extension DaemonSettings {
    /// How a venue URL leaves: its proxy rule, through the venue's relay when it has one.
    func route(of venue: SourceName, url: String, circuits: VenueCircuits?) -> ProxyRules.Route {
        let route = proxies.route(for: url)
        return circuits?.route(for: venue, route) ?? route
    }
}
