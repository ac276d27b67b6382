/// An unsigned decimal of any size, exact: its digits and how many of them are fraction.
/// Conversions multiply and divide money (0.05 BTC × ¥17,000,000, 100,000,000 ÷ a price), where
/// 18 places in an Int128 (FixedDecimal) would overflow; prices stay text, never a Double.
public struct ExactDecimal: Equatable, Sendable {
    /// Most significant first, each 0...9, no leading zeros (zero is empty).
    var digits: [UInt8]
    /// How many of the last digits are the fraction: the value is digits × 10^-scale.
    var scale: Int

    /// The most digits a value read from text may have: a price or an amount, with room to spare.
    public static let maximumDigits = 60

    init(digits: [UInt8], scale: Int) {
        self.digits = Array(digits.drop { $0 == 0 })
        self.scale = scale
    }

    /// `0.05`, `21000`, `114459.80`: plain unsigned decimal text (no sign, no exponent), at
    /// most `maximumDigits` digits; nil otherwise.
    public init?(_ text: String) {
        guard let (integer, fraction) = DecimalText.parts(text), integer.count + fraction.count <= Self.maximumDigits else { return nil }
        self.init(digits: (integer + fraction).utf8.map { $0 &- 48 }, scale: fraction.count)
    }

    public static let hundredMillion = ExactDecimal(digits: [1, 0, 0, 0, 0, 0, 0, 0, 0], scale: 0)

    public var isZero: Bool { digits.isEmpty }

    /// The exact product.
    public func multiplied(by other: ExactDecimal) -> ExactDecimal {
        guard !isZero, !other.isZero else { return ExactDecimal(digits: [], scale: scale + other.scale) }
        var product = [Int](repeating: 0, count: digits.count + other.digits.count)
        for (i, a) in digits.reversed().enumerated() {
            for (j, b) in other.digits.reversed().enumerated() { product[i + j] += Int(a) * Int(b) }
        }
        var carry = 0
        for index in product.indices {
            let sum = product[index] + carry
            product[index] = sum % 10
            carry = sum / 10
        }
        return ExactDecimal(digits: product.reversed().map { UInt8($0) }, scale: scale + other.scale)
    }

    /// self ÷ divisor with `places` decimals, rounded half to even; nil when dividing by zero.
    public func divided(by divisor: ExactDecimal, places: Int) -> ExactDecimal? {
        guard !divisor.isZero else { return nil }
        // self × 10^places ÷ divisor, both made whole: numerator = digits × 10^(divisor.scale −
        // scale + places), or the denominator scaled when that exponent is negative.
        let shift = divisor.scale - scale + places
        let numerator = digits + [UInt8](repeating: 0, count: max(0, shift))
        let denominator = divisor.digits + [UInt8](repeating: 0, count: max(0, -shift))
        let (whole, remainder) = Self.longDivision(numerator, by: denominator)
        let order = Self.compare(Self.add(remainder, remainder), denominator)
        let roundsUp = order > 0 || (order == 0 && (whole.last ?? 0) % 2 == 1)
        return ExactDecimal(digits: roundsUp ? Self.increment(whole) : whole, scale: places)
    }

    /// Rounded half to even to `places` decimals (never adds places it does not have).
    public func rounded(places: Int) -> ExactDecimal {
        guard scale > places else { return self }
        return divided(by: ExactDecimal(digits: [1], scale: 0), places: places) ?? self
    }

    /// Plain text with exactly `scale` decimals: `0.05000000`, `874`, `0.0370`.
    public var text: String {
        var padded = digits
        if padded.count <= scale { padded = [UInt8](repeating: 0, count: scale - padded.count + 1) + padded }
        let integer = padded.prefix(padded.count - scale), fraction = padded.suffix(scale)
        var text = String(decoding: integer.map { $0 + 48 }, as: UTF8.self)
        if scale > 0 { text += "." + String(decoding: fraction.map { $0 + 48 }, as: UTF8.self) }
        return text
    }

    /// The same value with at least `places` decimals: `0.05` → `0.05000000`.
    public func padded(toPlaces places: Int) -> ExactDecimal {
        guard scale < places else { return self }
        return ExactDecimal(digits: digits + [UInt8](repeating: 0, count: places - scale), scale: places)
    }

    /// The shortest plain text of the same value: `0.05`, `21000`, `114459.8`.
    public var trimmedText: String {
        var trimmed = self
        while trimmed.scale > 0, trimmed.digits.last == 0 {
            trimmed.digits.removeLast()
            trimmed.scale -= 1
        }
        return trimmed.text
    }

    // Whole numbers as digit arrays, most significant first, without leading zeros.

    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var sum: [UInt8] = []
        var carry: UInt8 = 0
        var i = a.count - 1, j = b.count - 1
        while i >= 0 || j >= 0 || carry > 0 {
            let digit = (i >= 0 ? a[i] : 0) + (j >= 0 ? b[j] : 0) + carry
            sum.append(digit % 10)
            carry = digit / 10
            i -= 1
            j -= 1
        }
        return Array(sum.reversed().drop { $0 == 0 })
    }

    static func increment(_ a: [UInt8]) -> [UInt8] { add(a, [1]) }

    /// a − b for a ≥ b.
    static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var difference = a
        var borrow: Int = 0
        var j = b.count - 1
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            var digit = Int(a[i]) - borrow - (j >= 0 ? Int(b[j]) : 0)
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            difference[i] = UInt8(digit)
            j -= 1
        }
        return Array(difference.drop { $0 == 0 })
    }

    /// Schoolbook long division, one decimal digit at a time: the quotient and the remainder.
    static func longDivision(_ numerator: [UInt8], by denominator: [UInt8]) -> (quotient: [UInt8], remainder: [UInt8]) {
        var quotient: [UInt8] = [], remainder: [UInt8] = []
        for digit in numerator {
            remainder.append(digit)
            remainder = Array(remainder.drop { $0 == 0 })
            var count: UInt8 = 0
            while compare(remainder, denominator) >= 0 {
                remainder = subtract(remainder, denominator)
                count += 1
            }
            quotient.append(count)
        }
        return (Array(quotient.drop { $0 == 0 }), remainder)
    }
}
