import PriceCore
import WireProtocol

/// The one-line STATUS= text for `systemctl status`, e.g.
/// `BTC/USD 114459.80 via <venue> (BTCUSDT), 0.4s old` or `STALE 42s: <venue>: HTTP 451 (geo-restricted)`.
public enum StatusSummary {
    /// The kind alone, without rendering the text: what a trade on the hot path needs.
    public static func kind(quote: Quote?, freshness: Freshness, failures: String?) -> StatusKind {
        guard quote != nil else { return failures == nil ? .waiting : .failing }
        return freshness.ageMilliseconds == nil || freshness.state == .stale ? .stale : .fresh
    }

    public static func status(quote: Quote?, freshness: Freshness, failures: String?) -> DaemonStatus {
        guard let quote else {
            return DaemonStatus(kind: failures == nil ? .waiting : .failing, text: "waiting for first quote" + (failures.map { "; \($0)" } ?? ""))
        }
        let last = "; last BTC/\(quote.currency) \(twoDecimals(quote.price)) via \(quote.source)"
        guard let age = freshness.ageMilliseconds else {
            return DaemonStatus(kind: .stale, text: "STALE, age unknown: " + (failures ?? "no new quote") + last)
        }
        if freshness.state == .stale {
            return DaemonStatus(kind: .stale, text: "STALE \(AgeText.compact(milliseconds: age)): " + (failures ?? "no new quote") + last)
        }
        return DaemonStatus(kind: .fresh, text: "BTC/\(quote.currency) \(twoDecimals(quote.price)) via \(quote.source) (\(quote.symbol)), \(AgeText.compact(milliseconds: age)) old")
    }

    /// At least two decimals, never fewer than the price has: `114459.8` → `114459.80`.
    public static func twoDecimals(_ price: Price) -> String {
        let text = price.description
        guard let dot = text.firstIndex(of: ".") else { return text + ".00" }
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        return decimals >= 2 ? text : text + String(repeating: "0", count: 2 - decimals)
    }
}
