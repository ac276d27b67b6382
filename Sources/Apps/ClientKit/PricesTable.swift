import WireProtocol

/// `btcctl prices`: one aligned row per currency served, the primary first. The daemon's text
/// (a source's name, an error) is made printable before it reaches the terminal.
public enum PricesTable {
    public static func render(_ reply: CurrenciesReply) -> String {
        var rows = [["CURRENCY", "PRICE", "AGE", "STATE", "SOURCE"]]
        for entry in reply.entries {
            let status = entry.status
            rows.append([TerminalText.printable(entry.code), TerminalText.printable(status.price ?? "-"),
                         status.ageMilliseconds.map { AgeText.compact(milliseconds: $0) } ?? "-",
                         status.state.rawValue, TerminalText.printable(status.source ?? "-")])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        // The price right-aligned, so the digits line up; the rest left-aligned.
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 1 ? pad + cell : column == row.count - 1 ? cell : cell + pad
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
