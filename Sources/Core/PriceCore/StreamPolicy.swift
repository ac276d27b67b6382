/// How long a live stream may carry no price before REST refreshes the quote. The quote must be
/// refreshed before it turns stale: a price read at L happened at most one read interval
/// earlier (it may have waited in the kernel), REST is asked at the first fetch tick after
/// L + limit (at most one interval later) and answers within the timeout. So the limit is
/// STALE_AFTER minus the interval, the timeout, the read interval and a margin for late timers
/// and the network, at most 5 s and at least 1 s: below that a stream could hardly ever rest
/// polling, and no setting could keep a quote that young by polling alone.
public enum PriceSilence {
    public static let longest: Duration = .seconds(5)
    public static let shortest: Duration = .seconds(1)
    public static let margin: Duration = .milliseconds(500)

    public static func limit(staleAfter: Duration, interval: Duration, timeout: Duration, readInterval: Duration) -> Duration {
        min(longest, max(shortest, staleAfter - interval - timeout - readInterval - margin))
    }
}

/// How a venue's stream link judges its connections: the limits and rests `StreamLink` keeps.
public struct StreamPolicy: Sendable, Hashable {
    /// No message at all, heartbeats included, for this long: the stream has stalled.
    public var stallAfter: Duration = .seconds(5)
    /// No price for this long (heartbeats prove a live connection, not a moving price): the
    /// stream stays connected but is no longer healthy, so REST refreshes the quote. The
    /// daemon sets it from its freshness settings (`PriceSilence.limit`).
    public var priceSilenceAfter: Duration = PriceSilence.longest
    /// An attempt not live after this long (a black-holed address, an upgrade never answered) is given up.
    public var connectTimeout: Duration = StreamPolicy.defaultConnectTimeout
    /// A stream's connection (TCP, then TLS) with no BTCPRICED_CONNECT_TIMEOUT and no proxy.
    public static let defaultConnectTimeout: Duration = .seconds(10)
    /// Backoff after a failed or short-lived connection: from `firstRetry`, doubling, capped.
    public var firstRetry: Duration = .seconds(2)
    public var longestRetry: Duration = .seconds(300)
    /// A connection must have carried data this long before the backoff starts over, so a
    /// stream that connects and drops again at once never reconnects faster than the backoff.
    public var provenAfter: Duration = .seconds(60)
    /// A refused upgrade (HTTP 451 or 403) is not tried again for this long.
    public var refusalCooldown: Duration = .seconds(3600)
    /// Reconnect this long after connecting, before a venue's own cut-off (24 h at some).
    public var rotateAfter: Duration? = .seconds(23 * 3600 + 30 * 60)
    /// A replacement that failed is tried again after this, while the old connection serves.
    public var replacementRetry: Duration = .seconds(30)

    public init() {}
}
