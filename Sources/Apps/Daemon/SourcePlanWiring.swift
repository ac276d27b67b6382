import DaemonConfig
import ExchangeHTTP
import Exchanges
import PriceCore
import TorCircuits

extension SourcePlan {
    /// Each venue asks through the client of its route (`BTCPRICED_PROXY`, curl's variables):
    /// through its own circuit's relay when the route is Tor's (`VenueCircuits`).
    func sources(clients: HTTPClients, circuits: VenueCircuits?, userAgent: String) -> [any PriceSource] {
        active.map { venue in
            let url = settings.restURL(venue)
            let route = settings.route(of: venue.name, url: url, circuits: circuits)
            let timeouts = settings.timeouts(for: url)
            let source = venue.source(baseURL: url, options, client: clients.client(for: route, timeouts: timeouts, keepIdle: settings.interval),
                                      timeouts: timeouts, proxy: route.proxy, userAgent: userAgent)
            guard let circuits, route != settings.proxies.route(for: url) else { return source }
            return CircuitSource(source, circuits: circuits)
        }
    }
}

extension SourcePlan {
    /// The candles of the chain's venues that have them, asked on each venue's route like its
    /// prices (its proxy, its own Tor circuit, its timeouts).
    func candleSources(clients: HTTPClients, circuits: VenueCircuits?, userAgent: String) -> [any CandleSource] {
        active.compactMap { venue in
            let url = settings.restURL(venue)
            let route = settings.route(of: venue.name, url: url, circuits: circuits)
            let timeouts = settings.timeouts(for: url)
            return venue.candleSource(baseURL: url, options, client: clients.client(for: route, timeouts: timeouts, keepIdle: settings.interval),
                                      timeouts: timeouts, proxy: route.proxy, userAgent: userAgent)
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
