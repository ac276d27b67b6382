import FoundationEssentials

/// An exact, validated BTC price. Built only from decimal text, so no binary floating point
/// ever rounds it.
public struct Price: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: Decimal
    /// Canonical exact text: no exponent, no trailing zeros (`114459.8`). Made once: a streamed
    /// trade is rendered several times (status, price reply, STATUS=) and Decimal's conversion
    /// is slow.
    public let description: String

    /// Anything at or above this is a broken feed, not a market.
    public static let absurdBound = Decimal(1_000_000_000_000)
    /// One hundred-millionth of a dollar: below this no BTC market has ever traded, so a smaller
    /// number is a broken feed (or a unit mix-up), not a price.
    public static let smallestPlausible = Decimal(sign: .plus, exponent: -8, significand: 1)
    /// `Decimal` keeps 38 significant digits; more would be silently rounded.
    static let maximumSignificantDigits = 38

    /// Parses a JSON-number-shaped literal (`68901.23`, `1.5e3`) exactly.
    public init(parsing text: some StringProtocol) throws(PriceError) {
        let literal = String(text)
        guard let digits = Price.significantDigitCount(ofLiteral: literal) else {
            throw .notANumber(literal)
        }
        guard digits <= Price.maximumSignificantDigits else { throw .tooPrecise(literal) }
        guard let value = Decimal(string: literal), value.isFinite else { throw .notANumber(literal) }
        guard value > 0 else { throw .notPositive(literal) }
        guard value < Price.absurdBound else { throw .absurd(literal) }
        guard value >= Price.smallestPlausible else { throw .implausiblySmall(literal) }
        self.value = value
        self.description = Price.canonicalText(ofLiteral: literal)
    }

    /// The mean of two valid prices, which is valid too.
    init(uncheckedMean a: Price, _ b: Price) {
        self.value = (a.value + b.value) / 2
        self.description = value.description
    }

    public static func < (lhs: Price, rhs: Price) -> Bool { lhs.value < rhs.value }
    public static func == (lhs: Price, rhs: Price) -> Bool { lhs.value == rhs.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// The text `Decimal.description` gives for a literal that passed `significantDigitCount`
    /// (no exponent, no leading or trailing zeros: `1.50e3` → `1500`), made from the literal's
    /// digits: a streamed trade pays for this on every message, and Decimal's conversion is slow.
    static func canonicalText(ofLiteral text: String) -> String {
        var digits: [UInt8] = [], exponent = 0, negative = false, inFraction = false
        var bytes = text.utf8[...]
        if bytes.first == UInt8(ascii: "-") { negative = true; bytes = bytes.dropFirst() }
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") { inFraction = true; continue }
            digits.append(byte)
            if inFraction { exponent -= 1 }
        }
        if !bytes.isEmpty { exponent += Int(String(decoding: bytes.dropFirst(), as: UTF8.self)) ?? 0 }
        let leading = digits.prefix { $0 == UInt8(ascii: "0") }.count
        digits.removeFirst(leading)
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        guard !digits.isEmpty else { return "0" }
        var result: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        let point = digits.count + exponent
        if exponent >= 0 {
            result += digits + Array(repeating: UInt8(ascii: "0"), count: exponent)
        } else if point > 0 {
            result += digits[..<point] + [UInt8(ascii: ".")] + digits[point...]
        } else {
            result += [UInt8(ascii: "0"), UInt8(ascii: ".")] + Array(repeating: UInt8(ascii: "0"), count: -point) + digits
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Checks the JSON number grammar strictly (Decimal(string:) accepts `1.5x`) and counts
    /// significant digits. Returns nil when the text is not a number literal.
    static func significantDigitCount(ofLiteral text: String) -> Int? {
        let bytes = Array(text.utf8)
        var index = 0
        func digitRun() -> ArraySlice<UInt8> {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return bytes[start..<index]
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integer = digitRun()
        guard !integer.isEmpty else { return nil }
        var fraction: ArraySlice<UInt8> = []
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fraction = digitRun()
            guard !fraction.isEmpty else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponent = digitRun()
            guard !exponent.isEmpty, exponent.count <= 4 else { return nil }
        }
        guard index == bytes.count else { return nil }
        let significant = (Array(integer) + Array(fraction)).drop { $0 == UInt8(ascii: "0") }
        let trimmed = significant.reversed().drop { $0 == UInt8(ascii: "0") }
        return max(trimmed.count, 1)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

public enum PriceError: Error, Hashable, Sendable, CustomStringConvertible {
    case notANumber(String)
    case tooPrecise(String)
    case notPositive(String)
    case absurd(String)
    case implausiblySmall(String)

    public var description: String {
        switch self {
        case .notANumber(let text): "price \(text.debugDescription.prefix(40)) is not a decimal number"
        case .tooPrecise(let text): "price \(text.prefix(40)) has more than \(Price.maximumSignificantDigits) significant digits"
        case .notPositive(let text): "price \(text) is not greater than zero"
        case .absurd(let text): "price \(text) is absurdly high"
        case .implausiblySmall(let text): "price \(text) is implausibly small (below 0.00000001)"
        }
    }
}
