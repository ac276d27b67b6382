import JSONText
import WireProtocol

/// Output for status bars and prompts. All of it is computed from the exact decimal text.
public enum BarFormat {
    /// `₿ 114,460`: whole dollars, grouped.
    static func barText(_ status: StatusMessage) -> String {
        guard let price = status.price else { return "₿ —" }
        return "₿ " + HumanFormat.groupedWhole(DecimalText.rounded(price, places: 0)) + (status.state == .stale ? " (stale)" : "")
    }

    static func tooltip(_ status: StatusMessage) -> String {
        guard let price = status.price else {
            return "BTC/\(status.currency): no data yet" + (status.lastError.map { "\n\($0)" } ?? "")
        }
        var lines = ["BTC/\(status.currency) \(HumanFormat.groupedPrice(price))",
                     "\(status.source ?? "?") (\(status.symbol ?? "?"))"]
        if let age = status.ageMilliseconds { lines.append("\(AgeText.compact(milliseconds: age, spaced: true)) ago" + (status.state == .stale ? " — STALE" : "")) }
        if let error = status.lastError { lines.append(error) }
        return lines.joined(separator: "\n")
    }

    /// One line for Waybar's `"return-type": "json"`.
    public static func waybar(_ status: StatusMessage) -> String {
        JSONValue.object([
            "text": .string(barText(status)),
            "tooltip": .string(tooltip(status)),
            "class": .string(status.state.rawValue),
            "alt": .string(status.state.rawValue),
        ]).encoded
    }

    public static func waybarUnreachable(_ message: String) -> String {
        JSONValue.object([
            "text": .string("₿ —"), "tooltip": .string("btcpriced unreachable: \(message)"),
            "class": .string("nodata"), "alt": .string("nodata"),
        ]).encoded
    }

    public static let colors: [StatusMessage.State: String] = [.fresh: "#A3BE8C", .stale: "#EBCB8B", .nodata: "#BF616A"]

    /// i3blocks' line protocol: full_text, short_text, color.
    public static func i3blocks(_ status: StatusMessage) -> String {
        [barText(status), prompt(status), colors[status.state] ?? "#BF616A"].joined(separator: "\n")
    }

    /// `₿114.5k`, with `?` when stale: short enough for PS1 and tmux.
    public static func prompt(_ status: StatusMessage) -> String {
        guard let price = status.price else { return "₿?" }
        return "₿" + DecimalText.short(price) + (status.state == .fresh ? "" : "?")
    }
}
