/// What kind of news a STATUS= line carries; the throttle lets a change of kind through at once.
public enum StatusKind: String, Sendable, Hashable {
    /// A quote younger than the stale limit.
    case fresh
    /// No quote yet, and nothing has failed yet (start-up).
    case waiting
    /// No quote yet, and the sources are failing.
    case failing
    /// A quote older than the stale limit, or of unknown age.
    case stale
}

/// One STATUS= line and its kind.
public struct DaemonStatus: Sendable, Hashable {
    public let kind: StatusKind
    public let text: String

    public init(kind: StatusKind, text: String) {
        self.kind = kind
        self.text = text
    }
}

/// The one-line STATUS= text for `systemctl status`, e.g.
/// `BTC/USD 114459.80 via binance (BTCUSDT), 0.4s old` or `STALE 42s: binance: HTTP 451 (geo-restricted)`.
public enum StatusSummary {
    public static func status(quote: Quote?, freshness: Freshness, failures: String?) -> DaemonStatus {
        guard let quote else {
            return DaemonStatus(kind: failures == nil ? .waiting : .failing, text: "waiting for first quote" + (failures.map { "; \($0)" } ?? ""))
        }
        let last = "; last BTC/\(quote.currency) \(twoDecimals(quote.price)) via \(quote.source)"
        guard let age = freshness.ageMilliseconds else {
            return DaemonStatus(kind: .stale, text: "STALE, age unknown: " + (failures ?? "no new quote") + last)
        }
        if freshness.state == .stale {
            return DaemonStatus(kind: .stale, text: "STALE \(compactAge(age)): " + (failures ?? "no new quote") + last)
        }
        return DaemonStatus(kind: .fresh, text: "BTC/\(quote.currency) \(twoDecimals(quote.price)) via \(quote.source) (\(quote.symbol)), \(compactAge(age)) old")
    }

    /// At least two decimals, never fewer than the price has: `114459.8` → `114459.80`.
    static func twoDecimals(_ price: Price) -> String {
        let text = price.description
        guard let dot = text.firstIndex(of: ".") else { return text + ".00" }
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        return decimals >= 2 ? text : text + String(repeating: "0", count: 2 - decimals)
    }

    /// `0.4s`, `42s`, `3m12s`, `2h05m`.
    public static func compactAge(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        if seconds < 10 { return "\(seconds).\(milliseconds % 1000 / 100)s" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)s" }
        return "\(seconds / 3600)h\(seconds / 60 % 60 < 10 ? "0" : "")\(seconds / 60 % 60)m"
    }
}
