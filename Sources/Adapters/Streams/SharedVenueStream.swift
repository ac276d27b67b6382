import PriceCore
import Synchronization

/// One connection to a venue's stream carrying the pairs of several currencies
/// (`BTCPRICED_CURRENCIES`), shared by the currencies' supervisors. Each currency's link runs
/// its own `pair(_:)`: the run joins the connection, opening it when none is up, and sees its
/// own pair's prices with the connection's heartbeats and notices. The connection closes when
/// the last run leaves, and its ending ends every run.
///
/// However many links try again after an ending, the venue sees the attempts of one link: after
/// a connection that ended before it was proven (`StreamPolicy.provenAfter`), the next one waits
/// out a backoff of its own, from `firstRetry` doubling to `longestRetry`.
public final class SharedVenueStream<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public typealias Ending = StreamLink<C.Instant>.Ending
    private let connection: any PriceStream
    /// The pairs' symbols as the messages name them; a pair is its index here.
    private let symbols: [String]
    private let policy: StreamPolicy
    private let clock: C
    private let state = Mutex(State())

    /// `connection` carries `symbols`' pairs (a `VenueStream` made for their currencies).
    public init(connection: any PriceStream, symbols: [String], policy: StreamPolicy = StreamPolicy(), clock: C) {
        self.connection = connection
        self.symbols = symbols
        self.policy = policy
        self.clock = clock
    }

    /// The stream of the pair named `symbol`, as its currency's supervisor runs it.
    public func pair(_ symbol: String) -> (any PriceStream)? {
        symbols.firstIndex(of: symbol).map { PairStream(shared: self, pair: $0) }
    }

    private struct Member {
        let pair: Int
        let opened: @Sendable () -> Void
        let received: @Sendable ([StreamEvent]) -> Void
        let ending: CheckedContinuation<Ending, Never>
        var told = false
    }

    private struct State {
        var members: [Int: Member] = [:]
        /// The members told that the connection is open, as each read reaches them.
        var receivers: [(pair: Int, received: @Sendable ([StreamEvent]) -> Void)] = []
        var nextMember = 0
        /// Runs cancelled before they joined.
        var left: Set<Int> = []
        /// Each connection's number; a connection's callbacks count only while it is current.
        var generation = 0
        var running: Task<Void, Never>?
        var isOpen = false
        var unproven = 0
        var nextAttempt: C.Instant?
        /// The connection a leaving run closed, which it waits for.
        var closing: [Int: Task<Void, Never>] = [:]

        mutating func tell(_ ids: [Int]) {
            for id in ids { members[id]?.told = true }
            receivers = members.values.filter(\.told).map { ($0.pair, $0.received) }
        }
    }

    /// Joins the connection as a run of `pair`'s link, until the connection ends or the run is cancelled.
    func join(pair: Int, opened: @escaping @Sendable () -> Void, received: @escaping @Sendable ([StreamEvent]) -> Void) async -> Ending {
        let id = state.withLock { state in
            defer { state.nextMember += 1 }
            return state.nextMember
        }
        let ending = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Ending, Never>) in
                let isOpen = state.withLock { state -> Bool? in
                    if state.left.remove(id) != nil { return nil }
                    state.members[id] = Member(pair: pair, opened: opened, received: received, ending: continuation)
                    if state.running == nil { startConnection(&state) }
                    return state.isOpen
                }
                guard let isOpen else { return continuation.resume(returning: .closed("cancelled")) }
                guard isOpen else { return }
                opened()
                state.withLock { $0.tell([id]) }
            }
        } onCancel: {
            leave(id)
        }
        if let closing = state.withLock({ $0.closing.removeValue(forKey: id) }) { await closing.value }
        return ending
    }

    private func leave(_ id: Int) {
        let member = state.withLock { state -> Member? in
            guard let member = state.members.removeValue(forKey: id) else {
                state.left.insert(id)
                return nil
            }
            state.tell([])
            if state.members.isEmpty, let running = state.running {
                // The last run left: the connection closes, and that run waits for it.
                state.running = nil
                state.isOpen = false
                state.closing[id] = running
                running.cancel()
            }
            return member
        }
        member?.ending.resume(returning: .closed("closed by the supervisor"))
    }

    /// Starts the next connection, after the backoff of the unproven ones before it.
    private func startConnection(_ state: inout State) {
        state.generation += 1
        let (generation, notBefore) = (state.generation, state.nextAttempt)
        state.running = Task { [self] in
            if let notBefore {
                do { try await clock.sleep(until: notBefore, tolerance: nil) } catch { return }
            }
            let started = clock.now
            let ending: Ending = await connection.run(opened: { self.opened(generation) }, received: { self.deliver($0, generation) })
            ended(generation, ending, lived: started.duration(to: clock.now))
        }
    }

    private func opened(_ generation: Int) {
        let waiting = state.withLock { state -> [(Int, @Sendable () -> Void)] in
            guard state.generation == generation, state.running != nil else { return [] }
            state.isOpen = true
            return state.members.filter { !$0.value.told }.map { ($0.key, $0.value.opened) }
        }
        for (_, opened) in waiting { opened() }
        state.withLock { $0.tell(waiting.map(\.0)) }
    }

    private func ended(_ generation: Int, _ ending: Ending, lived: Duration) {
        let members = state.withLock { state -> [Member] in
            let proven = state.isOpen && lived >= policy.provenAfter
            state.unproven = proven ? 0 : state.unproven + 1
            state.nextAttempt = proven ? nil : clock.now.advanced(by: Self.backoff(after: state.unproven, policy))
            guard state.generation == generation, state.running != nil else { return [] }
            state.running = nil
            state.isOpen = false
            defer { state.members = [:]; state.tell([]) }
            return Array(state.members.values)
        }
        for member in members { member.ending.resume(returning: ending) }
    }

    /// Waits after `unproven` connections in a row ended unproven: the link's own schedule.
    static func backoff(after unproven: Int, _ policy: StreamPolicy) -> Duration {
        guard unproven > 0 else { return .zero }
        return min(policy.firstRetry * (1 << min(unproven - 1, 16)), policy.longestRetry)
    }

    /// One read's events to each run whose pair they are about: a price by its symbol, the day's
    /// range with the price before it, a heartbeat or a notice to every run.
    private func deliver(_ events: [StreamEvent], _ generation: Int) {
        let receivers = state.withLock { $0.generation == generation ? $0.receivers : [] }
        guard !receivers.isEmpty else { return }
        let pairs = pairs(of: events)
        for receiver in receivers {
            if pairs.allSatisfy({ $0 == nil || $0 == receiver.pair }) {
                receiver.received(events)
            } else if pairs.contains(where: { $0 == nil || $0 == receiver.pair }) {
                receiver.received(zip(events, pairs).compactMap { $0.1 == nil || $0.1 == receiver.pair ? $0.0 : nil })
            }
        }
    }

    /// Each event's pair; nil for one about the connection (every pair's). A price of a pair
    /// not asked for is dropped (-1), as the parser already refused it.
    private func pairs(of events: [StreamEvent]) -> [Int?] {
        var last: Int?
        return events.map { event in
            switch event {
            case .trade(let quote, _), .tickerClose(let quote, _):
                last = symbols.firstIndex(of: quote.symbol) ?? -1
                return last
            case .dayRange: return last ?? -1
            case .alive, .closingSoon: return nil
            }
        }
    }
}

/// One currency's view of a shared connection: what its supervisor runs.
struct PairStream<C: Clock>: PriceStream where C.Duration == Duration, C.Instant: Sendable {
    let shared: SharedVenueStream<C>
    let pair: Int

    func run<Instant>(opened: @escaping @Sendable () -> Void,
                      received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        switch await shared.join(pair: pair, opened: opened, received: received) {
        case .closed(let reason): .closed(reason)
        case .failed(let reason): .failed(reason)
        case .refused(let status): .refused(status: status)
        case .stalled(let after): .stalled(after: after)
        }
    }
}
