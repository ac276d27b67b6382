import DaemonConfig
import EventLoopScheduling
import Exchanges
import NIOCore
import PriceCore
import Streams

extension SourcePlan {
    /// The streams of every currency served, the primary's (`plans[0]`) first. One currency keeps
    /// its own connections (`streamLineup`). Several share one connection per venue, carrying every
    /// pair of the currencies whose chain streams from that venue: each currency's link runs its
    /// own pair of it, so the venue sees one connection and one subscription however many
    /// currencies are served. Every stream is read on `eventLoop`, more often while anyone in
    /// `audiences` (each currency's watchers, the plans' order) watches.
    static func streamLineups(_ plans: [SourcePlan], clock: EventLoopClock, eventLoop: any EventLoop, audiences: [WatchAudience],
                              proxy: (SourceName, String) -> ProxyURL?) -> [StreamLineup] {
        guard let primary = plans.first, let audience = audiences.first else { return [] }
        guard plans.count > 1 else { return [primary.streamLineup(eventLoop: eventLoop, audience: audience, proxy: proxy)] }
        let settings = primary.settings
        let reads = PacedReads(interval: settings.publishInterval, audience: audience, others: Array(audiences.dropFirst()))
        let chains = plans.map { settings.stream.venues(among: $0.active.map(\.name), in: settings.catalog) }
        var shared: [SourceName: SharedVenueStream<EventLoopClock>] = [:]
        for venue in settings.catalog where chains.contains(where: { $0.contains(venue) }) {
            let currencies = zip(plans, chains).filter { $0.1.contains(venue) }.map(\.0.currency)
            guard let url = settings.streamURL(venue), let endpoint = venue.stream,
                  let connection = VenueStream(venue: venue, url: url, options: primary.options, currencies: currencies,
                                               readInterval: settings.publishInterval, reads: reads, proxy: proxy(venue.name, url),
                                               connectTimeout: settings.timeouts(for: url).connect ?? StreamPolicy.defaultConnectTimeout,
                                               eventLoop: eventLoop) else { continue }
            shared[venue.name] = SharedVenueStream(connection: connection, symbols: endpoint.symbols(primary.options, currencies: currencies),
                                                   policy: settings.streamPolicy(for: url, priceSilenceAfter: primary.priceSilenceAfter), clock: clock)
        }
        return zip(plans, chains).map { plan, chain in
            let venues = chain.compactMap { venue -> StreamVenue? in
                guard let url = settings.streamURL(venue), let symbol = venue.stream?.symbol(plan.options),
                      let connection = shared[venue.name]?.pair(symbol) else { return nil }
                return StreamVenue(name: venue.name, connection: connection, policy: settings.streamPolicy(for: url, priceSilenceAfter: plan.priceSilenceAfter))
            }
            return StreamLineup(venues: venues, reads: venues.isEmpty ? nil : reads)
        }
    }
}
