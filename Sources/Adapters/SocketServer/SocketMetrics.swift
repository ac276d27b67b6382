import ListenerKit
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
    private let rejections: [Rejection: Counter]
    let watchCounters: WatchCounters

    init(factory: any MetricsFactory) {
        let words = Request.plain.map(\.word) + ["history", "invalid"]
        requests = Dictionary(uniqueKeysWithValues: words.map {
            ($0, Counter(label: "btcpriced_socket_requests_total", dimensions: [("request", $0)], factory: factory))
        })
        let rejected = { (reason: Rejection) in Counter(label: "btcpriced_socket_rejected_total", dimensions: [("reason", reason.rawValue)], factory: factory) }
        // The fan-out counts its drops in the same family.
        let slowDropped = rejected(.slowWatcher)
        rejections = Dictionary(uniqueKeysWithValues: Rejection.allCases.map { ($0, $0 == .slowWatcher ? slowDropped : rejected($0)) })
        watchCounters = WatchCounters(subscribers: Gauge(label: "btcpriced_watch_subscribers", factory: factory), slowDropped: slowDropped)
    }

    func count(_ request: Request?) {
        requests[request?.word ?? "invalid"]?.increment()
    }

    func reject(_ reason: Rejection) {
        rejections[reason]?.increment()
    }

    func reject<Party>(_ refusal: ConnectionBudget<Party>.Refusal) {
        reject(refusal.isPerUser ? .perUserLimit : .connectionLimit)
    }
}
