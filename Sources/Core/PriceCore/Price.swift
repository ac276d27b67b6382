import FoundationEssentials
import JSONText

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

    /// Parses a JSON number literal (`68901.23`, `1.5e3`) exactly, in one pass of the shared
    /// scanner: a streamed trade pays for this on every message, and Decimal's own parsing is slow.
    public init(parsing text: some StringProtocol) throws(PriceError) {
        let text = String(text)
        var contiguous = text
        let parsed: Result<(Decimal, String), PriceError> = contiguous.withUTF8 { bytes in
            guard case .success(let scanned) = DecimalLiteral.scan(bytes, at: 0), scanned.end == bytes.count,
                  scanned.exponentDigits <= 4 else {
                return .failure(.notANumber(text))
            }
            guard scanned.significantDigits <= Price.maximumSignificantDigits else { return .failure(.tooPrecise(text)) }
            guard scanned.significantDigits > 0, !scanned.isNegative else { return .failure(.notPositive(text)) }
            // 10^(order-1) <= value < 10^order: the bounds are 10^12 and 10^-8.
            guard scanned.order <= 12 else { return .failure(.absurd(text)) }
            guard scanned.order > -8 else { return .failure(.implausiblySmall(text)) }
            let value: Decimal
            if let significand = scanned.significand(in: bytes) {
                value = Decimal(sign: .plus, exponent: scanned.scale, significand: Decimal(significand))
            } else {
                guard let parsed = Decimal(string: text), parsed.isFinite else { return .failure(.notANumber(text)) }
                value = parsed
            }
            return .success((value, scanned.canonicalText(in: bytes)))
        }
        (value, description) = try parsed.get()
    }

    /// The mean of two valid prices, which is valid too.
    init(uncheckedMean a: Price, _ b: Price) {
        self.value = (a.value + b.value) / 2
        self.description = value.description
    }

    public static func < (lhs: Price, rhs: Price) -> Bool { lhs.value < rhs.value }
    public static func == (lhs: Price, rhs: Price) -> Bool { lhs.value == rhs.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

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
