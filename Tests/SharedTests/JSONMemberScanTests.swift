import JSONText
import Testing

/// The allocation-free member scan: it reports what the full parser would read, and never
/// accepts a text the full parser refuses.
@Suite("JSONMemberScan agrees with the full parser")
struct JSONMemberScanTests {
    /// The scan's members as (depth, name, value text, kind), or nil when it gave up.
    func members(_ text: String) -> [(Int, String, String, JSONMemberScan.Kind)]? {
        let bytes = Array(text.utf8)
        var found: [(Int, String, String, JSONMemberScan.Kind)] = []
        let scanned = bytes.withUnsafeBufferPointer { buffer in
            JSONMemberScan.scan(buffer) { member in
                found.append((member.depth, String(decoding: buffer[member.name], as: UTF8.self),
                              String(decoding: buffer[member.value], as: UTF8.self), member.kind))
                return true
            }
        }
        return scanned ? found : nil
    }

    @Test func reportsTheOuterAndInnerMembers() throws {
        let text = #" {"stream":"btcusdt@aggTrade", "data":{"e":"aggTrade","p":"85866.18","T":1763797203511,"m":false,"x":{"deep":[1,{"y":null}]}}} "#
        let found = try #require(members(text))
        let rendered: [String] = found.map { member in "\(member.0) \(member.1)=\(member.2) \(member.3)" }
        let expected: [String] = [
            "0 stream=btcusdt@aggTrade string",
            "1 e=aggTrade string", "1 p=85866.18 string", "1 T=1763797203511 number", "1 m=false literal",
            #"1 x={"deep":[1,{"y":null}]} object"#,
            #"0 data={"e":"aggTrade","p":"85866.18","T":1763797203511,"m":false,"x":{"deep":[1,{"y":null}]}} object"#,
        ]
        #expect(rendered == expected, "members in order, inner ones before the object that holds them")
        let tree = try JSONValue(parsing: text)
        #expect(tree["data"]?["p"]?.stringValue == "85866.18")
    }

    static let deep = String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)
    static let wide: String = "{" + (0..<30).map { (index: Int) -> String in #""k\#(index)":\#(index)"# }.joined(separator: ",") + "}"

    @Test("gives up on what it does not check, so the full parser reads it", arguments: [
        #"{"a":"esc\"aped"}"#, #"{"a":"caf\#u{e9}"}"#, #"{"a":1,"a":2}"#, #"{"a":{"b":1,"b":2}}"#,
        #"[1,2]"#, #""text""#, "", "{", #"{"a":01}"#, #"{"a":1.}"#, #"{"a":tru}"#, #"{"a":1} x"#,
        #"{"a":1,}"#, #"{"a" 1}"#, "{\"a\":\"tab\tinside\"}", #"{"a":[1,]}"#,
        JSONMemberScanTests.deep, JSONMemberScanTests.wide,
    ])
    func givesUp(text: String) {
        #expect(members(text) == nil, "scan accepted \(text.debugDescription)")
    }

    @Test func neverAcceptsWhatTheParserRefuses() {
        // Every prefix and every one-byte change of a trade message: where the scan says yes,
        // the parser must too.
        let message = Array(#"{"stream":"s","data":{"e":"aggTrade","a":-12,"p":"1.5e3","q":[true,null,{}],"T":0.5}}"#.utf8)
        var texts: [[UInt8]] = (0...message.count).map { Array(message.prefix($0)) }
        for index in message.indices {
            for replacement in Array(#"{}[]":,"-+.0e9 \tanx"#.utf8) {
                var changed = message
                changed[index] = replacement
                texts.append(changed)
            }
        }
        var accepted = 0
        for text in texts where members(String(decoding: text, as: UTF8.self)) != nil {
            accepted += 1
            #expect((try? JSONValue(parsing: text)) != nil, "scan accepted \(String(decoding: text, as: UTF8.self).debugDescription), the parser refuses it")
        }
        #expect(accepted > 100, "the scan accepted only \(accepted) of \(texts.count) variants")
    }
}
