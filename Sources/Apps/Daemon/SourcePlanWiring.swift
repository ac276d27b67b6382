import DaemonConfig
import DaemonKit
import ExchangeHTTP
import Exchanges
import Logging
import PriceCore

extension OperatorHints {
    /// The hints each catalog entry gives for its venue's failures.
    static func from(_ catalog: [Venue]) -> OperatorHints {
        OperatorHints(failure: { source, failure in catalog.named(source)?.hint(for: failure) ?? "" },
                      nearRateLimit: { source in catalog.named(source)?.advice.nearRateLimit ?? "" })
    }
}

extension SourcePlan: ChainPlan {
    public var modeName: String { settings.mode.rawValue }
    public var interval: Duration { settings.interval }
    public var timeout: Duration { settings.timeout }
    public var currency: String { settings.currency.code }
    public var configured: [SourceName] { settings.sources }
}

extension SourcePlan {
    /// Each venue asks through the client of its route (`BTCPRICED_PROXY`, curl's variables).
    func sources(clients: HTTPClients, userAgent: String) -> [any PriceSource] {
        active.map { venue in
            let url = settings.restURL(venue)
            return venue.source(baseURL: url, options, client: clients.client(for: settings.proxies.route(for: url)),
                                timeout: settings.timeout, userAgent: userAgent)
        }
    }

    /// One notice per skipped venue, naming what would enable it, and the freshness advice.
    func logNotices(_ logger: Logger) {
        for notice in notices {
            logger.notice("\(notice.text)", metadata: notice.venue.map { ["source": "\($0)"] } ?? [:])
        }
    }
}
