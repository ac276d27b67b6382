import PriceCore

/// The streams a plan runs, and the pacing of their reads: nil when every message is read as it
/// comes (a zero publish interval) or when no venue streams, so there is nothing to catch up.
public struct StreamLineup: Sendable {
    public let venues: [StreamVenue]
    public let reads: PacedReads?

    public init(venues: [StreamVenue], reads: PacedReads?) {
        self.venues = venues
        self.reads = reads
    }

    /// The longest a streamed trade may wait unread (DaemonPorts.streamReadLag).
    public var readLag: Duration { reads?.longestWait ?? .zero }
}
