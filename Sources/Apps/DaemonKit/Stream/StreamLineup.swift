import PriceCore
import Synchronization
import WireProtocol

/// The venues BTCPRICED_STREAM allows, in the chain's order, each with its own link, and the
/// one in use. The fetch loop, the price intake and `btcctl sources` see the one in use.
public final class StreamLineup<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public struct Candidate: Sendable {
        public let connection: any PriceStream
        public let state: StreamState<Instant>

        public init(connection: any PriceStream, state: StreamState<Instant>) {
            self.connection = connection
            self.state = state
        }
    }

    public let candidates: [Candidate]
    private let inUse = Mutex(0)
    /// Rung when the stream stops carrying quotes before the fetch loop's rest ends: a
    /// connection ended, or a reload shortened the silence limit.
    public let standbyBell = StandbyBell()

    /// nil when no venue in the chain can stream.
    public init?(_ candidates: [Candidate]) {
        guard !candidates.isEmpty else { return nil }
        self.candidates = candidates
    }

    public var current: Candidate { candidates[inUse.withLock { $0 }] }

    /// Picks the venue to connect to next (`StreamLink.preferred`) and makes it the one in use.
    public func choose(at now: Instant) -> Candidate {
        let index = StreamLink.preferred(candidates.map { $0.state.update { $0 } }, at: now) ?? 0
        inUse.withLock { $0 = index }
        return candidates[index]
    }

    /// A reload changed the freshness settings the silence limit follows.
    public func use(priceSilenceAfter limit: Duration) {
        for candidate in candidates { candidate.state.update { $0.use(priceSilenceAfter: limit) } }
        standbyBell.ring()
    }

    /// Whether the stream in use carries the quotes, and until when it surely does
    /// (`StreamLink.healthyUntil`): the gate the fetch loop and the price intake both ask.
    public var gate: StreamGate<Instant> {
        StreamGate(bell: standbyBell) { [self] now in current.state.update { $0.healthyUntil(at: now) } }
    }
    public func report(at now: Instant) -> SourcesReport.Stream { current.state.report(at: now) }

    /// Venues that refused their stream before a restart stay refused for the rest of their
    /// hour, so a restart loop never asks a geo-blocking venue again; returns them.
    public func resumeRefusals(from ledger: SourceLedger<Instant>, at now: Instant) -> [(venue: SourceName, until: Instant)] {
        candidates.compactMap { candidate in
            guard let until = ledger.streamRefusal(candidate.state.venue, at: now) else { return nil }
            candidate.state.update { $0.refusedBefore(until: until) }
            return (candidate.state.venue, until)
        }
    }
}
