#if canImport(Glibc)
import Glibc
#endif
import JSONText
import WireProtocol

public enum CtlExit {
    public static let ok: Int32 = 0
    public static let unreachable: Int32 = 1
    public static let usage: Int32 = 2
    public static let staleOrNoData: Int32 = 3
}

/// `btcctl`: a thin client, deliberately free of Foundation and NIO so it starts in about a
/// millisecond — it runs on every shell prompt.
public enum CtlMain {
    public static func run(arguments: [String], socketFromEnvironment: String?, currencyFromEnvironment: String? = nil,
                           runtimeDirectory: String? = nil) -> Int32 {
        let invocation: CtlInvocation
        do {
            invocation = try CtlCommandLine.parse(arguments, socketFromEnvironment: socketFromEnvironment,
                                                  currencyFromEnvironment: currencyFromEnvironment, runtimeDirectory: runtimeDirectory)
        } catch {
            Output.error("btcctl: \(error.message)\nTry 'btcctl --help'.")
            return CtlExit.usage
        }
        do throws(ClientError) {
            return try perform(invocation)
        } catch {
            Output.error("btcctl: \(error.message)")
            return CtlExit.unreachable
        }
    }

    static func perform(_ invocation: CtlInvocation) throws(ClientError) -> Int32 {
        switch invocation.action {
        case .help:
            Output.line(CtlCommandLine.usage)
            return CtlExit.ok
        case .version:
            Output.line("btcctl \(ProductVersion.current) (protocol \(WireProtocol.version))")
            return CtlExit.ok
        case .ping:
            let reply = try query(.ping, invocation)
            guard reply == "pong" else { throw ClientError(message: "unexpected reply to ping: \(reply.prefix(80))") }
            Output.line("pong")
            return CtlExit.ok
        case .status(let json, let unit):
            let line = try query(.status, invocation)
            let status = try decodeStatus(line)
            Output.write(json ? line + "\n" : HumanFormat.status(status, color: Terminal.wantsColor(), unit: unit))
            return exitStatus(for: status)
        case .price(let format, let unit):
            return try price(invocation, format: format, unit: unit)
        case .prompt(let strict, let format, let thresholds, let symbol, let unit):
            return prompt(invocation, strict: strict, format: format, thresholds: thresholds, symbol: symbol, unit: unit)
        case .waybar, .i3blocks, .polybar:
            return bar(invocation)
        case .metrics:
            Output.write(try exposition(invocation))
            return CtlExit.ok
        case .chart(let range, let width, let json):
            return try chart(invocation, range: range, width: width, json: json)
        case .daily(let since, let csv, let faraday, let json):
            return try daily(invocation, since: since, csv: csv, faraday: faraday, json: json)
        case .priceAt(let seconds, let json):
            return try priceAt(invocation, seconds: seconds, json: json)
        case .alert(let thresholds, let band, let exec, let notify):
            return alert(invocation, rule: AlertRule(thresholds: thresholds, band: band), exec: exec, notify: notify)
        case .moveAlert(let rule, let exec, let notify):
            return moveAlert(invocation, rule: rule, exec: exec, notify: notify)
        case .convert(let amount, let unit, let json):
            return try convert(invocation, amount: amount, unit: unit, json: json)
        case .wait(let thresholds, let timeout):
            return wait(invocation, thresholds: thresholds, timeoutMilliseconds: timeout)
        case .watch(let json, let unit):
            return try watch(invocation, json: json, unit: unit)
        case .prices(let json):
            let line = try query(.currencies, invocation)
            let document = try replyJSON(line, newerRequest: true), reply: CurrenciesReply
            do { reply = try CurrenciesReply(json: document) } catch {
                throw ClientError(message: "unexpected reply to currencies: \(error.message)")
            }
            Output.write(json ? line + "\n" : PricesTable.render(reply))
            return reply.entries.allSatisfy { $0.status.state == .fresh } ? CtlExit.ok : CtlExit.staleOrNoData
        case .sources(let json, let wide):
            let line = try query(.sources, invocation)
            let report = try decodeSources(line)
            Output.write(json ? line + "\n" : SourcesTable.render(report, columns: wide ? nil : Terminal.columns()))
            return report.anyOK ? CtlExit.ok : CtlExit.staleOrNoData
        }
    }

    static func price(_ invocation: CtlInvocation, format: String?, unit: PriceUnit) throws(ClientError) -> Int32 {
        let status = try decodeStatus(try query(.status, invocation))
        guard let price = status.price else {
            Output.error("btcctl: no data: the daemon has no quote yet\(status.lastError.map { " (\($0))" } ?? "")")
            return CtlExit.staleOrNoData
        }
        Output.line(format.map { render($0, status, invocation) } ?? (unit == .sats ? status.satsPerUnit ?? price : price))
        return exitStatus(for: status)
    }

    /// The three bars: one block, or one per change while watching. They exit 0 whenever they
    /// printed a block, unless asked for the codes (`--exit-status`).
    static func bar(_ invocation: CtlInvocation) -> Int32 {
        switch invocation.action {
        case .waybar(let watch, let exitStatus, let minimumInterval, let thresholds, let symbol, let unit):
            // The tooltip's sparkline changes at most once a minute: fetched that often.
            var spark = "", sparkFetchedAt = Int64.min / 2
            let code = bar(invocation, watch: watch, minimumInterval: minimumInterval, render: { status in
                if monotonicMilliseconds() - sparkFetchedAt >= 60_000 {
                    spark = Self.spark(invocation)
                    sparkFetchedAt = monotonicMilliseconds()
                }
                return BarFormat.waybar(status, spark: spark, thresholds: thresholds, symbol: symbol, unit: unit)
            }, unreachable: { BarFormat.waybarUnreachable($0, symbol: symbol) })
            return exitStatus ? code : CtlExit.ok
        case .i3blocks(let watch, let exitStatus, let minimumInterval, let thresholds, let symbol, let unit):
            // Persistent blocks read one JSON object per line (format=json), which keeps the
            // short text and colour that the three-line form gives a one-shot block.
            let code = bar(invocation, watch: watch, minimumInterval: minimumInterval,
                           render: { watch ? BarFormat.i3blocksJSON($0, thresholds: thresholds, symbol: symbol, unit: unit)
                                             : BarFormat.i3blocks($0, thresholds: thresholds, symbol: symbol, unit: unit) }) { _ in
                watch ? BarFormat.i3blocksUnreachableJSON(symbol: symbol) : BarFormat.i3blocksUnreachable(symbol: symbol)
            }
            return exitStatus ? code : CtlExit.ok
        case .polybar(let watch, let exitStatus, let minimumInterval, let thresholds, let symbol, let unit):
            let code = bar(invocation, watch: watch, minimumInterval: minimumInterval,
                           render: { BarFormat.polybar($0, thresholds: thresholds, symbol: symbol, unit: unit) }) { _ in
                BarFormat.polybarUnreachable(symbol: symbol)
            }
            return exitStatus ? code : CtlExit.ok
        default:
            return CtlExit.usage
        }
    }

    /// Connects and sends `request`, naming the currency chosen where the socket serves several.
    static func open(_ request: Request, _ invocation: CtlInvocation) throws(ClientError) -> UnixSocketClient {
        let target = invocation.target
        let client = try connect(invocation, path: target.path)
        do throws(ClientError) {
            try client.send(Request.Addressed(request, currency: target.currency).line)
        } catch {
            client.closeConnection()
            throw error
        }
        return client
    }

    /// Connects to the daemon's socket at `path`. When neither the system daemon's nor the
    /// per-user daemon's socket exists, the error names both, since btcctl looked for each.
    static func connect(_ invocation: CtlInvocation, path: String) throws(ClientError) -> UnixSocketClient {
        do {
            return try UnixSocketClient(path: path, timeoutMilliseconds: invocation.timeoutMilliseconds)
        } catch {
            guard let user = invocation.userSocketPath, path != user, access(path, F_OK) != 0 else { throw error }
            throw ClientError(message: "cannot connect to \(path) (the system daemon's) or \(user) (your own): neither exists "
                + "(is btcpriced running? systemctl start btcpriced.socket, or systemctl --user start btcpriced.socket)")
        }
    }

    static func query(_ request: Request, _ invocation: CtlInvocation) throws(ClientError) -> String {
        var client = try open(request, invocation)
        defer { client.closeConnection() }
        guard let line = try client.readLine() else {
            throw ClientError(message: "\(client.path) closed the connection without answering")
        }
        return line
    }

    /// The whole reply to `metrics`, which is many lines, up to the daemon's close.
    static func exposition(_ invocation: CtlInvocation) throws(ClientError) -> String {
        var client = try open(.metrics, invocation)
        defer { client.closeConnection() }
        var text = ""
        while let line = try client.readLine() {
            if text.isEmpty, line.hasPrefix("{") { _ = try replyJSON(line, newerRequest: true) }
            text += line + "\n"
            guard text.utf8.count < 1 << 20 else { throw ClientError(message: "metrics from \(client.path) are unreasonably long") }
        }
        guard !text.isEmpty else { throw ClientError(message: "\(client.path) closed the connection without answering") }
        return text
    }

    /// Never an error on the prompt, never a wait beyond the short timeout.
    static func prompt(_ invocation: CtlInvocation, strict: Bool, format: String?, thresholds: PriceThresholds, symbol: String,
                       unit: PriceUnit) -> Int32 {
        do throws(ClientError) {
            let status = try decodeStatus(try query(.status, invocation))
            Output.line(format.map { render($0, status, invocation) } ?? BarFormat.prompt(status, thresholds: thresholds, symbol: symbol, unit: unit))
            return strict ? exitStatus(for: status) : CtlExit.ok
        } catch {
            if strict { Output.error("btcctl: \(error.message)") }
            return strict ? CtlExit.unreachable : CtlExit.ok
        }
    }

    /// A template; the history is asked for only when it shows `{spark}`.
    static func render(_ template: String, _ status: StatusMessage, _ invocation: CtlInvocation) -> String {
        Template.render(template, status, spark: Template.needsHistory(template) ? spark(invocation) : "")
    }

    /// One line per update for bars; with `watch`, reconnects when the daemon restarts.
    static func bar(_ invocation: CtlInvocation, watch: Bool, minimumInterval: Int, render: (StatusMessage) -> String,
                    unreachable: (String) -> String) -> Int32 {
        guard watch else {
            do throws(ClientError) {
                let status = try decodeStatus(try query(.status, invocation))
                Output.line(render(status))
                return exitStatus(for: status)
            } catch {
                Output.line(unreachable(error.message))
                return CtlExit.unreachable
            }
        }
        var lastLine = ""
        while true {
            do throws(ClientError) {
                try pacedStream(invocation, minimumInterval: minimumInterval) { status in
                    // A bar redraws for every line it reads, and whole dollars hide most trades:
                    // a line it already shows is not sent again.
                    let line = render(status)
                    if line != lastLine { Output.line(line) }
                    lastLine = line
                }
            } catch {
                let line = unreachable(error.message)
                if line != lastLine { Output.line(line) }
                lastLine = line
            }
            Output.pause(milliseconds: 2000)
        }
    }

    /// Follows `watch` until the daemon closes the stream; the body gets each raw line and its status.
    static func stream(_ invocation: CtlInvocation, _ body: (String, StatusMessage) -> Void) throws(ClientError) {
        var client = try open(.watch, invocation)
        defer { client.closeConnection() }
        client.endsWithItsReader = true
        var first = true
        var shown = ""
        while let line = try client.readLine(unbounded: !first) {
            first = false
            let status = try decodeStatus(line)
            // The first line is the quote at subscription; the daemon may send it again as the
            // newest of its publish interval. A repeat says nothing new.
            let key = status.repeatKey
            if key == shown { continue }
            shown = key
            body(line, status)
        }
        throw ClientError(message: first ? "\(client.path) closed the connection without answering"
                                         : "the daemon closed the stream (stopped or restarting)")
    }

    /// Like `stream`, but at most one call per `minimumInterval` ms: a newer status replaces a
    /// held one, which is printed when the interval is up; a change of state goes at once.
    static func pacedStream(_ invocation: CtlInvocation, minimumInterval: Int, _ body: (StatusMessage) -> Void) throws(ClientError) {
        var client = try open(.watch, invocation)
        defer { client.closeConnection() }
        client.endsWithItsReader = true
        var first = true
        var held: StatusMessage?
        var lastShownAt = Int64.min / 2, lastState = "", lastKey = ""
        while true {
            if let pending = held {
                let wait = lastShownAt + Int64(minimumInterval) - monotonicMilliseconds()
                var due = wait <= 0
                if !due { due = try !client.hasInput(withinMilliseconds: Int32(clamping: wait)) }
                if due {
                    body(pending)
                    held = nil
                    lastShownAt = monotonicMilliseconds()
                    continue
                }
            }
            guard let line = try client.readLine(unbounded: !first) else { break }
            first = false
            let status = try decodeStatus(line)
            if status.repeatKey == lastKey { continue }
            lastKey = status.repeatKey
            let now = monotonicMilliseconds()
            if now - lastShownAt >= Int64(minimumInterval) || status.state.rawValue != lastState {
                body(status)
                held = nil
                lastShownAt = now
            } else {
                held = status
            }
            lastState = status.state.rawValue
        }
        if let held { body(held) }
        throw ClientError(message: first ? "\(client.path) closed the connection without answering"
                                         : "the daemon closed the stream (stopped or restarting)")
    }

    static func watch(_ invocation: CtlInvocation, json: Bool, unit: PriceUnit) throws(ClientError) -> Int32 {
        try stream(invocation) { line, status in Output.line(json ? line : HumanFormat.watchLine(status, unit: unit)) }
        return CtlExit.unreachable
    }

    static func decodeStatus(_ line: String) throws(ClientError) -> StatusMessage {
        let json = try replyJSON(line)
        do { return try StatusMessage(json: json) } catch {
            throw ClientError(message: "protocol error: \(error.message)")
        }
    }

    static func decodeSources(_ line: String) throws(ClientError) -> SourcesReport {
        let json = try replyJSON(line, newerRequest: true)
        do { return try SourcesReport(json: json) } catch {
            throw ClientError(message: "protocol error: \(error.message)")
        }
    }

    /// The reply as JSON, or the daemon's error reply as the error. A `newerRequest` (one that
    /// 0.1's daemon did not know) refused as a bad request hints at restarting an older daemon.
    static func replyJSON(_ line: String, newerRequest: Bool = false) throws(ClientError) -> JSONValue {
        let json: JSONValue
        do { json = try JSONValue(parsing: line) } catch {
            throw ClientError(message: "protocol error: reply is not JSON (\(error))")
        }
        if let reply = ErrorReply(json: json) {
            let hint = newerRequest && reply.code == "bad-request" ? " (is the daemon older than btcctl? restart it)" : ""
            throw ClientError(message: "daemon refused: \(reply.code): \(reply.message)\(hint)")
        }
        return json
    }

    static func exitStatus(for status: StatusMessage) -> Int32 {
        status.state == .fresh ? CtlExit.ok : CtlExit.staleOrNoData
    }
}

/// Unbuffered writes: `watch` output must reach a pipe line by line.
enum Output {
    static func line(_ text: String) { write(text + "\n", to: 1) }
    static func write(_ text: String) { write(text, to: 1) }
    static func error(_ text: String) { write(text + "\n", to: 2) }

    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                // The reader is gone (a bar that quit leaves EPIPE, with SIGPIPE ignored as
                // Waybar leaves it): a `--watch` or `watch` would live on and hold one of the
                // user's watch places. End here, exit 1, and say nothing on a stderr that may
                // be gone too.
                if written <= 0 { if fd == 1 { exit(1) } else { return } }
                offset += written
            }
        }
    }

    /// Standard output, polled for nothing: a pipe whose reader closed still reports POLLERR
    /// (a socket or terminal, POLLHUP), while a file or /dev/null reports nothing.
    /// A closed standard output is not watched (poll ignores a negative descriptor), or its
    /// POLLNVAL would end every wait at once.
    static let readerWatch = pollfd(fd: fcntl(1, F_GETFD) < 0 ? -1 : 1, events: 0, revents: 0)

    /// Ends as a failed write would, when the poll saw the reader go.
    static func endIfReaderGone(_ watch: pollfd) {
        if watch.revents & Int16(POLLERR | POLLHUP) != 0 { exit(1) }
    }

    /// Sleeps like usleep, but ends the program the moment standard output's reader is gone.
    static func pause(milliseconds: Int32) {
        var watch = readerWatch
        let deadline = monotonicMilliseconds() + Int64(milliseconds)
        while case let remaining = deadline - monotonicMilliseconds(), remaining > 0 {
            if poll(&watch, 1, Int32(clamping: remaining)) > 0 { endIfReaderGone(watch) }
            watch.revents = 0
        }
    }
}

extension StatusMessage {
    /// What makes a `watch` line news: the quote, its state and where it came from.
    var repeatKey: String {
        "\(price ?? "")|\(timestamp ?? "")|\(state.rawValue)|\(source ?? "")|\(transport ?? "")|\(lastError ?? "")"
    }
}
