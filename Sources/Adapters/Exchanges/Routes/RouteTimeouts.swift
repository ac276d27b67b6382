import PriceCore

/// How long a request may take on its route. Direct, the connection counts within the answer's
/// time, as it always has; through a proxy (above all Tor) the connection and circuit are
/// counted apart, so a slow circuit is not mistaken for a slow venue, and the answer has its own.
public struct RouteTimeouts: Sendable, Hashable {
    /// Until the connection to the venue stands (proxy, handshake, circuit, TLS); nil: within `answer`.
    public var connect: Duration?
    /// For the answer, once connected (or in all, with no `connect`).
    public var answer: Duration

    public init(connect: Duration?, answer: Duration) {
        self.connect = connect
        self.answer = answer
    }

    /// The longest one attempt may take.
    public var attempt: Duration { (connect ?? .zero) + answer }
}
