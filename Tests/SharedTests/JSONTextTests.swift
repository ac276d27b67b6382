import JSONText
import Testing

@Suite("JSONText keeps numbers as text and rejects bad documents")
struct JSONTextTests {
    @Test func numbersKeepTheirLiteralText() throws {
        let json = try JSONValue(parsing: #"{"USD":114459.8,"tiny":0.00000001,"big":999999999999.99999999,"e":1.5E+3}"#)
        #expect(json["USD"]?.numberLiteral == "114459.8")
        #expect(json["tiny"]?.numberLiteral == "0.00000001")
        #expect(json["big"]?.numberLiteral == "999999999999.99999999")
        #expect(json["e"]?.numberLiteral == "1.5E+3")
    }

    @Test func stringsUnescape() throws {
        let json = try JSONValue(parsing: #"["a\"b\\c\/d\n", "\u00e9\ud83d\ude00", "plain ü"]"#)
        #expect(json == .array([.string("a\"b\\c/d\n"), .string("é😀"), .string("plain ü")]))
    }

    @Test func encodingRoundTrips() throws {
        let value = JSONValue.object(["s": .string("line\nbreak \"quoted\" \u{01}"), "n": .number("68901.23"),
                                      "b": .bool(false), "z": .null, "a": .array([.number("1"), .object([:])])])
        #expect(!value.encoded.contains("\n"))
        #expect(try JSONValue(parsing: value.encoded) == value)
    }

    @Test("malformed documents are errors, not crashes", arguments: [
        "", "{", "}", "[1,]", "{\"a\":}", "{\"a\" 1}", "01", "1.", "-", "tru", "\"unterminated", "\"\\x\"",
        "\"\\ud800\"", "{\"a\":1,\"a\":2}", "[1] [2]", "\u{01}", "\"tab\tinside\"", "NaN",
    ])
    func rejectsMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }
}
