import DaemonConfig
import Exchanges
import NIOCore
import PriceCore

extension SourcePlan {
    /// The streams BTCPRICED_STREAM allows, in the chain's order; none if no venue in the chain
    /// can stream. Each is read on `eventLoop`, the one that serves the watchers, paced by `reads`,
    /// and leaves through the proxy `proxy(venue, url)` names (its own Tor circuit's relay, say).
    public func streamLineup(reads: PacedReads?, eventLoop: any EventLoop, proxy: (SourceName, String) -> ProxyURL?) -> [StreamVenue] {
        settings.stream.venues(among: active.map(\.name), in: settings.catalog).compactMap { venue in
            guard let url = settings.streamURL(venue),
                  let connection = VenueStream(venue: venue, url: url, options: options, readInterval: settings.publishInterval, reads: reads,
                                               proxy: proxy(venue.name, url), connectTimeout: settings.timeouts(for: url).connect ?? StreamPolicy.defaultConnectTimeout,
                                               eventLoop: eventLoop) else { return nil }
            return StreamVenue(name: venue.name, connection: connection, policy: settings.streamPolicy(for: url, priceSilenceAfter: priceSilenceAfter))
        }
    }
}
