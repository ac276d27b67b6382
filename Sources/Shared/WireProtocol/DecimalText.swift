import JSONText

/// Rounding and abbreviating exact decimal text, for the wire, bars and prompts. Works on the
/// digits themselves: no Double, no Foundation.
public enum DecimalText {
    /// Splits `114459.8` into ("114459", "8"); nil for anything that is not plain, unsigned
    /// decimal text (the shared DecimalLiteral grammar, without a sign or an exponent).
    public static func parts(_ text: String) -> (integer: Substring, fraction: Substring)? {
        guard case .success(let literal) = DecimalLiteral.scan(whole: text), !literal.isNegative, literal.exponentDigits == 0 else { return nil }
        let utf8 = text.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        return (text[index(literal.integer.lowerBound)..<index(literal.integer.upperBound)],
                text[index(literal.fraction.lowerBound)..<index(literal.fraction.upperBound)])
    }

    /// Rounds half up to `places` decimals: `114459.85`, 1 → `114459.9`; 0 → `114460`.
    public static func rounded(_ text: String, places: Int) -> String {
        guard let (integer, fraction) = parts(text) else { return text }
        var digits = Array(integer) + Array(fraction.prefix(places))
        digits += Array(repeating: "0", count: max(0, places - fraction.count))
        if let next = fraction.dropFirst(places).first, next >= "5" {
            var index = digits.count - 1
            while index >= 0 {
                if digits[index] == "9" {
                    digits[index] = "0"
                    index -= 1
                } else {
                    digits[index] = Character(UnicodeScalar(digits[index].asciiValue! + 1))
                    break
                }
            }
            if index < 0 { digits.insert("1", at: 0) }
        }
        let integerCount = digits.count - places
        let whole = String(digits[..<integerCount])
        return places == 0 ? whole : whole + "." + String(digits[integerCount...])
    }

    /// Rounds half to even to `places` decimals, the rule of mempool's and banks' whole
    /// units: `114459.5` → `114460`, `114458.5` → `114458`, `114458.51` → `114459`.
    public static func roundedHalfEven(_ text: String, places: Int) -> String {
        guard let (integer, fraction) = parts(text) else { return text }
        let dropped = fraction.dropFirst(places)
        guard let first = dropped.first else { return rounded(text, places: places) }
        let exactlyHalf = first == "5" && dropped.dropFirst().allSatisfy { $0 == "0" }
        guard exactlyHalf else { return rounded(text, places: places) }
        // Exactly half: down to the kept digits when the last of them is even, else up.
        let kept = String(integer) + fraction.prefix(places)
        let lastKept = kept.last.flatMap(\.asciiValue).map { $0 - 48 } ?? 0
        let truncated = String(integer) + (places == 0 ? "" : "." + fraction.prefix(places))
        return lastKept % 2 == 0 ? truncated : rounded(text, places: places)
    }

    /// `114459.8` → `114.5k`, `1234567` → `1.2M`, `950` → `950`.
    public static func short(_ text: String) -> String {
        guard let (integer, _) = parts(text) else { return text }
        let trimmed = integer.drop { $0 == "0" }
        let (divisorDigits, suffix): (Int, String) = trimmed.count > 9 ? (9, "B") : trimmed.count > 6 ? (6, "M") : trimmed.count > 3 ? (3, "k") : (0, "")
        guard divisorDigits > 0 else { return rounded(text, places: 0) }
        let head = String(trimmed.dropLast(divisorDigits))
        let tail = String(trimmed.suffix(divisorDigits))
        let value = rounded(head + "." + tail, places: 1)
        // 999.95k rounds to 1000.0k: say 1M instead.
        if value.hasPrefix("1000"), let bigger = ["k": "M", "M": "B"][suffix] { return "1" + bigger }
        return (value.hasSuffix(".0") ? String(value.dropLast(2)) : value) + suffix
    }

    /// A percentage on the wire: two places, half away from zero (`-1.265` → `-1.27`), and no
    /// negative zero (`-0.004` → `0.00`). Nil for anything that is not plain decimal text.
    public static func percent(_ text: String) -> String? {
        let negative = text.hasPrefix("-")
        let magnitude = negative ? String(text.dropFirst()) : text
        guard parts(magnitude) != nil else { return nil }
        let rounded = rounded(magnitude, places: 2)
        return negative && rounded.contains(where: { $0 != "0" && $0 != "." }) ? "-" + rounded : rounded
    }

    /// The sign of decimal text: -1, 0 or 1 (nil when it is not decimal text).
    public static func sign(_ text: String) -> Int? {
        let negative = text.hasPrefix("-")
        let magnitude = negative || text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard parts(magnitude) != nil else { return nil }
        guard magnitude.contains(where: { $0 != "0" && $0 != "." }) else { return 0 }
        return negative ? -1 : 1
    }
}

extension Character {
    public var isASCIIDigit: Bool { asciiValue.map { $0 >= 48 && $0 <= 57 } ?? false }
}
