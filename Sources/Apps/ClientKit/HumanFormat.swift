import WireProtocol

/// Formatting for people, done by hand: no Foundation, no ICU, no locale surprises.
public enum HumanFormat {
    /// `114459.8` → `114,459.80`. Works on the decimal text, so it stays exact.
    public static func groupedPrice(_ text: String) -> String {
        var integer = Substring(text)
        var fraction: Substring = ""
        if let dot = text.firstIndex(of: ".") {
            integer = text[..<dot]
            fraction = text[text.index(after: dot)...]
        }
        var negative = false
        if integer.first == "-" { negative = true; integer = integer.dropFirst() }
        var grouped = ""
        for (offset, digit) in integer.enumerated() {
            if offset > 0 && (integer.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        while fraction.count < 2 { fraction += "0" }
        return (negative ? "-" : "") + grouped + "." + fraction
    }

    /// `114460` → `114,460`.
    public static func groupedWhole(_ digits: String) -> String {
        String(groupedPrice(digits).dropLast(3))
    }

    /// The multi-line `btcctl status` report.
    public static func status(_ status: StatusMessage) -> String {
        guard let price = status.price else {
            var text = "BTC/\(status.currency)  NO DATA  (the daemon has no quote yet)\n"
            if let error = status.lastError { text += "last error: \(TerminalText.printable(error))\n" }
            return text
        }
        var text = "BTC/\(status.currency)  \(groupedPrice(price))"
        if status.state == .stale { text += "  STALE" }
        text += "\nsource:     \(status.source ?? "unknown") (\(status.symbol ?? "?"))\n"
        if let age = status.ageMilliseconds {
            text += "age:        \(AgeText.compact(milliseconds: age, spaced: true))"
            if let timestamp = status.timestamp { text += " (\(timestamp))" }
            text += "\n"
        }
        if let error = status.lastError { text += "last error: \(TerminalText.printable(error))\n" }
        return text
    }

    /// One `watch` line: `2026-11-21T16:00:00.123Z  114,459.80  binance  fresh`.
    public static func watchLine(_ status: StatusMessage) -> String {
        let price = status.price.map(groupedPrice) ?? "-"
        let marker = status.state == .fresh ? "fresh" : status.state == .stale ? "STALE" : "NO DATA"
        return "\(status.timestamp ?? "-")  \(price)  \(status.source ?? "-")  \(marker)"
    }
}
