import WireProtocol

/// `btcctl sources`: one aligned line per source, `*` on those behind the current quote. On a
/// terminal (`columns`) the last column is cut to fit; piped or `--wide`, every error is whole.
public enum SourcesTable {
    public static func render(_ report: SourcesReport, columns: Int? = nil) -> String {
        // Candle requests (the history's fill) have a pace of their own beside the price fetches:
        // a column of their own once any were made.
        let showsCandles = report.entries.contains { ($0.candleRequests ?? 0) > 0 }
        var rows: [[String]] = [["", "SOURCE", "STATE", "ASSET", "LAST PRICE", "LATENCY", "CALLS/24H"] + (showsCandles ? ["CANDLES"] : []) + ["LAST ERROR"]]
        for entry in report.entries {
            let calls = entry.dailyBudget.map { "\(entry.callsLastDay ?? 0)/\($0)" } ?? "-"
            let candles = showsCandles ? [entry.candleRequests.flatMap { $0 > 0 ? String($0) : nil } ?? "-"] : []
            let detail = entry.state == "disabled" || entry.state == "unsupported" || entry.note != nil ? (entry.note ?? "") : (entry.lastError ?? "")
            rows.append([entry.selected ? "*" : " ", TerminalText.printable(entry.name), TerminalText.printable(entry.state),
                         TerminalText.printable(entry.quoteAsset), TerminalText.printable(entry.lastPrice ?? "-"), entry.latencyMilliseconds.map { "\($0)ms" } ?? "-", calls]
                         + candles + [TerminalText.printable(detail.isEmpty ? "-" : detail)])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        if let columns {
            // The columns before the last, with their separating spaces, then what is left.
            let room = max(columns - widths.dropLast().reduce(0) { $0 + $1 + 1 }, 10)
            for index in rows.indices { rows[index][rows[index].count - 1] = clipped(rows[index][rows[index].count - 1], to: room) }
        }
        var text = "mode: \(report.mode)\n"
        if let stream = report.stream {
            let detail = stream.state == "live" ? "" : stream.lastError.map { error in
                " (\(columns.map { clipped(TerminalText.printable(error), to: max($0 - 24 - stream.name.count, 16)) } ?? TerminalText.printable(error)))"
            } ?? ""
            text += "stream: \(TerminalText.printable(stream.name)) \(TerminalText.printable(stream.state))\(detail)\n"
        }
        // Routes only when a proxy is in play: one line when every venue takes the same one.
        let routes = report.entries.compactMap { entry in entry.route.map { (entry.name, $0) } }
        if routes.contains(where: { $0.1 != "direct" }) {
            if Set(routes.map(\.1)).count == 1, let route = routes.first?.1 {
                text += "route: \(TerminalText.printable(route))\n"
            } else {
                text += "routes: " + routes.map { "\(TerminalText.printable($0.0)) \(TerminalText.printable($0.1))" }.joined(separator: "; ") + "\n"
            }
        }
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                line += column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 1)
            }
            while line.last == " " { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    /// Keeps a line within the terminal when a venue's error text is long.
    static func clipped(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}
