/// Sats per unit of a currency ("Moscow time"): 100,000,000 ÷ the price, exactly.
public enum SatsText {
    /// Whole sats, half to even, while there are 100 or more (874 at $114,459.80); below that,
    /// the decimals that give 3 significant digits (5.88 sats a yen, 0.0370 a dong), since a
    /// whole number there would be off by up to 10 %. Nil for a price that is not positive
    /// decimal text.
    public static func perUnit(price: String) -> String? {
        // A first quotient to 40 places tells the magnitude: its digits beyond the 40 are
        // the whole part. Three significant digits need 43 − digits places (none from 100 up).
        guard let price = ExactDecimal(price), !price.isZero,
              let probe = ExactDecimal.hundredMillion.divided(by: price, places: 40) else { return nil }
        guard !probe.isZero else { return "0" }
        let places = max(0, 43 - probe.digits.count)
        return ExactDecimal.hundredMillion.divided(by: price, places: places)?.text
    }

    /// `sats/$`, `sats/€`, `sats/CHF`, `sats/USDT`: what the figure counts.
    public static func perUnitLabel(currency code: String) -> String {
        let symbol = Currency(code: code)?.symbol ?? code
        return "sats/" + (symbol.hasSuffix(" ") ? String(symbol.dropLast()) : symbol)
    }
}
