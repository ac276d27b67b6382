/// Money as people read it, done by hand on the decimal text so it stays exact: no Foundation,
/// no ICU, no locale surprises. btcctl and the daemon's dashboard write prices alike.
public enum MoneyText {
    /// `114459.8` → `114,459.80`: every digit kept, at least two places.
    public static func grouped(_ text: String) -> String {
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
        String(grouped(digits).dropLast(3))
    }

    /// A price as people read it in its currency: `€97,123.45`, `¥15,234,567`, rounded half up
    /// to the currency's minor units. A quote asset that is not an ISO currency (a stablecoin such as
    /// USDT) keeps every digit and gets no symbol.
    public static func money(_ text: String, currency code: String) -> String {
        guard let currency = Currency(code: code) else { return grouped(text) }
        let rounded = DecimalText.rounded(text, places: currency.minorUnits)
        return currency.symbol + (currency.minorUnits == 0 ? groupedWhole(rounded) : grouped(rounded))
    }
}
