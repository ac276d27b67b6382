import DaemonConfig
import Exchanges
import NIOCore
import PriceCore
import Streams

extension SourcePlan {
    /// The streams BTCPRICED_STREAM allows, in the chain's order; none if no venue in the chain
    /// can stream. Each is read on `eventLoop`, the one that serves the watchers, paced by the
    /// lineup's reads (more often while `audience` watches), and leaves through the proxy `proxy(venue, url)` names (its own Tor
    /// circuit's relay, say).
    public func streamLineup(eventLoop: any EventLoop, audience: WatchAudience, proxy: (SourceName, String) -> ProxyURL?) -> StreamLineup {
        let reads = PacedReads(interval: settings.publishInterval, audience: audience)
        let venues = settings.stream.venues(among: active.map(\.name), in: settings.catalog).compactMap { venue -> StreamVenue? in
            guard let url = settings.streamURL(venue),
                  let connection = VenueStream(venue: venue, url: url, options: options, readInterval: settings.publishInterval, reads: reads,
                                               proxy: proxy(venue.name, url), connectTimeout: settings.timeouts(for: url).connect ?? StreamPolicy.defaultConnectTimeout,
                                               eventLoop: eventLoop) else { return nil }
            return StreamVenue(name: venue.name, connection: connection, policy: settings.streamPolicy(for: url, priceSilenceAfter: priceSilenceAfter))
        }
        return StreamLineup(venues: venues, reads: venues.isEmpty ? nil : reads)
    }
}
