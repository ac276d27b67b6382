import WireProtocol

/// Decimal text as an exact fixed-point number (18 places in an Int128): enough to compare
/// prices with thresholds and to scale a sparkline without Double or Foundation.
struct FixedDecimal: Comparable {
    static let places = 18
    static let unit: Int128 = { var value: Int128 = 1; for _ in 0..<places { value *= 10 }; return value }()

    let units: Int128

    init(units: Int128) { self.units = units }

    /// `114459.8`, `-1.27`, `80000`: at most 18 places and 18 integer digits; nil otherwise.
    init?(_ text: some StringProtocol) {
        let negative = text.first == "-"
        guard let (integer, fraction) = DecimalText.parts(String(negative ? text.dropFirst() : text[...])),
              integer.count <= 18, fraction.count <= Self.places else { return nil }
        var value: Int128 = 0
        for digit in integer.utf8 { value = value * 10 + Int128(digit - 48) }
        for index in 0..<Self.places {
            let digit = index < fraction.count ? Int128(fraction.utf8[fraction.utf8.index(fraction.utf8.startIndex, offsetBy: index)] - 48) : 0
            value = value * 10 + digit
        }
        units = negative ? -value : value
    }

    static func < (lhs: FixedDecimal, rhs: FixedDecimal) -> Bool { lhs.units < rhs.units }

    /// (to − from) ÷ from in hundredths of a percent, rounded half away from zero.
    static func basisPoints(from: FixedDecimal, to: FixedDecimal) -> Int128? {
        guard from.units > 0 else { return nil }
        let scaled = (to.units - from.units) * 10_000
        let rounded = (abs(scaled) * 2 + from.units) / (from.units * 2)
        return scaled < 0 ? -rounded : rounded
    }

    /// Hundredths of a percent as `+1.27%`, `-0.40%`, `0.00%`.
    static func percentText(basisPoints: Int128) -> String {
        let magnitude = abs(basisPoints)
        let cents = String(magnitude % 100)
        let body = "\(magnitude / 100)." + (cents.count == 1 ? "0" + cents : cents) + "%"
        return basisPoints > 0 ? "+" + body : basisPoints < 0 ? "-" + body : body
    }
}
