/// The life of one venue's stream connection as a pure state machine: when to connect, whether
/// it is healthy (so REST polling can rest), when it has stalled, when to rotate it before the
/// venue drops it, and how long to back off. The adapter reports what happened; this decides.
public struct StreamLink<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration, Instant: Sendable {
    public struct Policy: Sendable, Hashable {
        /// No message at all, heartbeats included, for this long: the stream has stalled.
        public var stallAfter: Duration = .seconds(5)
        /// An attempt not live after this long (a black-holed address, an upgrade never answered) is given up.
        public var connectTimeout: Duration = .seconds(10)
        /// Backoff after a failed or short-lived connection: from `firstRetry`, doubling, capped.
        public var firstRetry: Duration = .seconds(2)
        public var longestRetry: Duration = .seconds(300)
        /// A connection must have carried data this long before the backoff starts over, so a
        /// stream that connects and drops again at once never reconnects faster than the backoff.
        public var provenAfter: Duration = .seconds(60)
        /// A refused upgrade (HTTP 451 or 403) is not tried again for this long.
        public var refusalCooldown: Duration = .seconds(3600)
        /// Reconnect this long after connecting, before a venue's own cut-off (Binance: 24 h).
        public var rotateAfter: Duration? = .seconds(23 * 3600 + 30 * 60)

        public init() {}
    }

    public enum Phase: Sendable, Hashable {
        /// Waiting to (re)connect; nothing in flight.
        case waiting(until: Instant)
        /// A connection attempt is in flight.
        case connecting(since: Instant)
        /// Upgraded and subscribed; `lastMessage` is when anything last arrived.
        case live(since: Instant, lastMessage: Instant)
        /// The venue refused the upgrade; not asked again until then.
        case refused(until: Instant)
    }

    /// Why a connection ended, as the adapter saw it.
    public enum Ending: Sendable, Hashable {
        case closed(String)
        case failed(String)
        case refused(status: Int)
        case stalled
    }

    public let policy: Policy
    public private(set) var phase: Phase
    /// Connections that ended before proving themselves, since the last one that did.
    public private(set) var consecutiveFailures = 0
    /// While a rotation reconnects, the stream still counts as healthy until the last message
    /// is as old as the stall limit, so the fetch loop spends no REST call on the gap.
    private var rotationGraceUntil: Instant?

    public init(policy: Policy = Policy(), now: Instant) {
        self.policy = policy
        self.phase = .waiting(until: now)
    }

    /// Whether a connection attempt should start now.
    public func shouldConnect(at now: Instant) -> Bool {
        switch phase {
        case .waiting(let until), .refused(let until): until <= now
        case .connecting, .live: false
        }
    }

    /// Healthy: live, and something arrived within the stall limit. REST polling rests only then.
    public func isHealthy(at now: Instant) -> Bool {
        switch phase {
        case .live(_, let last): return last.duration(to: now) < policy.stallAfter
        case .connecting: return rotationGraceUntil.map { now < $0 } ?? false
        case .waiting, .refused: return false
        }
    }

    /// Live but silent past the stall limit, or still connecting past the connect timeout:
    /// the adapter should end the connection.
    public func hasStalled(at now: Instant) -> Bool {
        switch phase {
        case .live(_, let last): last.duration(to: now) >= policy.stallAfter
        case .connecting(let since): since.duration(to: now) >= policy.connectTimeout
        case .waiting, .refused: false
        }
    }

    /// Time to open a replacement connection: the rotation age is reached, or the venue said it
    /// will close soon. The old one stays until the new one is live (see `replaced(at:)`).
    public func rotationDue(at now: Instant) -> Bool {
        guard case .live(let since, _) = phase, let rotateAfter = policy.rotateAfter else { return false }
        return since.duration(to: now) >= rotateAfter
    }

    /// The next instant something is due: a connection attempt, a stall check or a rotation.
    public func nextDeadline() -> Instant? {
        switch phase {
        case .waiting(let until), .refused(let until): until
        case .connecting(let since): since.advanced(by: policy.connectTimeout)
        case .live(let since, let last):
            [last.advanced(by: policy.stallAfter), policy.rotateAfter.map { since.advanced(by: $0) }].compactMap { $0 }.min()
        }
    }

    public mutating func connecting(at now: Instant) {
        rotationGraceUntil = nil
        phase = .connecting(since: now)
    }

    /// Ends a live connection on purpose (its age, or the venue's notice) and reconnects at once.
    public mutating func rotating(at now: Instant) {
        guard case .live(_, let last) = phase else { return }
        rotationGraceUntil = last.advanced(by: policy.stallAfter)
        phase = .connecting(since: now)
    }

    /// The upgrade succeeded.
    public mutating func opened(at now: Instant) {
        rotationGraceUntil = nil
        phase = .live(since: now, lastMessage: now)
    }

    /// A message arrived. Returns true when it asks for a rotation (a shutdown notice).
    @discardableResult
    public mutating func received(_ events: [StreamEvent], at now: Instant) -> Bool {
        guard case .live(let since, _) = phase else { return false }
        phase = .live(since: since, lastMessage: now)
        if since.duration(to: now) >= policy.provenAfter { consecutiveFailures = 0 }
        return events.contains(.closingSoon)
    }

    /// A replacement connection is live: it takes over, with its own age.
    public mutating func replaced(at now: Instant) {
        phase = .live(since: now, lastMessage: now)
    }

    /// The connection (or the attempt) ended. `jitter` is a value in 0...1.
    public mutating func ended(_ ending: Ending, at now: Instant, jitter: Double) {
        rotationGraceUntil = nil
        if case .refused = ending {
            phase = .refused(until: now.advanced(by: policy.refusalCooldown))
            return
        }
        let proven: Bool
        if case .live(let since, let last) = phase { proven = since.duration(to: last) >= policy.provenAfter } else { proven = false }
        consecutiveFailures = proven ? 0 : consecutiveFailures + 1
        phase = .waiting(until: now.advanced(by: retryDelay(jitter: jitter)))
    }

    /// Equal jitter over an exponential backoff: half fixed, half random. After a proven
    /// connection, the first retry still waits `firstRetry`, never zero.
    func retryDelay(jitter: Double) -> Duration {
        let exponent = min(max(consecutiveFailures - 1, 0), 16)
        let grown = min(policy.firstRetry * (1 << exponent), policy.longestRetry)
        return grown / 2 + (grown / 2) * min(max(jitter, 0), 1)
    }
}
