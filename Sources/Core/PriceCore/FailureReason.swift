/// A closed, small set of why a fetch failed: what metrics and alerts group by.
public enum FailureReason: String, Sendable, CaseIterable {
    case timeout, http, rateLimited = "rate_limited", geoRestricted = "geo_restricted", invalid, transport
}

extension FetchFailure {
    public var reason: FailureReason {
        switch self {
        case .timeout: .timeout
        case .proxy(let trouble): trouble.isTimeout ? .timeout : .transport
        case .transport: .transport
        case .httpStatus, .exchangeError, .unauthorized, .htmlPage, .newCircuit: .http
        case .rateLimited: .rateLimited
        case .geoRestricted: .geoRestricted
        case .bodyTooLarge, .notJSON, .missingField, .wrongSymbol, .invalidPrice, .staleAnswer: .invalid
        // Counted apart (btcpriced_unconfirmed_prices_total, btcpriced_rejected_prices_total).
        case .unconfirmedPrice, .implausiblePrice: .invalid
        }
    }
}
