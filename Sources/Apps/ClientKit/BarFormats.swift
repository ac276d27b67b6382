import JSONText
import WireProtocol

/// Output for status bars and prompts. All of it is computed from the exact decimal text.
public enum BarFormat {
    /// U+20BF, which some fonts lack (DejaVu Sans): `--symbol` replaces it.
    public static let bitcoinSign = "₿"

    /// `₿ —`: the bar text with no price to show.
    public static func noPriceText(symbol: String = bitcoinSign) -> String { marked(symbol, "—") }

    /// `₿ 114,460`, or `114,460` with an empty symbol.
    private static func marked(_ symbol: String, _ text: String) -> String {
        symbol.isEmpty ? text : symbol + " " + text
    }

    /// `₿ 114,460`: whole dollars, grouped. Plain text: each bar escapes it for its grammar.
    /// With `--unit sats`: `₿ 874 sats/$`.
    static func barText(_ status: StatusMessage, symbol: String = bitcoinSign, unit: PriceUnit = .fiat) -> String {
        guard let price = status.price else { return noPriceText(symbol: symbol) }
        let figure = unit == .sats ? PriceUnit.satsText(status).map { BarText.field($0, limit: 60) } : nil
        return marked(symbol, figure ?? HumanFormat.barSymbol(status.currency) + BarText.field(HumanFormat.groupedWhole(DecimalText.rounded(price, places: 0)), limit: 40))
            + (status.state == .stale ? " (stale)" : "")
    }

    /// `spark` is a sparkline of the last 24 h, empty when there is none. Plain text, each
    /// field from the daemon made one bounded line (`BarText.field`); Waybar's escapes it.
    static func tooltip(_ status: StatusMessage, spark: String = "") -> String {
        let currency = BarText.field(status.currency, limit: 8)
        let lastError = status.lastError.map { BarText.field($0, limit: 300) }
        guard let price = status.price.map({ BarText.field($0, limit: 40) }) else {
            return "BTC/\(currency): no data yet" + (lastError.map { "\n\($0)" } ?? "")
        }
        // Whole units, as the bar shows them, and the quote's own time rather than an age: a
        // `--watch` bar prints a line only when it changes, so a relative age would freeze
        // ("3.0s ago" an hour into an outage) and cents would redraw it for nothing.
        var lines = ["BTC/\(currency) \(HumanFormat.wholeMoney(price, currency: status.currency))",
                     "\(BarText.field(status.source ?? "?", limit: 40)) (\(BarText.field(status.symbol ?? "?", limit: 40)))"]
        // A fresh quote's time to the minute: a `--watch` bar prints a line only when what it
        // shows changes, and a clock to the second would redraw Waybar at every trade.
        if let time = status.timestamp.flatMap(Self.clockTime) {
            lines.append(status.state == .stale ? "STALE: quote of \(time) UTC" : "as of \(time.prefix(5)) UTC")
        }
        if let changes = HumanFormat.changes(status) { lines.append(changes) }
        if let low = status.trend.low24h, let high = status.trend.high24h {
            lines.append("24h low \(HumanFormat.wholeMoney(low, currency: status.currency)), high \(HumanFormat.wholeMoney(high, currency: status.currency))")
        }
        if spark.contains(where: { $0 != " " }) { lines.append("24h \(spark)") }
        if let lastError { lines.append(lastError) }
        return lines.joined(separator: "\n")
    }

    /// `16:00:00` from an RFC 3339 UTC timestamp (`2026-11-21T16:00:00.123Z`); nil for anything else.
    static func clockTime(_ timestamp: String) -> String? {
        let utf8 = Array(timestamp.utf8)
        guard utf8.count >= 20, utf8[10] == UInt8(ascii: "T"), utf8.last == UInt8(ascii: "Z") else { return nil }
        let time = utf8[11..<19]
        let shape = Array("00:00:00".utf8)
        guard zip(time, shape).allSatisfy({ $1 == UInt8(ascii: ":") ? $0 == $1 : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return String(decoding: time, as: UTF8.self)
    }

    /// One line for Waybar's `"return-type": "json"`. `class` lists the state, then `up` or
    /// `down` by the 24 h change, then `above` or `below` when a threshold is reached.
    public static func waybar(_ status: StatusMessage, spark: String = "", thresholds: PriceThresholds = .none,
                              symbol: String = bitcoinSign, unit: PriceUnit = .fiat) -> String {
        let classes = [status.state.rawValue, Direction(status).className, thresholds.crossing(status.price)].compactMap { $0 }
        return JSONValue.object([
            "text": .string(BarText.pango(barText(status, symbol: symbol, unit: unit))),
            "tooltip": .string(BarText.pango(tooltip(status, spark: spark))),
            "class": .array(classes.map { .string($0) }),
            "alt": .string(status.state.rawValue),
        ]).encoded
    }

    public static func waybarUnreachable(_ message: String, symbol: String = bitcoinSign) -> String {
        JSONValue.object([
            "text": .string(BarText.pango(noPriceText(symbol: symbol))), "tooltip": .string(BarText.pango("btcpriced unreachable: " + BarText.field(message, limit: 300))),
            "class": .array([.string("nodata")]), "alt": .string("nodata"),
        ]).encoded
    }

    public static let colors: [StatusMessage.State: String] = [.fresh: "#A3BE8C", .stale: "#EBCB8B", .nodata: "#BF616A"]
    public static let downColor = "#BF616A"
    public static let thresholdColors = ["above": "#88C0D0", "below": "#B48EAD"]

    /// i3blocks' line protocol: full_text, short_text, color. A fresh price is coloured by a
    /// reached threshold first, then by direction (red when down over 24 h).
    public static func i3blocks(_ status: StatusMessage, thresholds: PriceThresholds = .none, symbol: String = bitcoinSign,
                                unit: PriceUnit = .fiat) -> String {
        [BarText.pango(barText(status, symbol: symbol, unit: unit)), BarText.pango(prompt(status, thresholds: thresholds, symbol: symbol, unit: unit)),
         color(status, thresholds: thresholds)].joined(separator: "\n")
    }

    /// The same block as one JSON line, for a persistent block with `format=json` (i3blocks(1)),
    /// where every line the command prints replaces the whole block.
    public static func i3blocksJSON(_ status: StatusMessage, thresholds: PriceThresholds = .none, symbol: String = bitcoinSign,
                                    unit: PriceUnit = .fiat) -> String {
        JSONValue.object([
            "full_text": .string(BarText.pango(barText(status, symbol: symbol, unit: unit))),
            "short_text": .string(BarText.pango(prompt(status, thresholds: thresholds, symbol: symbol, unit: unit))),
            "color": .string(color(status, thresholds: thresholds)),
        ]).encoded
    }

    public static func i3blocksUnreachableJSON(symbol: String = bitcoinSign) -> String {
        let block = unreachableBlock(symbol: symbol)
        return JSONValue.object(["full_text": .string(block[0]), "short_text": .string(block[1]), "color": .string(block[2])]).encoded
    }

    /// The three lines of a one-shot block when the daemon cannot be asked: the short text and
    /// the red that btcctl(1) promises, as in every other state.
    public static func i3blocksUnreachable(symbol: String = bitcoinSign) -> String {
        unreachableBlock(symbol: symbol).joined(separator: "\n")
    }

    /// Full text, short text and colour of a block without a daemon.
    private static func unreachableBlock(symbol: String) -> [String] {
        [BarText.pango(noPriceText(symbol: symbol)), BarText.pango(symbol + "?"), colors[.nodata] ?? "#BF616A"]
    }

    /// polybar's custom/script: the bar text in the block's colour, with polybar's own tags.
    public static func polybar(_ status: StatusMessage, thresholds: PriceThresholds = .none, symbol: String = bitcoinSign,
                               unit: PriceUnit = .fiat) -> String {
        "%{F\(color(status, thresholds: thresholds))}\(BarText.polybar(barText(status, symbol: symbol, unit: unit)))%{F-}"
    }

    public static func polybarUnreachable(symbol: String = bitcoinSign) -> String {
        "%{F\(colors[.nodata] ?? "#BF616A")}\(BarText.polybar(noPriceText(symbol: symbol)))%{F-}"
    }

    static func color(_ status: StatusMessage, thresholds: PriceThresholds) -> String {
        guard status.state == .fresh else { return colors[status.state] ?? "#BF616A" }
        if let crossing = thresholds.crossing(status.price), let color = thresholdColors[crossing] { return color }
        return Direction(status) == .down ? downColor : colors[.fresh] ?? "#A3BE8C"
    }

    /// `₿114.5k`, with `?` when stale, then `↑`/`↓` when a threshold is reached: short enough
    /// for PS1 and tmux.
    /// With `--unit sats`: `₿874 sats/$`.
    public static func prompt(_ status: StatusMessage, thresholds: PriceThresholds = .none, symbol: String = bitcoinSign,
                              unit: PriceUnit = .fiat) -> String {
        guard let price = status.price else { return symbol + "?" }
        let marker = switch thresholds.crossing(price) {
        case "above": "↑"
        case "below": "↓"
        default: ""
        }
        let figure = unit == .sats ? PriceUnit.satsText(status).map { BarText.field($0, limit: 60) } : nil
        return symbol + (figure ?? HumanFormat.barSymbol(status.currency) + BarText.field(DecimalText.short(price), limit: 40))
            + (status.state == .fresh ? "" : "?") + marker
    }
}
