/// The life of one venue's stream connection as a pure state machine: when to connect, whether
/// it is healthy (so REST polling can rest), when it has stalled, when to rotate it before the
/// venue drops it, and how long to back off. The adapter reports what happened; this decides.
public struct StreamLink<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration, Instant: Sendable {
    public struct Policy: Sendable, Hashable {
        /// No message at all, heartbeats included, for this long: the stream has stalled.
        public var stallAfter: Duration = .seconds(5)
        /// No price for this long (heartbeats prove a live connection, not a moving price): the
        /// stream stays connected but is no longer healthy, so REST refreshes the quote. The
        /// daemon sets it from its freshness settings (`PriceSilence.limit`).
        public var priceSilenceAfter: Duration = PriceSilence.longest
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
        /// Reconnect this long after connecting, before a venue's own cut-off (24 h at some).
        public var rotateAfter: Duration? = .seconds(23 * 3600 + 30 * 60)
        /// A replacement that failed is tried again after this, while the old connection serves.
        public var replacementRetry: Duration = .seconds(30)

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
        /// No message for the link's stall limit (`Policy.stallAfter`), which it names.
        case stalled(after: Duration)
    }

    public private(set) var policy: Policy
    public private(set) var phase: Phase
    /// Connections that ended before proving themselves, since the last one that did.
    public private(set) var consecutiveFailures = 0
    /// While a rotation reconnects, the stream still counts as healthy until the last message
    /// is as old as the stall limit, so the fetch loop spends no REST call on the gap.
    private var rotationGraceUntil: Instant?
    /// A replacement connection opened beside the live one (a rotation), since then.
    public private(set) var replacementSince: Instant?
    /// After a replacement failed, the next is not tried before this.
    private var nextReplacementAt: Instant?
    /// When a price last arrived, or the connection opened (it gets the silence limit to send one).
    public private(set) var lastPrice: Instant?

    public init(policy: Policy = Policy(), now: Instant) {
        self.policy = policy
        self.phase = .waiting(until: now)
    }

    /// A reload changed the freshness settings the silence limit follows.
    public mutating func use(priceSilenceAfter limit: Duration) {
        policy.priceSilenceAfter = limit
    }

    /// Starts refused: the venue declined the stream before a restart, until `until`.
    public mutating func refusedBefore(until: Instant) {
        phase = .refused(until: until)
    }

    /// Whether a connection attempt should start now.
    public func shouldConnect(at now: Instant) -> Bool {
        switch phase {
        case .waiting(let until), .refused(let until): until <= now
        case .connecting, .live: false
        }
    }

    /// Healthy: live, something arrived within the stall limit and a price within the silence
    /// limit. REST polling rests only then.
    public func isHealthy(at now: Instant) -> Bool {
        switch phase {
        case .live(_, let last):
            return last.duration(to: now) < policy.stallAfter && !isPriceSilent(at: now)
        case .connecting: return rotationGraceUntil.map { now < $0 } ?? false
        case .waiting, .refused: return false
        }
    }

    /// While healthy, the moment it would stop being healthy if nothing more arrived (a
    /// message or a price only moves it later); nil when not healthy. The fetch loop rests until
    /// then; a connection that ends early rings its bell instead.
    public func healthyUntil(at now: Instant) -> Instant? {
        guard isHealthy(at: now) else { return nil }
        switch phase {
        case .live(_, let last):
            let stall = last.advanced(by: policy.stallAfter)
            return lastPrice.map { min(stall, $0.advanced(by: policy.priceSilenceAfter)) } ?? stall
        case .connecting: return rotationGraceUntil
        case .waiting, .refused: return nil
        }
    }

    /// Live and answering, but no price within the silence limit.
    public func isPriceSilent(at now: Instant) -> Bool {
        guard case .live = phase, let lastPrice else { return false }
        return lastPrice.duration(to: now) >= policy.priceSilenceAfter
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

    /// Time to open a replacement connection: the rotation age is reached and no replacement is
    /// in flight or resting after a failure. The old one stays until the new one is live (see
    /// `replaced(at:)`), so no trade is missed and no REST call is spent on the switch.
    public func rotationDue(at now: Instant) -> Bool {
        guard case .live(let since, _) = phase, let rotateAfter = policy.rotateAfter, replacementSince == nil else { return false }
        if let nextReplacementAt, now < nextReplacementAt { return false }
        return since.duration(to: now) >= rotateAfter
    }

    /// A replacement opened beside the live connection has not carried a message within the
    /// connect timeout: give it up and keep the old one.
    public func replacementTimedOut(at now: Instant) -> Bool {
        replacementSince.map { $0.duration(to: now) >= policy.connectTimeout } ?? false
    }

    /// The next instant something is due: a connection attempt, a stall check or a rotation.
    public func nextDeadline() -> Instant? {
        switch phase {
        case .waiting(let until), .refused(let until): until
        case .connecting(let since): since.advanced(by: policy.connectTimeout)
        case .live(let since, let last):
            [last.advanced(by: policy.stallAfter),
             replacementSince.map { $0.advanced(by: policy.connectTimeout) },
             replacementSince == nil ? policy.rotateAfter.map { max(since.advanced(by: $0), nextReplacementAt ?? since) } : nil]
                .compactMap { $0 }.min()
        }
    }

    public mutating func connecting(at now: Instant) {
        rotationGraceUntil = nil
        replacementSince = nil
        phase = .connecting(since: now)
    }

    /// A replacement connection is being opened beside the live one.
    public mutating func replacing(at now: Instant) {
        replacementSince = now
    }

    /// The replacement failed or timed out; the live connection carries on, and the next
    /// replacement waits `replacementRetry` (never a tight loop against the venue's connection limit).
    public mutating func replacementFailed(at now: Instant) {
        replacementSince = nil
        nextReplacementAt = now.advanced(by: policy.replacementRetry)
    }

    public var isLive: Bool {
        if case .live = phase { return true }
        return false
    }

    /// The live connection ended (the venue's cut-off, or a notice) before its replacement was
    /// live: the replacement becomes the attempt in flight, and the stream counts as healthy
    /// until the last message is as old as the stall limit.
    public mutating func rotating(at now: Instant) {
        guard case .live(_, let last) = phase else { return }
        rotationGraceUntil = last.advanced(by: policy.stallAfter)
        phase = .connecting(since: replacementSince ?? now)
        replacementSince = nil
    }

    /// The upgrade succeeded.
    public mutating func opened(at now: Instant) {
        rotationGraceUntil = nil
        lastPrice = now
        phase = .live(since: now, lastMessage: now)
    }

    /// What one read's messages did to the link.
    public struct Reception: Sendable, Equatable {
        /// The link was not live before them: a promoted replacement's first message.
        public var becameLive = false
        /// One of them is a shutdown notice, which asks for a rotation now.
        public var closingSoon = false

        public init(becameLive: Bool = false, closingSoon: Bool = false) {
            self.becameLive = becameLive
            self.closingSoon = closingSoon
        }
    }

    /// A read's messages arrived. A message on an attempt still connecting (a promoted
    /// replacement) makes it live. The phase is matched once per read. Specialised for the
    /// daemon's instants (ContinuousClock's): the stream service's per-read path calls it across
    /// modules, and the generic body pays a metadata lookup at each use of `Instant`.
    @discardableResult
    @_specialize(where Instant == ContinuousClock.Instant)
    public mutating func received(_ events: [StreamEvent], at now: Instant) -> Reception {
        var reception = Reception()
        let since: Instant
        switch phase {
        case .live(let liveSince, _): since = liveSince
        case .connecting:
            // Once per connection, so going through opened(at:) costs the reads nothing.
            reception.becameLive = true
            opened(at: now)
            since = now
        case .waiting, .refused: return reception
        }
        phase = .live(since: since, lastMessage: now)
        // Matched by case, not compared: comparing whole events (prices included) for every
        // read would cost more than the rest of this.
        var hasPrice = false
        for event in events {
            switch event {
            case .trade, .tickerClose: hasPrice = true
            case .closingSoon: reception.closingSoon = true
            case .dayRange, .alive: break
            }
        }
        if hasPrice { lastPrice = now }
        if since.duration(to: now) >= policy.provenAfter { consecutiveFailures = 0 }
        return reception
    }

    /// A replacement connection is live: it takes over, with its own age.
    public mutating func replaced(at now: Instant) {
        replacementSince = nil
        nextReplacementAt = nil
        rotationGraceUntil = nil
        lastPrice = now
        phase = .live(since: now, lastMessage: now)
    }

    /// The connection (or the attempt) ended. `jitter` is a value in 0...1.
    public mutating func ended(_ ending: Ending, at now: Instant, jitter: Double) {
        rotationGraceUntil = nil
        replacementSince = nil
        nextReplacementAt = nil
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

extension StreamLink {
    /// Of several venues' links in the user's order, the one to use next: the first that is not
    /// resting after a refusal (a geo-blocked venue hands over to the next venue that can
    /// stream); when every one is, the one whose rest ends first.
    public static func preferred(_ links: [StreamLink], at now: Instant) -> Int? {
        func restingUntil(_ link: StreamLink) -> Instant? {
            if case .refused(let until) = link.phase, now < until { return until }
            return nil
        }
        if let usable = links.firstIndex(where: { restingUntil($0) == nil }) { return usable }
        return links.indices.min { restingUntil(links[$0])! < restingUntil(links[$1])! }
    }
}

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
