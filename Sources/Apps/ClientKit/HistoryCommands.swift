#if canImport(Glibc)
import Glibc
#endif
import CivilTime
import JSONText
import WireProtocol

/// The commands that need more than the status: `chart`, `wait`, and the sparkline that
/// templates and the Waybar tooltip show. None of this runs for `price` or a plain `prompt`.
extension CtlMain {
    static func chart(_ invocation: CtlInvocation, range: ChartRange, width: Int?, json: Bool) throws(ClientError) -> Int32 {
        guard case .minutes(let range) = range else { return try yearChart(invocation, width: width, json: json) }
        let columns = Terminal.columns()
        let points = width ?? min(columns ?? 40, HistoryQuery.maximumPoints)
        let line = try query(.history(HistoryQuery(range: range, points: points)), invocation)
        let chart = ChartFormat.line(try decodeHistory(line), fixedWidth: width != nil, columns: columns)
        if json {
            // The JSON form exits as the chart would: a script tells "no history" apart alike.
            Output.line(line)
            return chart == nil ? CtlExit.staleOrNoData : CtlExit.ok
        }
        guard let chart else {
            Output.error("btcctl: no price history for the last \(range.rawValue) yet (the daemon keeps it from its first quote on)")
            return CtlExit.staleOrNoData
        }
        Output.line(chart)
        return CtlExit.ok
    }

    /// The daily bars of the last 365 days in `width` cells, or as many as the terminal's line
    /// has room for, or 40 off a terminal, as the other ranges.
    static func yearChart(_ invocation: CtlInvocation, width: Int?, json: Bool) throws(ClientError) -> Int32 {
        let columns = Terminal.columns()
        let since = CivilDate.text(ofDay: Today.day() - 365)
        let line = try query(.daily(DailyQuery(since: since)), invocation)
        let reply = try decodeDaily(line)
        if json {
            Output.line(line)
        } else if let chart = ChartFormat.year(reply, since: since, cells: width ?? (columns == nil ? 40 : nil), columns: width == nil ? columns : nil) {
            Output.line(chart)
        }
        guard !reply.days.isEmpty else {
            Output.error("btcctl: no daily prices since \(since) yet" + DailyFormat.whyNone)
            return CtlExit.staleOrNoData
        }
        return CtlExit.ok
    }

    /// The 8-cell sparkline of the last 24 h; empty when there is none or the daemon is older.
    static func spark(_ invocation: CtlInvocation) -> String {
        do throws(ClientError) {
            let reply = try decodeHistory(try query(.history(HistoryQuery(range: .day, points: 8)), invocation))
            return Sparkline.render(ChartFormat.keepingExtremes(reply.points.map(\.close), of: reply))
        } catch {
            return ""
        }
    }

    /// Follows `watch` until a fresh price reaches a threshold (exit 0, the price printed), the
    /// timeout runs out (exit 3) or the daemon goes away (exit 1).
    static func wait(_ invocation: CtlInvocation, thresholds: PriceThresholds, timeoutMilliseconds: Int?) -> Int32 {
        let deadline = timeoutMilliseconds.map { monotonicMilliseconds() + Int64($0) }
        do throws(ClientError) {
            var client = try CtlMain.open(.watch, invocation)
            defer { client.closeConnection() }
            var first = true
            // Why it has not fired: the price, or a quote too old (or missing) to be checked.
            var latest: StatusMessage?
            while true {
                if let deadline, !first {
                    let remaining = deadline - monotonicMilliseconds()
                    guard remaining > 0, try client.hasInput(withinMilliseconds: Int32(clamping: remaining)) else {
                        Output.error("btcctl: timed out: " + whyNotFired(latest, thresholds: thresholds))
                        return CtlExit.staleOrNoData
                    }
                }
                guard let line = try client.readLine(unbounded: !first) else {
                    throw ClientError(message: first ? "\(client.path) closed the connection without answering"
                                                     : "the daemon closed the stream (stopped or restarting)")
                }
                first = false
                let status = try decodeStatus(line)
                latest = status
                if status.state == .fresh, let price = status.price, thresholds.crossing(price) != nil {
                    Output.line(price)
                    return CtlExit.ok
                }
            }
        } catch {
            Output.error("btcctl: \(error.message)")
            return CtlExit.unreachable
        }
    }

    /// A stale or missing quote is never compared with a threshold, so it is the reason given.
    static func whyNotFired(_ status: StatusMessage?, thresholds: PriceThresholds) -> String {
        switch status?.state {
        case .stale?:
            let age = status?.ageMilliseconds.map { " (\($0 / 1000) s old)" } ?? " (of unknown age)"
            return "the quote is stale\(age), so it was not checked against \(describe(thresholds))"
        case .nodata?, nil:
            return "the daemon has no price yet, so nothing was checked against \(describe(thresholds))"
        case .fresh?:
            return "the price did not reach \(describe(thresholds))"
        }
    }

    static func describe(_ thresholds: PriceThresholds) -> String {
        [thresholds.above.map { "≥ \($0)" }, thresholds.below.map { "≤ \($0)" }].compactMap { $0 }.joined(separator: " or ")
    }

    static func decodeHistory(_ line: String) throws(ClientError) -> HistoryReply {
        let json = try replyJSON(line, newerRequest: true)
        do { return try HistoryReply(json: json) } catch {
            throw ClientError(message: "protocol error: \(error.message)")
        }
    }
}

enum Terminal {
    /// The width of the terminal on stdout; nil when stdout is not a terminal.
    static func columns() -> Int? {
        guard isatty(1) == 1 else { return nil }
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Colour on a terminal, unless NO_COLOR is set (https://no-color.org).
    static func wantsColor() -> Bool {
        guard isatty(1) == 1 else { return false }
        guard let noColor = getenv("NO_COLOR") else { return true }
        return noColor.pointee == 0
    }
}
