import ClientKit
import JSONText
import Testing
import WireProtocol

/// Text a remote server chose (a venue's error body, a hostile program on the socket path)
/// reaches each bar escaped in that bar's grammar, without control characters, and bounded.
@Suite("Bars: hostile text is escaped for the bar that parses it")
struct HostileBarTextTests {
    static let hostile = #"{"code":-1003,"msg":"Too many requests & <weight> exceeded"} %{F#f00}%{A1:rm -rf ~:}click%{A} 'q' "dq""#
        + "\n\u{1B}[31mred\u{7}" + String(repeating: "x", count: 10 * 1024)

    func status(price: String? = "114459.8", state: StatusMessage.State = .stale, text: String = hostile) -> StatusMessage {
        StatusMessage(price: price, symbol: "BTC<b>USDT", source: "binance&co", timestamp: "2026-11-21T16:00:00.123Z", ageMilliseconds: 3000,
                      state: state, lastError: text, version: "0.1.0")
    }

    /// Waybar parses both fields as Pango markup: after Pango unescapes them, the original
    /// text is back, and no `<` or bare `&` is left for the parser.
    @Test(arguments: [StatusMessage.State.stale, .nodata])
    func waybarEscapesTextAndTooltipAsPangoMarkup(state: StatusMessage.State) throws {
        let json = try JSONValue(parsing: BarFormat.waybar(status(price: state == .nodata ? nil : "114459.8", state: state)))
        for field in ["text", "tooltip"] {
            let value = try #require(json[field]?.stringValue)
            #expect(!value.contains("<") && !value.contains(">") && !value.contains("\"") && !value.contains("'"), "\(field): \(value.prefix(200))")
            let bareAmpersands = value.split(separator: "&", omittingEmptySubsequences: false).dropFirst()
                .filter { part in !["amp;", "lt;", "gt;", "quot;", "#39;"].contains { part.hasPrefix($0) } }
            #expect(bareAmpersands.isEmpty, "\(field) has a bare &: \(value.prefix(200))")
            #expect(!value.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "no escape or bell in \(field)")
            #expect(value.count < 1_000, "\(field) is bounded: \(value.count) characters")
        }
        let tooltip = try #require(json["tooltip"]?.stringValue)
        #expect(tooltip.contains("Too many requests &amp; &lt;weight&gt; exceeded"), "\(tooltip.prefix(300))")
        #expect(tooltip.contains("binance&amp;co (BTC&lt;b&gt;USDT)") || state == .nodata, "\(tooltip.prefix(300))")
        #expect(!tooltip.split(separator: "\n").contains { $0.contains("red") && !$0.contains("Too many") }, "the error's newline does not start a tooltip line of its own")
    }

    @Test func waybarUnreachableEscapesItsMessage() throws {
        let json = try JSONValue(parsing: BarFormat.waybarUnreachable("cannot connect to /run/<x>&y"))
        #expect(json["tooltip"]?.stringValue == "btcpriced unreachable: cannot connect to /run/&lt;x&gt;&amp;y")
    }

    /// polybar reads `%{…}` as tags: only the daemon's own colour tags are in the output.
    @Test func polybarCarriesNoTagTheDaemonDidNotWrite() {
        let hostilePrice = "1%{A1:xdg-open evil:}2%{A}"
        let output = BarFormat.polybar(status(price: hostilePrice, state: .fresh))
        #expect(output.components(separatedBy: "%{").count - 1 == 2, "two tags, the colour and its end: \(output)")
        #expect(output.hasPrefix("%{F#") && output.hasSuffix("%{F-}"), "\(output)")
        #expect(!output.contains("\n"))
    }

    /// i3blocks: three lines exactly (a newline would shift the colour into the short text),
    /// and Pango-safe for `markup=pango`.
    @Test func i3blocksKeepsItsThreeLinesAndIsPangoSafe() throws {
        let hostilePrice = "1<b>2\n#FF0000\n3"
        let lines = BarFormat.i3blocks(status(price: hostilePrice, state: .fresh)).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("<") }, "\(lines)")
        let json = try JSONValue(parsing: BarFormat.i3blocksJSON(status(price: hostilePrice, state: .fresh)))
        #expect(json["full_text"]?.stringValue?.contains("<") == false)
    }
}
