/// The life of one venue's stream as a pure state machine: the supervisor tells it what
/// happened (`handle(_:at:jitter:)`, `received(_:from:at:)`) and does what it answers: open
/// or close a connection, rest, hand the quote over to REST. It decides when to connect,
/// whether the stream is healthy (so REST polling can rest), when it has stalled, when to
/// rotate before the venue drops it, and how long to back off. It knows the connections by
/// number: the one in use and, during a rotation, the replacement opened beside it.
public struct StreamLink<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration, Instant: Sendable {
    public typealias Policy = StreamPolicy

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

    /// What happened, as the supervisor saw it.
    public enum Event: Sendable, Hashable {
        /// The supervisor is ready for a connection: open one if the rest is over.
        case attempt
        /// Connection `id`'s upgrade succeeded.
        case opened(Int)
        /// Connection `id` ended, for this reason.
        case ended(Int, Ending)
        /// Time passed: act on whatever is due (a stall, the connect timeout, a rotation, a
        /// replacement that never carried a message).
        case due
        /// The venue refused the stream before a restart; not asked again until then.
        case refusedBefore(until: Instant)
        /// A reload changed the freshness settings the silence limit follows.
        case priceSilenceAfter(Duration)
    }

    /// What the supervisor does next.
    public enum Action: Sendable, Hashable {
        /// Open connection `id`: an attempt, or a replacement beside the live connection.
        case open(Int)
        /// Close connection `id`: retired by its replacement, or a replacement given up.
        case close(Int)
        /// Nothing to open before then: the rest after a drop or a refusal.
        case rest(until: Instant)
        /// Connection `id` is now the live one in use (an upgrade, or a replacement taking over).
        case live(Int)
        /// The connection in use carries its first message.
        case carrying
        /// The stream is over for now, for this reason: close every connection, and REST
        /// carries the quote until the next attempt (`phase` says when).
        case handOver(Ending)
    }

    /// What one read's messages mean.
    public struct Reception: Sendable, Equatable {
        /// From the connection in use (or its replacement, which takes over): the messages
        /// count. From any other (retired, given up, or a read after the stream ended), not.
        public var counts = false
        public var actions: [Action] = []

        public init(counts: Bool = false, actions: [Action] = []) {
            self.counts = counts
            self.actions = actions
        }
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
    /// The connection in use (the attempt, or the live one), and the replacement beside it.
    public private(set) var inUse: Int?
    public private(set) var replacement: Int?
    private var nextConnection = 0
    /// Whether the connection in use has carried a message.
    private var carrying = false

    public init(policy: Policy = Policy(), now: Instant) {
        self.policy = policy
        self.phase = .waiting(until: now)
    }

    /// Handles what happened at `now`. `jitter`, a value in 0...1, spreads the retry when the
    /// stream hands over.
    @discardableResult
    public mutating func handle(_ event: Event, at now: Instant, jitter: Double) -> [Action] {
        switch event {
        case .attempt:
            switch phase {
            case .waiting(let until), .refused(let until):
                guard until <= now else { return [.rest(until: until)] }
                connecting(at: now)
                let id = open()
                inUse = id
                return [.open(id)]
            case .connecting, .live: return []
            }
        case .opened(let id):
            guard id == inUse, case .connecting = phase else { return [] }
            opened(at: now)
            return [.live(id)]
        case .ended(let id, let ending):
            if id == replacement {
                replacementFailed(at: now)
                return []
            }
            guard id == inUse else { return [] }
            if let replacement {
                // The live connection ended (the venue's cut-off, or a notice) before its
                // replacement was live: the replacement becomes the attempt in flight.
                rotating(at: now)
                inUse = replacement
                self.replacement = nil
                carrying = false
                return []
            }
            return handOver(ending, at: now, jitter: jitter)
        case .due:
            return due(at: now, jitter: jitter)
        case .refusedBefore(let until):
            phase = .refused(until: until)
            return []
        case .priceSilenceAfter(let limit):
            policy.priceSilenceAfter = limit
            return []
        }
    }

    /// A read's messages from connection `id` arrived. A replacement's first message takes over
    /// from the connection in use; a message on an attempt still connecting makes it live. The
    /// phase is matched once per read, and nothing is allocated unless there is something to
    /// do. Specialised for the daemon's instants (ContinuousClock's): the supervisor's per-read
    /// path calls it across modules, and the generic body pays a metadata lookup at each use
    /// of `Instant`.
    @discardableResult
    @_specialize(where Instant == ContinuousClock.Instant)
    public mutating func received(_ events: [StreamEvent], from id: Int, at now: Instant) -> Reception {
        var reception = Reception()
        if id != inUse {
            guard id == replacement, case .live = phase else { return reception }
            // The replacement is live: it takes over, with its own age, and the old one goes.
            let old = inUse
            replaced(at: now)
            inUse = id
            replacement = nil
            carrying = false
            reception.actions.append(.live(id))
            if let old { reception.actions.append(.close(old)) }
        }
        let since: Instant
        switch phase {
        case .live(let liveSince, _): since = liveSince
        case .connecting:
            // Once per connection, so going through opened(at:) costs the reads nothing.
            reception.actions.append(.live(id))
            opened(at: now)
            since = now
        case .waiting, .refused: return reception
        }
        reception.counts = true
        phase = .live(since: since, lastMessage: now)
        if !carrying {
            carrying = true
            reception.actions.append(.carrying)
        }
        // Matched by case, not compared: comparing whole events (prices included) for every
        // read would cost more than the rest of this.
        var hasPrice = false, closingSoon = false
        for event in events {
            switch event {
            case .trade, .tickerClose: hasPrice = true
            case .closingSoon: closingSoon = true
            case .dayRange, .alive: break
            }
        }
        if hasPrice { lastPrice = now }
        if since.duration(to: now) >= policy.provenAfter { consecutiveFailures = 0 }
        // A notice while a replacement is already in flight asks for nothing more.
        if closingSoon, replacement == nil { reception.actions.append(replace(at: now)) }
        return reception
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

    /// Live but silent past the stall limit, or still connecting past the connect timeout.
    public func hasStalled(at now: Instant) -> Bool {
        switch phase {
        case .live(_, let last): last.duration(to: now) >= policy.stallAfter
        case .connecting(let since): since.duration(to: now) >= policy.connectTimeout
        case .waiting, .refused: false
        }
    }

    public var isLive: Bool {
        if case .live = phase { return true }
        return false
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

    /// When the supervisor should next send `.due`. Live with no replacement in flight, the
    /// deadlines only move later (a message pushes the stall back), so it waits for the next
    /// one: at 10 trades a second it wakes once per stall limit, not every second. Otherwise
    /// (connecting, replacing) a change it does not see may bring one closer, so it looks
    /// every second.
    public func nextCheck(at now: Instant) -> Instant {
        let second = now.advanced(by: .seconds(1))
        guard let deadline = nextDeadline() else { return second }
        return isLive && replacementSince == nil ? deadline : min(deadline, second)
    }

    // MARK: - Transitions

    private mutating func open() -> Int {
        defer { nextConnection += 1 }
        return nextConnection
    }

    private mutating func due(at now: Instant, jitter: Double) -> [Action] {
        var actions: [Action] = []
        if rotationDue(at: now) { actions.append(replace(at: now)) }
        if replacementTimedOut(at: now), let given = replacement {
            replacementFailed(at: now)
            actions.append(.close(given))
        }
        if hasStalled(at: now) {
            let ending: Ending = if case .connecting = phase {
                .failed("no answer within \(policy.connectTimeout.humanReadable) of connecting")
            } else {
                .stalled(after: policy.stallAfter)
            }
            return handOver(ending, at: now, jitter: jitter)
        }
        return actions
    }

    /// Time to open a replacement connection: the rotation age is reached and no replacement is
    /// in flight or resting after a failure. The old one stays until the new one is live, so no
    /// trade is missed and no REST call is spent on the switch.
    private func rotationDue(at now: Instant) -> Bool {
        guard case .live(let since, _) = phase, let rotateAfter = policy.rotateAfter, replacementSince == nil else { return false }
        if let nextReplacementAt, now < nextReplacementAt { return false }
        return since.duration(to: now) >= rotateAfter
    }

    /// A replacement opened beside the live connection has not carried a message within the
    /// connect timeout: give it up and keep the old one.
    private func replacementTimedOut(at now: Instant) -> Bool {
        replacementSince.map { $0.duration(to: now) >= policy.connectTimeout } ?? false
    }

    private mutating func replace(at now: Instant) -> Action {
        replacementSince = now
        let id = open()
        replacement = id
        return .open(id)
    }

    private mutating func connecting(at now: Instant) {
        rotationGraceUntil = nil
        replacementSince = nil
        carrying = false
        phase = .connecting(since: now)
    }

    /// The replacement failed or timed out; the live connection carries on, and the next
    /// replacement waits `replacementRetry` (never a tight loop against the venue's connection limit).
    private mutating func replacementFailed(at now: Instant) {
        replacement = nil
        replacementSince = nil
        nextReplacementAt = now.advanced(by: policy.replacementRetry)
    }

    /// The live connection ended before its replacement was live: the stream counts as
    /// healthy until the last message is as old as the stall limit.
    private mutating func rotating(at now: Instant) {
        guard case .live(_, let last) = phase else { return }
        rotationGraceUntil = last.advanced(by: policy.stallAfter)
        phase = .connecting(since: replacementSince ?? now)
        replacementSince = nil
    }

    /// The upgrade succeeded.
    private mutating func opened(at now: Instant) {
        rotationGraceUntil = nil
        lastPrice = now
        phase = .live(since: now, lastMessage: now)
    }

    /// A replacement connection is live: it takes over, with its own age.
    private mutating func replaced(at now: Instant) {
        replacementSince = nil
        nextReplacementAt = nil
        rotationGraceUntil = nil
        lastPrice = now
        phase = .live(since: now, lastMessage: now)
    }

    /// The stream is over for now: every connection goes, and the next attempt waits the
    /// backoff, or the refusal's cool-down.
    private mutating func handOver(_ ending: Ending, at now: Instant, jitter: Double) -> [Action] {
        rotationGraceUntil = nil
        replacementSince = nil
        nextReplacementAt = nil
        inUse = nil
        replacement = nil
        if case .refused = ending {
            phase = .refused(until: now.advanced(by: policy.refusalCooldown))
            return [.handOver(ending)]
        }
        let proven: Bool
        if case .live(let since, let last) = phase { proven = since.duration(to: last) >= policy.provenAfter } else { proven = false }
        consecutiveFailures = proven ? 0 : consecutiveFailures + 1
        phase = .waiting(until: now.advanced(by: retryDelay(jitter: jitter)))
        return [.handOver(ending)]
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
