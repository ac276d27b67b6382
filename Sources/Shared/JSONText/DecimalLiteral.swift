/// The one scanner of decimal text: a JSON number literal (RFC 8259,
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`). It finds where the parts are and counts
/// the significant digits without allocating, so the JSON parser, prices and their canonical
/// text all read the same grammar, and a streamed trade pays for one pass.
public struct DecimalLiteral: Sendable, Equatable {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notANumber, leadingZero, emptyFraction, emptyExponent

        public var description: String {
            switch self {
            case .notANumber: "invalid number"
            case .leadingZero: "leading zero in number"
            case .emptyFraction: "invalid number fraction"
            case .emptyExponent: "invalid number exponent"
            }
        }
    }

    public let isNegative: Bool
    /// Offsets of the integer digits and the fraction digits (empty without a point).
    public let integer: Range<Int>
    public let fraction: Range<Int>
    /// The written exponent (0 without one), saturated far beyond any price's, and its digit count.
    public let exponent: Int
    public let exponentDigits: Int
    /// One past the literal's last byte.
    public let end: Int
    /// Digits from the first to the last non-zero one; 0 for zero.
    public let significantDigits: Int
    /// Zeros after the last non-zero digit, up to the end of the fraction.
    public let trailingZeros: Int

    /// Scans the literal starting at `start`; it ends at the first byte that cannot continue it.
    public static func scan(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Result<DecimalLiteral, Problem> {
        var index = start
        func digitRun() -> Range<Int> {
            let from = index
            while index < bytes.count, bytes[index] &- 48 < 10 { index += 1 }
            return from..<index
        }
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let integer = digitRun()
        guard !integer.isEmpty else { return .failure(.notANumber) }
        guard integer.count == 1 || bytes[integer.lowerBound] != UInt8(ascii: "0") else { return .failure(.leadingZero) }
        var fraction = index..<index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fraction = digitRun()
            guard !fraction.isEmpty else { return .failure(.emptyFraction) }
        }
        var exponent = 0, exponentDigits = 0
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var sign = 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                if bytes[index] == UInt8(ascii: "-") { sign = -1 }
                index += 1
            }
            let run = digitRun()
            guard !run.isEmpty else { return .failure(.emptyExponent) }
            exponentDigits = run.count
            for offset in run { exponent = min(exponent * 10 + Int(bytes[offset] &- 48), 1_000_000) }
            exponent *= sign
        }
        // Significant digits span the integer and fraction runs, which may be apart by the point.
        var first: Int?, last: Int?
        for offset in integer where bytes[offset] != UInt8(ascii: "0") { first = first ?? offset; last = offset }
        for offset in fraction where bytes[offset] != UInt8(ascii: "0") { first = first ?? offset; last = offset }
        var significant = 0, trailingZeros = 0
        if let first, let last {
            significant = last - first + 1 - (first < integer.upperBound && last >= fraction.lowerBound && !fraction.isEmpty ? 1 : 0)
            trailingZeros = last < integer.upperBound ? (integer.upperBound - last - 1) + fraction.count : fraction.upperBound - last - 1
        }
        return .success(DecimalLiteral(isNegative: negative, integer: integer, fraction: fraction, exponent: exponent,
                                       exponentDigits: exponentDigits, end: index, significantDigits: significant, trailingZeros: trailingZeros))
    }

    /// Scans `text`, which must be one literal and nothing else.
    public static func scan(whole text: String) -> Result<DecimalLiteral, Problem> {
        var text = text
        return text.withUTF8 { bytes in
            scan(bytes, at: 0).flatMap { $0.end == bytes.count ? .success($0) : .failure(.notANumber) }
        }
    }

    /// value = significand × 10^`scale`, the significand being the significant digits.
    public var scale: Int { exponent - fraction.count + trailingZeros }

    /// How many digits the value has before the point (negative for 0.00…): 10^(order-1) ≤ |value| < 10^order.
    public var order: Int { significantDigits + scale }

    /// The significant digits as an integer, when they fit.
    public func significand(in bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard significantDigits <= 19 else { return nil }
        var value: UInt64 = 0, taken = 0
        for offset in integer.lowerBound..<fraction.upperBound where offset < integer.upperBound || offset >= fraction.lowerBound {
            let digit = bytes[offset] &- 48
            if value == 0 && digit == 0 { continue }
            guard taken < significantDigits else { break }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            let (sum, carry) = scaled.addingReportingOverflow(UInt64(digit))
            guard !carry else { return nil }
            value = sum
            taken += 1
        }
        return value
    }

    /// The text with no exponent, no leading zeros and no trailing zeros after the point:
    /// `1.50e3` → `1500`, `0.0500` → `0.05`, `-0` → `0`.
    public func canonicalText(in bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard significantDigits > 0 else { return "0" }
        var digits: [UInt8] = []
        digits.reserveCapacity(significantDigits + max(0, scale) + max(0, -order) + 3)
        if isNegative { digits.append(UInt8(ascii: "-")) }
        var written = 0, started = false
        let point = order
        if point <= 0 {
            digits.append(UInt8(ascii: "0"))
            digits.append(UInt8(ascii: "."))
            for _ in 0 ..< -point { digits.append(UInt8(ascii: "0")) }
        }
        for offset in integer.lowerBound..<fraction.upperBound where offset < integer.upperBound || offset >= fraction.lowerBound {
            let byte = bytes[offset]
            if !started && byte == UInt8(ascii: "0") { continue }
            guard written < significantDigits else { break }
            if started && written == point { digits.append(UInt8(ascii: ".")) }
            started = true
            digits.append(byte)
            written += 1
        }
        for _ in 0 ..< max(0, point - written) { digits.append(UInt8(ascii: "0")) }
        return String(decoding: digits, as: UTF8.self)
    }
}
