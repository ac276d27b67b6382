import JSONText

/// Decimal text as an exact fixed-point number (18 places in an Int128): enough to compare
/// prices with thresholds, to scale a sparkline and to work out a percent change, exactly and
/// without Double or Foundation.
public struct FixedDecimal: Comparable, Sendable {
    static let places = 18
    static let unit: Int128 = { var value: Int128 = 1; for _ in 0..<places { value *= 10 }; return value }()

    public let units: Int128

    public init(units: Int128) { self.units = units }

    /// `114459.8`, `-1.27`, `80000`: decimal text (the shared DecimalLiteral grammar, without
    /// an exponent) with at most 18 places and 18 integer digits; nil otherwise.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        let units: Int128? = text.withUTF8 { bytes in
            guard case .success(let literal) = DecimalLiteral.scan(bytes, at: 0), literal.end == bytes.count, literal.exponentDigits == 0,
                  literal.integer.count <= 18, literal.fraction.count <= Self.places else { return nil }
            var value: Int128 = 0
            for offset in literal.integer { value = value * 10 + Int128(bytes[offset] &- 48) }
            for offset in literal.fraction { value = value * 10 + Int128(bytes[offset] &- 48) }
            for _ in literal.fraction.count..<Self.places { value *= 10 }
            return literal.isNegative ? -value : value
        }
        guard let units else { return nil }
        self.units = units
    }

    /// Plain decimal text without trailing zeros: `119400`, `80400.5`, `-1.27`.
    public var text: String {
        let magnitude = units.magnitude, unit = UInt128(Self.unit)
        var fraction = String(magnitude % unit)
        fraction = String(repeating: "0", count: Self.places - fraction.count) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        return (units < 0 ? "-" : "") + String(magnitude / unit) + (fraction.isEmpty ? "" : "." + fraction)
    }

    public static func < (lhs: FixedDecimal, rhs: FixedDecimal) -> Bool { lhs.units < rhs.units }

    /// (to − from) × 100 ÷ from in hundredths of a percent, rounded half away from zero, exactly
    /// (the rule of docs/PROTOCOL.md); nil when `from` is not positive or the figures are too
    /// large to work out in 128 bits.
    public static func basisPoints(from: FixedDecimal, to: FixedDecimal) -> Int128? {
        guard from.units > 0 else { return nil }
        // Twice the quotient, truncated, then halved rounding up: half away from zero.
        let (difference, overflowA) = to.units.subtractingReportingOverflow(from.units)
        let (scaled, overflowB) = difference.multipliedReportingOverflow(by: 20_000)
        guard !overflowA, !overflowB, scaled != .min else { return nil }
        let rounded = (abs(scaled) / from.units + 1) / 2
        return scaled < 0 ? -rounded : rounded
    }

    /// Hundredths of a percent as `+1.27%`, `-0.40%`, `0.00%`.
    public static func percentText(basisPoints: Int128) -> String {
        let body = wirePercent(basisPoints: abs(basisPoints)) + "%"
        return basisPoints > 0 ? "+" + body : basisPoints < 0 ? "-" + body : body
    }

    /// Hundredths of a percent as the wire writes a change: `1.27`, `-0.40`, `0.00`.
    public static func wirePercent(basisPoints: Int128) -> String {
        let magnitude = abs(basisPoints)
        let cents = String(magnitude % 100)
        let body = "\(magnitude / 100)." + (cents.count == 1 ? "0" + cents : cents)
        return basisPoints < 0 ? "-" + body : body
    }
}
