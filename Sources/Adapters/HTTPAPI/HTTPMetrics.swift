import CoreMetrics
import ListenerKit

/// What the HTTP listener records, made once so a request costs an increment, not a lookup.
struct HTTPMetrics: Sendable {
    enum Rejection: String, CaseIterable {
        case connectionLimit = "connection_limit"
        /// Over one remote address's share of connections or event streams.
        case perAddressLimit = "per_address_limit"
        /// Nothing, or no complete request, within the request timeout.
        case requestTimeout = "request_timeout"
        case headerTooLarge = "header_too_large"
        /// A `Host` the listener does not answer (421).
        case misdirected = "misdirected"
        /// An event stream that stopped reading.
        case slowClient = "slow_client"
    }

    /// In `Route.allCases`' order, then the one for any other path: a request compares a few
    /// enum tags instead of hashing its route.
    private let requests: [Counter]
    private let rejections: [Rejection: Counter]
    let eventCounters: WatchCounters

    init(factory: any MetricsFactory) {
        let routes: [HTTPRoutes.Route?] = HTTPRoutes.Route.allCases + [nil]
        requests = routes.map {
            Counter(label: "btcpriced_http_requests_total", dimensions: [("route", $0?.metricName ?? "other")], factory: factory)
        }
        let rejected = { (reason: Rejection) in Counter(label: "btcpriced_http_rejected_total", dimensions: [("reason", reason.rawValue)], factory: factory) }
        let slowDropped = rejected(.slowClient)
        rejections = Dictionary(uniqueKeysWithValues: Rejection.allCases.map { ($0, $0 == .slowClient ? slowDropped : rejected($0)) })
        eventCounters = WatchCounters(subscribers: Gauge(label: "btcpriced_http_event_streams", factory: factory), slowDropped: slowDropped)
    }

    func count(_ route: HTTPRoutes.Route?) {
        requests[route.flatMap(HTTPRoutes.Route.allCases.firstIndex(of:)) ?? HTTPRoutes.Route.allCases.count].increment()
    }
    func reject(_ reason: Rejection) { rejections[reason]?.increment() }
    func reject(_ refusal: ConnectionBudget<String>.Refusal) { reject(refusal.isPerUser ? .perAddressLimit : .connectionLimit) }
}
