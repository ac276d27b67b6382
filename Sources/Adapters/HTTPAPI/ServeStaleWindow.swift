import PriceCore
import WireProtocol

/// When a compatibility route (mempool's, BTCPay's) may still answer the quote with a number.
/// Their readers do not look at `state` or `age`: payment software has charged people at
/// absurd rates when its source went down and still answered. So past the window, or with no
/// quote, such a route answers "no price" in its own format, never a number; the native routes
/// keep their states and codes.
public struct ServeStaleWindow: Sendable, Equatable {
    /// BTCPRICED_STALE_AFTER: until then the quote is fresh.
    public let staleAfter: Duration
    /// BTCPRICED_SERVE_STALE_FOR: how long a stale quote may still be served after that.
    public let serveStaleFor: Duration

    public init(staleAfter: Duration, serveStaleFor: Duration) {
        self.staleAfter = staleAfter
        self.serveStaleFor = serveStaleFor
    }

    /// What a compatibility route does with a status.
    public enum Verdict: Sendable, Equatable {
        /// Serve this price (fresh, or stale within the window: the route marks it where its shape can).
        case serve(price: String, stale: Bool)
        /// Answer "no price", for this reason.
        case refuse(String)
    }

    public func verdict(for status: StatusMessage?) -> Verdict {
        guard let status, let price = status.price, status.state != .nodata else {
            return .refuse("no quote yet: the daemon has not fetched or restored a price")
        }
        if status.state == .fresh { return .serve(price: price, stale: false) }
        guard let ageMilliseconds = status.ageMilliseconds else {
            return .refuse("the price is stale and its age unknown")
        }
        let age = Duration.milliseconds(ageMilliseconds)
        guard age <= staleAfter + serveStaleFor else {
            return .refuse("the price is stale: its last quote is \(Duration.seconds(ageMilliseconds / 1000).humanReadable) old, past BTCPRICED_STALE_AFTER=\(staleAfter.humanReadable) "
                + "plus BTCPRICED_SERVE_STALE_FOR=\(serveStaleFor.humanReadable)")
        }
        return .serve(price: price, stale: true)
    }
}
