import WireProtocol

/// `--format` templates: `{price}`, `{price_short}` and friends, expanded from a status.
public enum Template {
    public static let placeholders = ["price", "price_rounded", "price_grouped", "price_short", "price_money", "currency", "currency_symbol", "symbol",
                                      "source", "age", "timestamp", "state", "stale",
                                      "change_1h", "change_24h", "change_7d", "arrow", "spark", "sats"]

    /// Whether rendering needs the 24 h history (only `{spark}` does; the rest is in the status).
    static func needsHistory(_ template: String) -> Bool { template.contains("{spark}") }

    /// Checks a template once, at argument parsing, so a typo is a usage error, not odd output.
    static func validate(_ template: String) throws(CtlUsageError) {
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw CtlUsageError(message: "--format: unclosed { in \"\(template)\"")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard placeholders.contains(name) else {
                throw CtlUsageError(message: "--format: unknown placeholder {\(name)}; known: \(placeholders.map { "{\($0)}" }.joined(separator: " "))")
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// `spark` is the 8-cell sparkline of the last 24 h, when the template asks for it.
    public static func render(_ template: String, _ status: StatusMessage, spark: String = "") -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            out += name == "spark" ? spark : value(of: name, status)
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    static func value(of name: String, _ status: StatusMessage) -> String {
        let price = status.price ?? ""
        switch name {
        case "price": return price
        case "price_rounded": return status.price.map { DecimalText.rounded($0, places: 0) } ?? ""
        case "price_grouped": return status.price.map(HumanFormat.groupedPrice) ?? ""
        case "price_short": return status.price.map(DecimalText.short) ?? ""
        case "price_money": return status.price.map { HumanFormat.money($0, currency: status.currency) } ?? ""
        case "currency": return status.currency
        case "currency_symbol": return Currency(code: status.currency)?.symbol ?? ""
        case "symbol": return status.symbol ?? ""
        case "source": return status.source ?? ""
        case "age": return status.ageMilliseconds.map { AgeText.compact(milliseconds: $0, spaced: true) } ?? ""
        case "timestamp": return status.timestamp ?? ""
        case "state": return status.state.rawValue
        case "stale": return status.state == .fresh ? "" : "?"
        case "change_1h": return status.trend.change1h ?? ""
        case "change_24h": return status.trend.change24h ?? ""
        case "change_7d": return status.trend.change7d ?? ""
        case "arrow": return Direction(status).arrow
        case "sats": return status.satsPerUnit ?? ""
        default: return "{\(name)}"
        }
    }
}
