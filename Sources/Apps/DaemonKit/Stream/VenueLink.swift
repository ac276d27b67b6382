import CoreMetrics
import PriceCore
import Synchronization
import WireProtocol

/// One venue's stream as the supervisor keeps it: the connection, the link that decides what
/// happens to it, the venue's order rule, and what `btcctl sources` and the metrics say about
/// it. Only the supervisor changes it; everyone else reads.
final class VenueLink<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    let venue: SourceName
    let connection: any PriceStream
    private struct State {
        var link: StreamLink<Instant>
        /// Connections that went live, and why the last one ended, for `btcctl sources`.
        var connections = 0
        var lastEnding: String?
    }
    private let state: Mutex<State>
    /// The venue's order rule, kept across its connections (a rotation's replacement too).
    let order = Mutex(StreamOrder())
    private let connected: Gauge
    private let reconnects: Counter

    init(_ venue: StreamVenue, now: Instant, metrics: any MetricsFactory) {
        self.venue = venue.name
        connection = venue.connection
        state = Mutex(State(link: StreamLink(policy: venue.policy, now: now)))
        connected = Gauge(label: "btcpriced_stream_connected", dimensions: [("source", venue.name.rawValue)], factory: metrics)
        reconnects = Counter(label: "btcpriced_stream_reconnects_total", dimensions: [("source", venue.name.rawValue)], factory: metrics)
        connected.record(0)
    }

    /// A copy of the link, to read.
    var link: StreamLink<Instant> { state.withLock { $0.link } }

    func handle(_ event: StreamLink<Instant>.Event, at now: Instant, jitter: Double) -> [StreamLink<Instant>.Action] {
        let actions = state.withLock { $0.link.handle(event, at: now, jitter: jitter) }
        if !actions.isEmpty { record(actions) }
        return actions
    }

    /// The per-read path: one lock, and nothing recorded unless the link says something.
    func received(_ events: [StreamEvent], from id: Int, at now: Instant) -> StreamLink<Instant>.Reception {
        let reception = state.withLock { $0.link.received(events, from: id, at: now) }
        if !reception.actions.isEmpty { record(reception.actions) }
        return reception
    }

    func healthyUntil(at now: Instant) -> Instant? { state.withLock { $0.link.healthyUntil(at: now) } }

    func nextCheck(at now: Instant) -> Instant { state.withLock { $0.link.nextCheck(at: now) } }

    func report(at now: Instant) -> SourcesReport.Stream {
        let (state, connections, lastEnding) = self.state.withLock { state -> (String, Int, String?) in
            let link = state.link
            let shown = switch link.phase {
            case .live: link.hasStalled(at: now) ? "stalled" : link.isPriceSilent(at: now) ? "quiet" : "live"
            case .connecting: "connecting"
            case .waiting: "retrying"
            case .refused: "refused"
            }
            return (shown, state.connections, state.lastEnding)
        }
        return SourcesReport.Stream(name: venue.rawValue, state: state, connections: connections, lastError: lastEnding)
    }

    private func record(_ actions: [StreamLink<Instant>.Action]) {
        for action in actions {
            switch action {
            case .live:
                let count = state.withLock { state in
                    state.connections += 1
                    return state.connections
                }
                connected.record(1)
                if count > 1 { reconnects.increment() }
            case .handOver(let ending):
                state.withLock { $0.lastEnding = ending.description }
                connected.record(0)
            case .open, .close, .rest, .carrying: break
            }
        }
    }
}
