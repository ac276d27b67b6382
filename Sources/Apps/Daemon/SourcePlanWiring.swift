import DaemonConfig
import ExchangeHTTP
import Exchanges
import PriceCore

extension SourcePlan {
    /// Each venue asks through the client of its route (`BTCPRICED_PROXY`, curl's variables).
    func sources(clients: HTTPClients, userAgent: String) -> [any PriceSource] {
        active.map { venue in
            let url = settings.restURL(venue)
            return venue.source(baseURL: url, options, client: clients.client(for: settings.proxies.route(for: url)),
                                timeout: settings.timeout, userAgent: userAgent)
        }
    }
}
