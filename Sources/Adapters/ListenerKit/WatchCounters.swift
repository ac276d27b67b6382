import CoreMetrics

/// What a fan-out of streamed lines records: how many watch, and how many were dropped for not
/// reading. The socket's `watch` and the HTTP listener's event stream each have their own.
public struct WatchCounters: Sendable {
    let subscribers: Gauge
    let slowDropped: Counter

    public init(subscribers: Gauge, slowDropped: Counter) {
        self.subscribers = subscribers
        self.slowDropped = slowDropped
        subscribers.record(0)
    }
}
