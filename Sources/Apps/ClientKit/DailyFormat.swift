import JSONText
import WireProtocol

/// `btcctl history --daily`: the daemon's daily bars as a table for people, as CSV for
/// spreadsheets, or as the `unix_ts,price` rows faraday takes for custom fiat prices.
public enum DailyFormat {
    public static let csvHeader = "date,open,high,low,close"
    /// Where the days come from, for the "none yet" error.
    static let whyNone = " (the daemon fills ten years of days from venue candles after its first quote unless BTCPRICED_BACKFILL=off, "
        + "and keeps each UTC day once it has ended)"

    /// The prices are the daemon's exact decimal text, checked when the reply was read.
    public static func csv(_ reply: DailyReply) -> String {
        reply.days.reduce(csvHeader + "\n") { $0 + "\($1.date),\($1.open),\($1.high),\($1.low),\($1.close)\n" }
    }

    /// Each day's close, stamped with the second the day ended (the next UTC midnight): the
    /// price at that moment. No header: faraday reads rows of `timestamp,price`.
    public static func faraday(_ reply: DailyReply) -> String {
        reply.days.reduce("") { text, day in
            guard let minutes = ChartFormat.epochMinutes(day.date + "T00:00") else { return text }
            return text + "\((minutes + 1440) * 60),\(day.close)\n"
        }
    }

    /// Aligned columns, prices as the daemon's currency is written (`$114,459.80`).
    public static func table(_ reply: DailyReply) -> String {
        let currency = TerminalText.printable(String(reply.currency.prefix(8)))
        let rows = [["date", "open", "high", "low", "close"]] + reply.days.map { day in
            [day.date] + [day.open, day.high, day.low, day.close].map { HumanFormat.money($0, currency: currency) }
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                column == 0 ? text + String(repeating: " ", count: widths[0] - text.count)
                    : String(repeating: " ", count: widths[column] - text.count) + text
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

extension CtlMain {
    static func daily(_ invocation: CtlInvocation, since: String?, csv: Bool, faraday: Bool, json: Bool) throws(ClientError) -> Int32 {
        let line = try query(.daily(DailyQuery(since: since)), invocation)
        let reply = try decodeDaily(line)
        if json {
            Output.line(line)
        } else if csv {
            Output.write(faraday ? DailyFormat.faraday(reply) : DailyFormat.csv(reply))
        } else if !reply.days.isEmpty {
            Output.write(DailyFormat.table(reply))
        }
        guard !reply.days.isEmpty else {
            Output.error("btcctl: no daily prices\(since.map { " since \($0)" } ?? "") yet" + DailyFormat.whyNone)
            return CtlExit.staleOrNoData
        }
        return CtlExit.ok
    }

    static func decodeDaily(_ line: String) throws(ClientError) -> DailyReply {
        let parsed = try replyJSON(line, newerRequest: true)
        do throws(ErrorReply) { return try DailyReply(json: parsed) } catch {
            throw ClientError(message: "protocol error: \(error.message)")
        }
    }
}

extension CtlMain {
    /// `history --at`: the price then, as the daemon's currency is written, with where it came
    /// from (`BTC/USD  $61,234.50  2024-03-01T12:00:00Z, that minute's close`); exit 3 when the
    /// history has none.
    static func priceAt(_ invocation: CtlInvocation, seconds: Int64, json: Bool) throws(ClientError) -> Int32 {
        let line = try query(.priceAt(PriceAtQuery(seconds: seconds)), invocation)
        let parsed = try replyJSON(line, newerRequest: true)
        let reply: PriceAtReply
        do throws(ErrorReply) { reply = try PriceAtReply(json: parsed) } catch {
            throw ClientError(message: "protocol error: \(error.message)")
        }
        if json { Output.line(line) }
        guard let found = reply.found else {
            Output.error("btcctl: no price at \(MomentText.text(seconds)): \(TerminalText.printable(reply.reason ?? "none kept"))")
            return CtlExit.staleOrNoData
        }
        guard !json else { return CtlExit.ok }
        let currency = TerminalText.printable(String(reply.currency.prefix(8)))
        let basis = found.basis == .minute ? "that minute's close" : "that day's close"
        Output.line("BTC/\(currency)  \(HumanFormat.money(found.price, currency: currency))  \(MomentText.text(found.time)), \(basis)")
        return CtlExit.ok
    }
}
