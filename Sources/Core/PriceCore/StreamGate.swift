/// The one answer to "does a stream carry the quotes now?". The fetch loop asks it before each
/// cycle (and rests while it does); the price intake asks it before a polled quote may replace
/// a streamed one. Both asking one gate means they can never disagree about the stream.
public struct StreamGate<Instant: InstantProtocol & Sendable>: Sendable {
    private let carriedUntil: @Sendable (Instant) -> Instant?
    /// Rung when the stream stops carrying quotes before the moment `carriedUntil` gave: a
    /// connection ended, or a reload shortened the silence limit. Nil when nothing rings it.
    public let bell: StandbyBell?

    /// `carriedUntil(now)` is until when the stream surely carries the quotes if nothing more
    /// arrives, or nil when it does not carry them now.
    public init(bell: StandbyBell? = nil, carriedUntil: @escaping @Sendable (Instant) -> Instant?) {
        self.bell = bell
        self.carriedUntil = carriedUntil
    }

    /// No stream: polling carries every quote.
    public static var closed: StreamGate { StreamGate { _ in nil } }

    public func carriedUntil(at now: Instant) -> Instant? { carriedUntil(now) }

    /// This gate, closed while `holding` says so (a streamed price waits for another venue's
    /// word, which only polling can bring), with the same bell.
    public func closed(while holding: @escaping @Sendable () -> Bool) -> StreamGate {
        let carriedUntil = self.carriedUntil
        return StreamGate(bell: bell) { now in holding() ? nil : carriedUntil(now) }
    }

    public func carriesQuotes(at now: Instant) -> Bool { carriedUntil(now) != nil }
}
