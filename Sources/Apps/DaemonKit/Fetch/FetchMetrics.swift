import CoreMetrics
import PriceCore
import Synchronization

/// What the fetch loop's cycles say about each source: whether it is up, and why it failed.
public struct FetchMetrics: Sendable {
    public let factory: any MetricsFactory

    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// A paced source keeps its last state: it was not asked.
    public func record(_ attempts: [SourceAttempt]) {
        for attempt in attempts {
            switch attempt {
            case .succeeded(let source, _):
                requests(source, .price).increment()
                up(source).record(1)
            case .failed(let source, let failure) where failure.sentPrice != nil:
                // It answered; the price check counts what it held or refused.
                requests(source, .price).increment()
                up(source).record(1)
            case .failed(let source, let failure):
                requests(source, .price).increment()
                up(source).record(0)
                Counter(label: "btcpriced_fetch_failures_total", dimensions: [("source", source.rawValue), ("reason", failure.reason.rawValue)],
                        factory: factory).increment()
            case .coolingDown(let source):
                up(source).record(0)
            case .paced:
                continue
            }
        }
    }

    /// Requests made to a venue, by kind: price fetches and candles keep their own paces.
    public func requests(_ source: SourceName, _ kind: RequestKind) -> Counter {
        Counter(label: "btcpriced_source_requests_total", dimensions: [("source", source.rawValue), ("kind", kind.rawValue)], factory: factory)
    }

    private func up(_ source: SourceName) -> Gauge {
        Gauge(label: "btcpriced_source_up", dimensions: [("source", source.rawValue)], factory: factory)
    }
}
