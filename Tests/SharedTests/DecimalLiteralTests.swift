import JSONText
import Testing
import WireProtocol

/// The one decimal-text grammar: what the scanner finds, and how its users read it.
@Suite("Decimal literals: one scanner for JSON numbers, prices and wire text")
struct DecimalLiteralTests {
    func scan(_ text: String) -> Result<DecimalLiteral, DecimalLiteral.Problem> { DecimalLiteral.scan(whole: text) }

    @Test("digits, scale and order", arguments: [
        ("114459.80", 7, -1, 6), ("1500", 2, 2, 4), ("0.05", 1, -2, -1), ("1.50e3", 2, 2, 4), ("-0.0", 0, 1, 1), ("100.001", 6, -3, 3),
    ])
    func shape(text: String, significant: Int, scale: Int, order: Int) throws {
        let literal = try scan(text).get()
        #expect(literal.significantDigits == significant, "\(text)")
        if significant > 0 {
            #expect(literal.scale == scale && literal.order == order, "\(text): scale \(literal.scale), order \(literal.order)")
        }
    }

    @Test("what is not a literal, and why", arguments: [
        ("", DecimalLiteral.Problem.notANumber), ("01", .leadingZero), ("1.", .emptyFraction), ("1e", .emptyExponent),
        (".5", .notANumber), ("1.5x", .notANumber), ("+1", .notANumber), ("1e+", .emptyExponent),
    ])
    func problems(text: String, problem: DecimalLiteral.Problem) {
        #expect(throws: problem) { try scan(text).get() }
    }

    @Test func theWireAndTheClientReadTheSameGrammar() {
        #expect(DecimalText.parts("114459.80").map { "\($0.integer)|\($0.fraction)" } == "114459|80")
        #expect(DecimalText.parts("7").map { "\($0.integer)|\($0.fraction)" } == "7|")
        for text in ["-1.5", "1e3", "1.", "01.5", " 1"] {
            #expect(DecimalText.parts(text) == nil, "\(text)")
            if text != "-1.5" { #expect(FixedDecimal(text) == nil, "\(text)") }
        }
        #expect(FixedDecimal("-1.27")?.units == -1_270_000_000_000_000_000)
        #expect(FixedDecimal("1" + String(repeating: "0", count: 18)) == nil, "19 integer digits do not fit")
    }
}
