import ClientKit
import JSONText
import Testing
import WireProtocol

@Suite("Bar and prompt output")
struct BarFormatTests {
    func status(_ price: String?, _ state: StatusMessage.State, age: Int64? = 412) -> StatusMessage {
        StatusMessage(price: price, symbol: price == nil ? nil : "BTCUSDT", source: price == nil ? nil : "binance",
                      timestamp: price == nil ? nil : "2026-11-21T16:00:00.123Z", ageMilliseconds: price == nil ? nil : age,
                      state: state, lastError: state == .fresh ? nil : "binance: timeout after 800ms", version: "0.1.0")
    }

    @Test("Waybar JSON is valid and carries the state as class", arguments: [
        (Optional("114459.8"), StatusMessage.State.fresh, "₿ 114,460"),
        (Optional("114459.8"), .stale, "₿ 114,460 (stale)"),
        (nil, .nodata, "₿ —"),
    ])
    func waybar(price: String?, state: StatusMessage.State, text: String) throws {
        let json = try JSONValue(parsing: BarFormat.waybar(status(price, state)))
        #expect(json["text"] == .string(text))
        #expect(json["class"] == .array([.string(state.rawValue)]))
        #expect(json["alt"] == .string(state.rawValue))
        #expect(json["tooltip"]?.stringValue?.isEmpty == false)
        if price != nil {
            let tooltip = json["tooltip"]?.stringValue ?? ""
            #expect(tooltip.contains("BTC/USD $114,460\n"), "whole units, as the bar: \(tooltip)")
            #expect(state == .stale ? tooltip.contains("STALE: quote of 16:00:00 UTC") : tooltip.contains("as of 16:00 UTC") && !tooltip.contains("16:00:00"),
                    "the quote's own time; to the minute while fresh, so a watching bar redraws at most once a minute for it: \(tooltip)")
            #expect(!tooltip.contains(" ago"), "no relative age, which a --watch bar would freeze: \(tooltip)")
        }
    }

    /// A `--watch` bar prints a line only when it differs from the last: trades within the same
    /// whole unit and the same minute give the same line, so Waybar does not redraw for them.
    @Test func tradesWithinAUnitAndAMinuteGiveTheSameWaybarLine() {
        var first = status("114459.8", .fresh), later = status("114460.25", .fresh, age: 30)
        first.timestamp = "2026-11-21T16:00:01.123Z"
        later.timestamp = "2026-11-21T16:00:59.900Z"
        #expect(BarFormat.waybar(first) == BarFormat.waybar(later))
        later.timestamp = "2026-11-21T16:01:00.000Z"
        #expect(BarFormat.waybar(first) != BarFormat.waybar(later), "a new minute is a visible change")
    }

    @Test func waybarWhenTheDaemonIsDown() throws {
        let json = try JSONValue(parsing: BarFormat.waybarUnreachable("cannot connect"))
        #expect(json["class"] == .array([.string("nodata")]))
        #expect(json["tooltip"]?.stringValue?.contains("cannot connect") == true)
    }

    @Test func i3blocksFollowsTheLineProtocol() {
        let lines = BarFormat.i3blocks(status("114459.8", .stale)).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[0] == "₿ 114,460 (stale)")
        #expect(lines[1] == "₿114.5k?")
        #expect(lines[2].count == 7 && lines[2].hasPrefix("#"))
        #expect(BarFormat.i3blocks(status("1", .fresh)).hasSuffix("#A3BE8C"))
    }

    @Test("prompt is short and marks staleness", arguments: [
        ("114459.8", StatusMessage.State.fresh, "₿114.5k"), ("114459.8", .stale, "₿114.5k?"),
        ("999.5", .fresh, "₿1000"), ("999950", .fresh, "₿1M"), ("1234567.89", .fresh, "₿1.2M"), ("68901.23", .fresh, "₿68.9k"),
    ])
    func prompt(price: String, state: StatusMessage.State, expected: String) {
        #expect(BarFormat.prompt(status(price, state)) == expected)
    }

    /// For fonts without ₿: `--symbol` replaces it in every bar and the prompt, escaped like
    /// any other text, and an empty one leaves the price alone.
    @Test func aSymbolReplacesTheBitcoinSignEverywhere() throws {
        let fresh = status("114459.8", .fresh)
        #expect(try JSONValue(parsing: BarFormat.waybar(fresh, symbol: "BTC"))["text"] == .string("BTC 114,460"))
        #expect(try JSONValue(parsing: BarFormat.waybar(fresh, symbol: "<b>"))["text"] == .string("&lt;b&gt; 114,460"))
        #expect(try JSONValue(parsing: BarFormat.waybar(fresh, symbol: ""))["text"] == .string("114,460"))
        #expect(try JSONValue(parsing: BarFormat.waybarUnreachable("down", symbol: "XBT"))["text"] == .string("XBT —"))
        #expect(BarFormat.i3blocks(fresh, symbol: "BTC").hasPrefix("BTC 114,460\nBTC114.5k\n"))
        #expect(try JSONValue(parsing: BarFormat.i3blocksUnreachableJSON(symbol: "BTC"))["short_text"] == .string("BTC?"))
        #expect(BarFormat.polybar(fresh, symbol: "%{F#f00}") == "%{F#A3BE8C}F#f00 114,460%{F-}", "no polybar tag from the symbol")
        #expect(BarFormat.polybarUnreachable(symbol: "BTC").contains("}BTC —%{F-}"))
        #expect(BarFormat.prompt(fresh, symbol: "BTC") == "BTC114.5k")
        let parsed = try CtlCommandLine.parse(["waybar", "--watch", "--symbol", "BTC"], socketFromEnvironment: nil)
        #expect(parsed.action == .waybar(watch: true, symbol: "BTC"))
        #expect(try CtlCommandLine.parse(["prompt", "--symbol="], socketFromEnvironment: nil).action == .prompt(strict: false, format: nil, symbol: ""))
        for bad in [["price", "--symbol", "BTC"], ["waybar", "--symbol", "\u{1B}[31m"], ["waybar", "--symbol", "123456789"]] {
            #expect(throws: CtlUsageError.self, "\(bad)") { try CtlCommandLine.parse(bad, socketFromEnvironment: nil) }
        }
    }

    @Test func templatesExpandEveryPlaceholder() {
        let rendered = Template.render("{price}|{price_rounded}|{price_grouped}|{price_short}|{currency}|{symbol}|{source}|{age}|{timestamp}|{state}|{stale}",
                                       status("114459.85", .stale, age: 42_000))
        #expect(rendered == "114459.85|114460|114,459.85|114.5k|USD|BTCUSDT|binance|42s|2026-11-21T16:00:00.123Z|stale|?")
        #expect(Template.render("no placeholders", status(nil, .nodata)) == "no placeholders")
    }

    @Test func templateErrorsAreUsageErrors() {
        #expect(throws: CtlUsageError.self) { try CtlCommandLine.parse(["price", "--format", "{bogus}"], socketFromEnvironment: nil) }
        #expect(throws: CtlUsageError.self) { try CtlCommandLine.parse(["prompt", "--format", "₿{price"], socketFromEnvironment: nil) }
    }

    @Test func promptHasAShortDefaultTimeout() throws {
        #expect(try CtlCommandLine.parse(["prompt"], socketFromEnvironment: nil).timeoutMilliseconds == 250)
        #expect(try CtlCommandLine.parse(["--timeout", "2s", "prompt"], socketFromEnvironment: nil).timeoutMilliseconds == 2000)
    }
}
