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
                up(source).record(1)
            case .failed(let source, let failure) where failure.sentPrice != nil:
                // It answered; the price check counts what it held or refused.
                up(source).record(1)
            case .failed(let source, let failure):
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

    private func up(_ source: SourceName) -> Gauge {
        Gauge(label: "btcpriced_source_up", dimensions: [("source", source.rawValue)], factory: factory)
    }
}
