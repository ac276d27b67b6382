import WireProtocol

/// Formatting for people, done by hand: no Foundation, no ICU, no locale surprises.
public enum HumanFormat {
    /// `114459.8` → `114,459.80` (MoneyText, shared with the daemon's dashboard).
    public static func groupedPrice(_ text: String) -> String { MoneyText.grouped(text) }

    /// `114460` → `114,460`.
    public static func groupedWhole(_ digits: String) -> String { MoneyText.groupedWhole(digits) }

    /// `€97,123.45`, `¥15,234,567`; USDT keeps every digit and gets no symbol (MoneyText).
    public static func money(_ text: String, currency code: String) -> String { MoneyText.money(text, currency: code) }

    /// A price in whole units with its currency's symbol, as bars show it: `$114,460`,
    /// `€97,123`; a quote asset that is not an ISO currency (USDT) gets no symbol.
    static func wholeMoney(_ text: String, currency code: String) -> String {
        (Currency(code: code)?.symbol ?? "") + groupedWhole(DecimalText.rounded(text, places: 0))
    }

    /// The symbol bars and prompts put before a price: none for dollars (`₿ 114,460` as ever),
    /// the currency's own otherwise (`₿ €97,123`).
    static func barSymbol(_ code: String) -> String {
        code == "USD" || code == "USDT" ? "" : Currency(code: code)?.symbol ?? ""
    }

    /// `1h +0.10%  24h ▲ +1.27%  7d -3.40%`, the known ones; nil when none is known yet. On a
    /// terminal with `color`, the 24 h figure is green when up and red when down.
    static func changes(_ status: StatusMessage, color: Bool = false) -> String? {
        let trend = status.trend
        var parts: [String] = []
        if let hour = trend.change1h { parts.append("1h \(signed(hour))%") }
        if let day = trend.change24h {
            let direction = Direction(status)
            var text = "24h " + (direction.arrow.isEmpty ? "" : direction.arrow + " ") + signed(day) + "%"
            if color, direction != .flat { text = (direction == .up ? "\u{1B}[32m" : "\u{1B}[31m") + text + "\u{1B}[0m" }
            parts.append(text)
        }
        if let week = trend.change7d { parts.append("7d \(signed(week))%") }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
    }

    /// `1.27` → `+1.27`; `-0.40` and `0.00` stay as they are.
    static func signed(_ percent: String) -> String {
        DecimalText.sign(percent) == 1 ? "+" + percent : percent
    }

    /// The multi-line `btcctl status` report; `color` for a terminal that wants it.
    public static func status(_ status: StatusMessage, color: Bool = false, unit: PriceUnit = .fiat) -> String {
        guard let price = status.price else {
            var text = "BTC/\(status.currency)  NO DATA  (the daemon has no quote yet)\n"
            if let error = status.lastError { text += "last error: \(TerminalText.printable(error))\n" }
            return text
        }
        let shown = unit == .sats ? PriceUnit.satsText(status) ?? price : money(price, currency: status.currency)
        var text = "BTC/\(status.currency)  \(shown)"
        if status.state == .stale { text += "  STALE" }
        text += "\nsource:     \(status.source ?? "unknown") (\(status.symbol ?? "?"))\n"
        if let age = status.ageMilliseconds {
            text += "age:        \(AgeText.compact(milliseconds: age, spaced: true))"
            if let timestamp = status.timestamp { text += " (\(timestamp))" }
            text += "\n"
        }
        if let changes = changes(status, color: color) { text += "change:     \(changes)\n" }
        if let low = status.trend.low24h, let high = status.trend.high24h {
            // Whose figures the change and range are, as `chart` (always recorded) may differ.
            let from = status.trend.dayFrom.map { "  (\(TerminalText.printable($0)))" } ?? ""
            text += "24h range:  \(money(low, currency: status.currency)) – \(money(high, currency: status.currency))\(from)\n"
        }
        if let error = status.lastError { text += "last error: \(TerminalText.printable(error))\n" }
        return text
    }

    /// One `watch` line: `2026-11-21T16:00:00.123Z  BTC/USDT   114,459.80  binance        fresh`.
    /// The pair, the price and the venue keep their columns when the source (and with it the
    /// quote asset) changes.
    public static func watchLine(_ status: StatusMessage, unit: PriceUnit = .fiat) -> String {
        let price = (unit == .sats ? PriceUnit.satsText(status) : status.price.map { money($0, currency: status.currency) }) ?? "-"
        let marker = status.state == .fresh ? "fresh" : status.state == .stale ? "STALE" : "NO DATA"
        let timestamp = status.timestamp ?? "-"
        return "\(padded(timestamp, 24))  \(padded("BTC/" + status.currency, 8))  \(padded(price, 12, right: true))  "
            + "\(padded(status.source ?? "-", 13))  \(marker)"
    }

    /// `text` filled with spaces to `width` characters (on the left with `right`).
    static func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
