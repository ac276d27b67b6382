import WireProtocol

/// `btcctl sources`: one aligned line per source, `*` on those behind the current quote.
public enum SourcesTable {
    public static func render(_ report: SourcesReport) -> String {
        var rows: [[String]] = [["", "SOURCE", "STATE", "ASSET", "LAST PRICE", "LATENCY", "CALLS/24H", "LAST ERROR"]]
        for entry in report.entries {
            let calls = entry.dailyBudget.map { "\(entry.callsLastDay ?? 0)/\($0)" } ?? "-"
            let detail = entry.state == "disabled" || entry.state == "unsupported" || entry.note != nil ? (entry.note ?? "") : (entry.lastError ?? "")
            rows.append([entry.selected ? "*" : " ", TerminalText.printable(entry.name), TerminalText.printable(entry.state),
                         TerminalText.printable(entry.quoteAsset), TerminalText.printable(entry.lastPrice ?? "-"), entry.latencyMilliseconds.map { "\($0)ms" } ?? "-", calls,
                         clipped(TerminalText.printable(detail.isEmpty ? "-" : detail))])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        var text = "mode: \(report.mode)\n"
        if let stream = report.stream {
            let detail = stream.state == "live" ? "" : stream.lastError.map { " (\(clipped(TerminalText.printable($0))))" } ?? ""
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

    /// Keeps a line readable when a venue's error text is long.
    static func clipped(_ text: String) -> String {
        text.count <= 72 ? text : String(text.prefix(71)) + "…"
    }
}
