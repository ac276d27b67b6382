import CoreMetrics
import WireProtocol

/// What the socket server records, made once so a request costs an increment, not a lookup.
struct SocketMetrics: Sendable {
    enum Rejection: String, CaseIterable {
        /// Over the connection cap.
        case connectionLimit = "connection_limit"
        /// Over one UID's share of connections or `watch` streams.
        case perUserLimit = "per_user_limit"
        /// No complete request line in time.
        case requestTimeout = "request_timeout"
        /// A `watch` client that stopped reading.
        case slowWatcher = "slow_watcher"
    }

    private let requests: [String: Counter]
    private let rejections: [String: Counter]
    let subscribers: Gauge

    init(factory: any MetricsFactory) {
        let words = Request.plain.map(\.word) + ["history", "invalid"]
        requests = Dictionary(uniqueKeysWithValues: words.map {
            ($0, Counter(label: "btcpriced_socket_requests_total", dimensions: [("request", $0)], factory: factory))
        })
        rejections = Dictionary(uniqueKeysWithValues: Rejection.allCases.map {
            ($0.rawValue, Counter(label: "btcpriced_socket_rejected_total", dimensions: [("reason", $0.rawValue)], factory: factory))
        })
        subscribers = Gauge(label: "btcpriced_watch_subscribers", factory: factory)
        subscribers.record(0)
    }

    func count(_ request: Request?) {
        requests[request?.word ?? "invalid"]?.increment()
    }

    func reject(_ reason: Rejection) {
        rejections[reason.rawValue]?.increment()
    }

    func reject(_ refusal: ConnectionBudget.Refusal) {
        reject(refusal.isPerUser ? .perUserLimit : .connectionLimit)
    }
}
