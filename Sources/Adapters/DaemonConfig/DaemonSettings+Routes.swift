import Exchanges
import PriceCore

extension DaemonSettings {
    /// The stream link's policy for a venue streaming from `url`. Through a proxy the upgrade
    /// gets the connection's budget and the answer's, and a message may be late by one answer's
    /// time before the stream counts as stalled.
    public func streamPolicy(for url: String, priceSilenceAfter: Duration) -> StreamPolicy {
        var policy = StreamPolicy()
        policy.priceSilenceAfter = priceSilenceAfter
        if proxies.route(for: url).proxy != nil {
            let timeouts = timeouts(for: url)
            policy.connectTimeout = timeouts.attempt
            policy.stallAfter += timeouts.answer
        }
        return policy
    }

    /// The chain's venues whose REST or stream URL goes through a SOCKS proxy without
    /// credentials (Tor): each gets a circuit of its own.
    public var venuesNeedingCircuits: [Venue] {
        sources.compactMap { venue(named: $0) }.filter { venue in
            ([restURL(venue)] + [streamURL(venue)].compactMap { $0 }).contains { url in
                proxies.route(for: url).proxy.map { $0.isSOCKS && $0.user == nil } ?? false
            }
        }
    }
}
