import CoreMetrics
import PriceCore
import Synchronization
import WireProtocol

/// The stream's link, shared with the fetch loop, which rests while the stream is healthy.
public final class StreamState<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public let venue: SourceName
    private let link: Mutex<StreamLink<Instant>>
    /// For `btcctl sources`: connections opened, and why the last one ended.
    private let history = Mutex((connections: 0, lastEnding: String?.none))
    private let connected: Gauge
    private let reconnects: Counter

    public init(venue: SourceName, link: StreamLink<Instant>, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.venue = venue
        self.link = Mutex(link)
        connected = Gauge(label: "btcpriced_stream_connected", dimensions: [("source", venue.rawValue)], factory: metrics)
        reconnects = Counter(label: "btcpriced_stream_reconnects_total", dimensions: [("source", venue.rawValue)], factory: metrics)
        connected.record(0)
    }

    /// The venue's order rule, kept across its connections (a rotation's replacement too).
    public let order = Mutex(StreamOrder())

    public func isHealthy(at now: Instant) -> Bool { link.withLock { $0.isHealthy(at: now) } }
    public func update<T>(_ body: (inout StreamLink<Instant>) -> T) -> T { link.withLock { body(&$0) } }

    public func opened() {
        let count = history.withLock { history in
            history.connections += 1
            return history.connections
        }
        connected.record(1)
        if count > 1 { reconnects.increment() }
    }

    public func ended(_ reason: String) {
        history.withLock { $0.lastEnding = reason }
        connected.record(0)
    }

    public func report(at now: Instant) -> SourcesReport.Stream {
        let state = link.withLock { link -> String in
            switch link.phase {
            case .live: link.hasStalled(at: now) ? "stalled" : link.isPriceSilent(at: now) ? "quiet" : "live"
            case .connecting: "connecting"
            case .waiting: "retrying"
            case .refused: "refused"
            }
        }
        let (connections, lastEnding) = history.withLock { ($0.connections, $0.lastEnding) }
        return SourcesReport.Stream(name: venue.rawValue, state: state, connections: connections, lastError: lastEnding)
    }
}
